// ctest-label: api (starts a real berthd)
// The SDK's installer example (sdk/examples/installer) the way a third party ships one: this
// build installed into a prefix, the example configured and built against that prefix alone,
// its unit tests run, the example installed into the prefix beside berthd's own plugins, and
// the installed berthd serving it. An install over HTTP answers the contract's shape, stores
// the generated secret (listed by name, never shown), makes a live release from the payload
// folder whose app answers on the project's address and writes to its home folder, and tells
// its progress (templates.installs.v1). A second install keeps the secret (the entries signed
// before still verify) and makes a new release; rotate_secret replaces the secret.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "projects/api_support.hpp"
#include "runtime/host_requests.hpp"
#include "support/berthd_suite.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::core::runCommand;
namespace fs = std::filesystem;

namespace {

class ApiExampleInstaller : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    dir = makeTempDir("berth-example-installer-");
    problem = buildAndInstallTheExample();
    if (!problem.empty()) return;
    BerthdOptions options;
    options.berthd = prefix() + "/bin/berthd";
    options.plugin_dir = prefix() + "/lib/berth";
    options.plugins = {"projects", "storage", "runtime", "templates", "guestbook"};
    options.extra_yaml = secretsKeyYaml() + "templates:\n  answer_within_seconds: 120\n";
    startServer(options);
    ann = std::make_unique<Account>(makeAccount(*server, "guestann"));
  }
  static void TearDownTestSuite() {
    stopServer();
    ann.reset();
    removeTree(dir);
  }
  void SetUp() override {
    if (!problem.empty()) FAIL() << problem;
  }

  static std::string prefix() { return dir + "/prefix"; }

  // What a third party does, step by step; the first step that fails, with its output.
  static std::string buildAndInstallTheExample() {
    const std::string source = std::string(BERTH_TEST_SOURCE_DIR) + "/sdk/examples/installer";
    const std::string build = dir + "/guestbook-build";
    const std::vector<std::vector<std::string>> steps = {
        {"cmake", "--install", BERTH_TEST_BINARY_DIR, "--prefix", prefix()},
        {"cmake", "-S", source, "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix()},
        {"cmake", "--build", build, "-j", "2"},
        {"ctest", "--test-dir", build, "--output-on-failure"},
        {"cmake", "--install", build, "--prefix", prefix()}};
    for (const auto& step : steps) {
      auto ran = runCommand(step, {}, std::chrono::minutes(5));
      if (!ran.status.ok()) return joined(step) + " failed:\n" + ran.output;
    }
    return "";
  }

  static std::string install(const std::string& project) {
    return "/projects/" + project + "/app-templates/guestbook/install";
  }
  // The app's own view of itself, through the edge on the project's address.
  static nlohmann::json appState(const std::string& project) {
    auto r = onProjectHost(*server, project, "/entries.json");
    return r.status == 200 ? r.json() : nlohmann::json();
  }
  static nlohmann::json secretsOf(const std::string& project) {
    auto r = api(*ann).get("/projects/" + project + "/secrets");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json()["secrets"];
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }
  // A generated secret is 64 hex digits; nothing the API or the app shows may hold one.
  static bool showsASecretValue(const std::string& text) {
    return std::regex_search(text, std::regex("[0-9a-f]{64}"));
  }

  static inline std::string dir;
  static inline std::string problem;
  static inline std::unique_ptr<Account> ann;
};

TEST_F(ApiExampleInstaller, TheExampleIsInstalledBesideBerthdsPlugins) {
  EXPECT_TRUE(fs::exists(prefix() + "/lib/berth/libberth_guestbook.so"));
  EXPECT_TRUE(fs::exists(prefix() + "/share/berth/templates/guestbook/app/server.js"));
  auto r = server->api().get("/app-templates");
  ASSERT_EQ(r.status, 200) << r.body;
  nlohmann::json guestbook;
  const nlohmann::json listed = r.json();  // outlives the loop
  for (const auto& t : listed["templates"])
    if (t["slug"] == "guestbook") guestbook = t;
  EXPECT_EQ(guestbook["installable"], true) << r.body;
  EXPECT_EQ(guestbook["name"], "Guestbook");
  EXPECT_EQ(guestbook["version"], "1.0.0");
}

TEST_F(ApiExampleInstaller, AWrongBodyIsRefusedInTheWordsOfTheCoreAndOfTheInstaller) {
  mustCreate(api(*ann), "refused");
  const std::string p = projectName("refused", ann->slug);
  auto wrong_type = api(*ann).post(install(p), {{"title", 7}});
  EXPECT_EQ(wrong_type.status, 422);
  EXPECT_EQ(wrong_type.body, "field title must be a string");
  auto empty_title = api(*ann).post(install(p), {{"title", ""}});
  EXPECT_EQ(empty_title.status, 400);
  EXPECT_EQ(errorText(empty_title), "a guestbook's title is 1 to 100 characters");
  EXPECT_EQ(secretsOf(p), nlohmann::json::array()) << "a refused install generated a secret";
  EXPECT_EQ(api(*ann).get("/projects/" + p + "/deploys").json()["deploys"],
            nlohmann::json::array());
}

