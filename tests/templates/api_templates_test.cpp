// ctest-label: api (starts a real berthd)
// The catalogue and the install route over real HTTP, with a stand-in installer (a template
// plugin built like a third party's): the catalogue without a token, 404/400/422 in the
// contract's words and nothing recorded, the context bound by the core to the caller's
// project, a slow install answered 202 and followed, a second install at once refused 409, a
// failed install run again, and a template plugin refused any power but its context.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "projects/api_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;

namespace {

class ApiTemplates : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "templates", "echoservice", "standin"};
    options.extra_yaml = secretsKeyYaml() + "templates:\n  answer_within_seconds: 2\n";
    startServer(options);
    ann = new Account(makeAccount(*server, "tplann1"));
    bob = new Account(makeAccount(*server, "tplbob1"));
  }
  static void TearDownTestSuite() {
    stopServer();
    delete ann;
    delete bob;
  }
  static std::string install(const std::string& project, const std::string& slug) {
    return "/projects/" + project + "/app-templates/" + slug + "/install";
  }
  static nlohmann::json latest(const std::string& project, const std::string& slug) {
    return api(*ann).get(install(project, slug)).json();
  }
  static inline Account* ann = nullptr;
  static inline Account* bob = nullptr;
};

TEST_F(ApiTemplates, TheCatalogueNeedsNoToken) {
  auto r = server->api().get("/app-templates");
  ASSERT_EQ(r.status, 200) << r.body;
  auto templates = r.json()["templates"];
  ASSERT_EQ(templates.size(), 12u) << r.body;  // eleven entries and the stand-in
  std::map<std::string, nlohmann::json> by_slug;
  for (const auto& t : templates) by_slug[t["slug"]] = t;
  EXPECT_EQ(by_slug["ghost"]["installable"], false);
  EXPECT_EQ(by_slug["demo"]["installable"], true);
  EXPECT_EQ(by_slug["demo"]["version"], "0.1.0");
  EXPECT_EQ(by_slug["n8n"]["name"], "n8n");
}

TEST_F(ApiTemplates, RefusalsInTheContractsWordsRecordNothing) {
  mustCreate(api(*ann), "refuse");
  const std::string p = projectName("refuse", ann->slug);
  auto unknown = api(*ann).post(install(p, "nothing"), {{"title", "x"}});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(errorText(unknown), "no app template named nothing");
  auto catalogue_only = api(*ann).post(install(p, "ghost"), nlohmann::json::object());
  EXPECT_EQ(catalogue_only.status, 400);
  EXPECT_EQ(errorText(catalogue_only), "ghost cannot be installed");
  auto not_yours = api(*bob).post(install(p, "demo"), {{"title", "x"}});
  EXPECT_EQ(not_yours.status, 404);
  EXPECT_EQ(errorText(not_yours), "no project called " + p);
  auto missing = api(*ann).post(install(p, "demo"), nlohmann::json::object());
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(missing.body, "missing field: title");
  auto wrong = api(*ann).post(install(p, "demo"), {{"title", 7}});
  EXPECT_EQ(wrong.status, 422);
  EXPECT_EQ(wrong.body, "field title must be a string");
  auto not_json =
      api(*ann).raw("POST", install(p, "demo"), "{", {"Content-Type: application/json"});
  EXPECT_EQ(not_json.status, 400);
  // None of them recorded an install.
  auto state = api(*ann).get(install(p, "demo"));
  EXPECT_EQ(state.status, 404);
  EXPECT_EQ(errorText(state), "no install of demo on " + p);
}

TEST_F(ApiTemplates, TheCoreBindsTheContextToTheCallersProject) {
  auto created = mustCreate(api(*ann), "bound");
  const std::string p = projectName("bound", ann->slug);
  auto r = api(*ann).post(install(p, "demo"), {{"title", "Notes"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto answer = r.json();
  EXPECT_EQ(answer["template"], "demo");
  EXPECT_EQ(answer["project"]["name"], p);
  EXPECT_EQ(answer["secrets"], nlohmann::json::array({"DEMO_KEY"}));
  EXPECT_EQ(answer["schedules"], nlohmann::json::array());
  const auto& echoed = answer["echoed"]["request"];
  EXPECT_EQ(echoed["project_id"], answer["project"]["id"]) << "the installer's own project_id won";
  EXPECT_NE(echoed["project_id"], "forged");
  EXPECT_EQ(echoed["account_id"], api(*ann).get("/me").json()["id"]);
  EXPECT_EQ(echoed["title"], "Notes");
  EXPECT_EQ(answer["payload"], "a file the stand-in installer reads from its payload folder\n");
  auto state = latest(p, "demo");
  EXPECT_EQ(state["status"], "installed");
  EXPECT_EQ(state["answer"]["template"], "demo");
  EXPECT_EQ(answer["key"]["name"], "DEMO_KEY");
  EXPECT_EQ(answer["key"]["stored"], true);
  // Run again: safe, and the generated secret is kept (never shown, listed by name).
  auto again = api(*ann).post(install(p, "demo"), {{"title", "Notes"}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json()["key"]["stored"], false);
  EXPECT_EQ(again.json()["key"]["updated_at"], answer["key"]["updated_at"]);
  auto secrets = api(*ann).get("/projects/" + p + "/secrets");
  ASSERT_EQ(secrets.status, 200) << secrets.body;
  ASSERT_EQ(secrets.json()["secrets"].size(), 1u);
  EXPECT_EQ(secrets.json()["secrets"][0]["name"], "DEMO_KEY");
  EXPECT_EQ(secrets.body.find("demo-secret-"), std::string::npos) << "a value was shown";
}

TEST_F(ApiTemplates, AnInstallMakesAReleaseWithItsCommandEnvironmentAndSecret) {
  mustCreate(api(*ann), "effects");
  const std::string p = projectName("effects", ann->slug);
  auto r = api(*ann).post(install(p, "demo"), {{"title", "Hello"}, {"app", true}});
  ASSERT_EQ(r.status, 200) << r.body;
  const nlohmann::json release = r.json()["release"];
  EXPECT_EQ(release["status"], "live");
  EXPECT_EQ(release["cmd"], "node server.js");
  auto deploys = api(*ann).get("/projects/" + p + "/deploys");
  ASSERT_EQ(deploys.status, 200);
  EXPECT_EQ(deploys.json()["deploys"][0]["id"], release["id"]);
  // The app runs with the start option's environment and the generated secret.
  auto page = berth::testing::sendToHost(server->baseUrl(), p + ".localhost", "GET", "/");
  EXPECT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.body, "greeting=Hello key=set\n");
  // A re-install replaces the release and keeps the key.
  auto again = api(*ann).post(install(p, "demo"), {{"title", "Again"}, {"app", true}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_NE(again.json()["release"]["id"], release["id"]);
  EXPECT_EQ(again.json()["key"]["stored"], false);
  std::string body;
  EXPECT_TRUE(eventually([&] {
    body = berth::testing::sendToHost(server->baseUrl(), p + ".localhost", "GET", "/").body;
    return body == "greeting=Again key=set\n";
  })) << body;
}

TEST_F(ApiTemplates, ASlowInstallAnswers202AndASecondOneIsAConflict) {
  mustCreate(api(*ann), "slow");
  const std::string p = projectName("slow", ann->slug);
  auto r = api(*ann).post(install(p, "demo"), {{"title", "x"}, {"sleep_ms", 4000}});
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(r.json()["status"], "installing");
  EXPECT_EQ(r.json()["status_url"], install(p, "demo"));
  // What the installer said it is doing reaches the caller, and the status while it runs.
  EXPECT_EQ(r.json()["progress"], "the demo sleeps for 4000 ms") << r.body;
  EXPECT_EQ(latest(p, "demo")["progress"], "the demo sleeps for 4000 ms");
  auto second = api(*ann).post(install(p, "demo"), {{"title", "y"}});
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(errorText(second),
            "an app template is already being installed on " + p + "; wait for it to finish");
  EXPECT_EQ(latest(p, "demo")["status"], "installing");
  std::string status;
  for (int i = 0; i < 100 && (status = latest(p, "demo")["status"]) == "installing"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(status, "installed");
}

TEST_F(ApiTemplates, AFailedInstallCanRunAgain) {
  mustCreate(api(*ann), "again");
  const std::string p = projectName("again", ann->slug);
  auto failed = api(*ann).post(install(p, "demo"), {{"title", "x"}, {"fail", true}});
  EXPECT_EQ(failed.status, 400);
  EXPECT_EQ(errorText(failed), "the demo was told to fail");
  auto state = latest(p, "demo");
  EXPECT_EQ(state["status"], "failed");
  EXPECT_EQ(state["error"], "the demo was told to fail");
  EXPECT_TRUE(contains(listedNames(api(*ann)), p)) << "the project stays listed";
  EXPECT_EQ(api(*ann).post(install(p, "demo"), {{"title", "x"}}).status, 200);
}

TEST_F(ApiTemplates, AnInstallerReachesOnlyWhatItDeclared) {
  mustCreate(api(*ann), "nosy");
  const std::string p = projectName("nosy", ann->slug);
  auto r = api(*ann).post(install(p, "demo"), {{"title", "x"}, {"nosy", true}});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(errorText(r), "the installer demo did not declare the service projects.directory.v1");
}

TEST_F(ApiTemplates, AnInstallsProgressGoesToTheProjectsLog) {
  mustCreate(api(*ann), "logged");
  const std::string p = projectName("logged", ann->slug);
  ASSERT_EQ(api(*ann).post(install(p, "demo"), {{"title", "x"}}).status, 200);
  ASSERT_EQ(api(*ann).post(install(p, "demo"), {{"title", "x"}, {"fail", true}}).status, 400);
  std::vector<std::string> platform;
  for (int i = 0; i < 50; ++i) {
    platform.clear();
    const nlohmann::json logs =
        api(*ann).get("/projects/" + p + "/logs").json();  // outlives the loop
    for (const auto& line : logs["logs"])
      if (line["kind"] == "platform") platform.push_back(line["message"]);
    if (platform.size() >= 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Newest first.
  EXPECT_EQ(platform, (std::vector<std::string>{
                          "the install of demo failed: the demo was told to fail",
                          "installing the app template demo", "the app template demo is installed",
                          "installing the app template demo"}))
      << api(*ann).get("/projects/" + p + "/logs").body;
}

TEST_F(ApiTemplates, ATemplatePluginHasNoPowerButItsContext) {
  auto r = api(*ann).get("/standin/own-call");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["status"], 403);
  EXPECT_EQ(r.json()["error"],
            "a template plugin acts on projects only through its install context");
}

}  // namespace