TEST_F(ApiExampleInstaller, InstallsALiveAppThatKeepsItsSecretWhenInstalledAgain) {
  mustCreate(api(*ann), "guests");
  const std::string p = projectName("guests", ann->slug);
  const std::string url = api(*ann).get("/projects/" + p).json().value("url", "");
  ASSERT_FALSE(url.empty());

  // The contract's 200: {project, template, schedules, secrets}, and the installer's release.
  auto r = api(*ann).post(install(p), {{"title", "Ann's guests"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const nlohmann::json answer = r.json();
  EXPECT_EQ(answer["project"]["name"], p);
  EXPECT_EQ(answer["template"], "guestbook");
  EXPECT_EQ(answer["schedules"], nlohmann::json::array());
  EXPECT_EQ(answer["secrets"], nlohmann::json::array({"GUESTBOOK_SECRET"}));
  EXPECT_EQ(answer["release"]["status"], "live") << r.body;
  const std::string first_release = answer["release"].value("id", "");
  EXPECT_FALSE(showsASecretValue(r.body)) << r.body;

  // The secret: listed by name, never its value.
  const nlohmann::json secrets = secretsOf(p);
  ASSERT_EQ(secrets.size(), 1u) << secrets;
  EXPECT_EQ(secrets[0]["name"], "GUESTBOOK_SECRET");
  EXPECT_FALSE(secrets[0].contains("value"));
  EXPECT_FALSE(showsASecretValue(secrets.dump()));
  const int64_t kept_at = secrets[0].value("updated_at", int64_t{0});

  // The release is the project's live one, and its app answers on the project's address,
  // with the secret's name, BERTH_URL and the install's title.
  auto release = api(*ann).get("/projects/" + p + "/deploys/" + first_release);
  ASSERT_EQ(release.status, 200) << release.body;
  EXPECT_EQ(release.json()["status"], "live");
  EXPECT_EQ(release.json()["cmd"], "node server.js");
  nlohmann::json state;
  ASSERT_TRUE(
      eventually([&] { return !(state = appState(p)).is_null(); }, std::chrono::seconds(60)))
      << onProjectHost(*server, p, "/entries.json").body;
  EXPECT_EQ(state["title"], "Ann's guests");
  EXPECT_EQ(state["url"], url);
  EXPECT_EQ(state["secret"], "GUESTBOOK_SECRET");
  auto page = onProjectHost(*server, p, "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<code>GUESTBOOK_SECRET</code>"), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("Ann&#39;s guests"), std::string::npos) << page.body;
  EXPECT_FALSE(showsASecretValue(page.body)) << page.body;

  // A visitor signs it: the app writes to its home folder.
  auto signed_in =
      onProjectHost(*server, p, "/entries", {"Content-Type: application/x-www-form-urlencoded"},
                    "POST", "text=hello+from+Bob");
  EXPECT_EQ(signed_in.status, 303) << signed_in.body;
  const nlohmann::json entries = appState(p)["entries"];
  ASSERT_EQ(entries.size(), 1u) << entries;
  EXPECT_EQ(entries[0]["text"], "hello from Bob");
  EXPECT_EQ(entries[0]["verified"], true);

  // Its progress: the last line in the install's status, every line in the project's log
  // (flushed every second).
  EXPECT_EQ(api(*ann).get(install(p)).json()["progress"],
            "guestbook: release " + first_release + " is live");
  auto logged = [&](const std::string& message) {
    const nlohmann::json lines = projectLogs(api(*ann), p);  // outlives the loop
    for (const auto& line : lines)
      if (line["kind"] == "platform" && line["message"] == message) return true;
    return false;
  };
  EXPECT_TRUE(
      eventually([&] { return logged("guestbook: release " + first_release + " is live"); }));
  EXPECT_TRUE(logged("guestbook: GUESTBOOK_SECRET is a new secret"));

  // Again: the secret is kept (same updated_at; the entry signed before still verifies, which
  // a new secret would not), and a new release goes live with the default title.
  auto again = api(*ann).post(install(p), nlohmann::json::object());
  ASSERT_EQ(again.status, 200) << again.body;
  const std::string second_release = again.json()["release"].value("id", "");
  EXPECT_NE(second_release, first_release);
  EXPECT_EQ(again.json()["release"]["status"], "live");
  EXPECT_EQ(secretsOf(p)[0]["updated_at"], kept_at);
  ASSERT_TRUE(
      eventually([&] { return appState(p)["title"] == "Guestbook"; }, std::chrono::seconds(60)))
      << appState(p);
  EXPECT_EQ(appState(p)["entries"][0]["verified"], true) << "the second install lost the secret";

  // rotate_secret: a new secret (updated_at is in seconds, so it may read the same), and the
  // app, restarted with it, no longer verifies the old entry.
  auto rotated = api(*ann).post(install(p), {{"rotate_secret", true}});
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_TRUE(eventually([&] { return appState(p)["entries"][0]["verified"] == false; },
                         std::chrono::seconds(60)))
      << appState(p);
}

}  // namespace
