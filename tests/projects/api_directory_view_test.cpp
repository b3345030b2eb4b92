// ctest-label: api (starts a real berthd)
// projects.directory.v1 `view`, `set_cmd` and `set_cache` over the real plugin ABI, called through
// the serviceprobe fixture plugin as an installer's context or another plugin calls them: view
// answers exactly what GET /projects/{name} answers (for an account, only a project it reaches);
// set_cmd changes the start command with PATCH's rules, texts and effects (project.updated, the
// kept project list) and answers as view; every refusal.
#include <gtest/gtest.h>

#include "api_support.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

class DirectoryView : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    // The runtime's start-command rules check a cmd (projects.cmd_change.v1) and name its
    // runtime (projects.view.v1).
    options.plugins = {"projects", "projecthooks", "storage", "runtime", "serviceprobe"};
    startServer(options);
  }
  static HttpResult call(const std::string& method, const json& request) {
    return callService(*server, "projects.directory.v1", method, request);
  }
  static json mustCall(const std::string& method, const json& request) {
    return mustCallService(*server, "projects.directory.v1", method, request);
  }
  static json get(const Account& a, const std::string& name) {
    auto r = api(a).get("/projects/" + name);
    if (r.status != 200) throw std::runtime_error("GET /projects/" + name + ": " + r.body);
    return r.json();
  }
  static json listed(const Account& a, const std::string& name) {
    auto r = api(a).get("/projects");
    auto all = r.json();  // must outlive the loop
    for (const auto& p : all.at("projects"))
      if (p.at("name") == name) return p;
    return nullptr;
  }
};

const std::string kMissing = "nosuchprojectid000000000";

}  // namespace

TEST_F(DirectoryView, ViewAnswersWhatGetAnswers) {
  Account a = makeAccount(*server, "dirview");
  std::string name = mustCreate(api(a), "shop")["name"];
  std::string id = projectId(*server, name);
  json seen = get(a, name);
  EXPECT_EQ(mustCall("view", {{"project_id", id}}), seen);
  std::string account_id = seen["owner"]["id"];
  EXPECT_EQ(mustCall("view", {{"project_id", id}, {"account_id", account_id}}), seen);
  EXPECT_EQ(seen["name"], name) << seen.dump();
  EXPECT_EQ(seen["state"], "stopped");
  EXPECT_TRUE(seen["live"].is_null());
}

TEST_F(DirectoryView, ATeamsProjectIsViewedAsItsMembersSeeIt) {
  Account owner = makeAccount(*server, "dirtown");
  Account member = makeAccount(*server, "dirtmem");
  Account stranger = makeAccount(*server, "dirtstr");
  makeTeam(*server, "dirteam", owner.email);
  addToTeam(*server, "dirteam", member.email, "member");
  std::string name = mustCreate(api(member), "site", "dirteam")["name"];
  std::string id = projectId(*server, name);
  json seen = get(member, name);
  EXPECT_EQ(seen["team"], "dirteam");
  EXPECT_TRUE(seen["owner"]["email"].is_null()) << "a team has no e-mail";
  EXPECT_EQ(mustCall("view", {{"project_id", id}}), seen);
  std::string member_id = get(member, mustCreate(api(member), "own")["name"])["owner"]["id"];
  EXPECT_EQ(mustCall("view", {{"project_id", id}, {"account_id", member_id}}), seen);

  // An account that cannot reach it is answered as for a missing project.
  std::string stranger_id = get(stranger, mustCreate(api(stranger), "mine")["name"])["owner"]["id"];
  auto r = call("view", {{"project_id", id}, {"account_id", stranger_id}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + id);
}

TEST_F(DirectoryView, ViewRefusals) {
  auto r = call("view", {{"project_id", kMissing}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + kMissing);
  r = call("view", json::object());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "project_id is required and must be a string");
  r = call("view", {{"project_id", 7}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "project_id is required and must be a string");
  Account a = makeAccount(*server, "dirvref");
  std::string id = projectId(*server, mustCreate(api(a), "x1")["name"]);
  r = call("view", {{"project_id", id}, {"account_id", 7}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "account_id must be a string");

  // A project being removed is gone for view too.
  Account b = makeAccount(*server, "dirvgone");
  std::string name = mustCreate(api(b), "gone")["name"];
  std::string gone = projectId(*server, name);
  ASSERT_EQ(api(b).del("/projects/" + name).status, 204);
  r = call("view", {{"project_id", gone}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + gone);
}

TEST_F(DirectoryView, SetCmdChangesTheCommandAsPatchDoes) {
  Account a = makeAccount(*server, "dircmd");
  std::string name = mustCreate(api(a), "webapp")["name"];
  std::string id = projectId(*server, name);
  ASSERT_TRUE(listed(a, name).is_object());  // the account's list is kept from here on
  const size_t updates_before = hookEvents(*server, "project.updated", name).size();

  json answer = mustCall("set_cmd", {{"project_id", id}, {"cmd", "npm start"}});
  EXPECT_EQ(answer["cmd"], "npm start");
  EXPECT_EQ(answer["runtime"], "Node");
  EXPECT_EQ(answer, get(a, name)) << "answered as view answers, after the change";
  EXPECT_EQ(answer, mustCall("view", {{"project_id", id}}));
  EXPECT_EQ(listed(a, name)["cmd"], "npm start") << "the kept list is dropped at once";
  EXPECT_TRUE(eventually([&] {
    return hookEvents(*server, "project.updated", name).size() == updates_before + 1;
  })) << "project.updated, as PATCH fires it";

  // PATCH fires the same hook for the same change.
  ASSERT_EQ(api(a).patch("/projects/" + name, {{"cmd", "npm run serve"}}).status, 200);
  EXPECT_TRUE(eventually(
      [&] { return hookEvents(*server, "project.updated", name).size() == updates_before + 2; }));

  // null clears it, as "" does.
  answer = mustCall("set_cmd", {{"project_id", id}, {"cmd", nullptr}});
  EXPECT_EQ(answer["cmd"], "");
  EXPECT_TRUE(answer["runtime"].is_null());
  EXPECT_EQ(get(a, name)["cmd"], "");
  mustCall("set_cmd", {{"project_id", id}, {"cmd", "python3 app.py"}});
  EXPECT_EQ(mustCall("set_cmd", {{"project_id", id}, {"cmd", ""}})["cmd"], "");
}

TEST_F(DirectoryView, SetCacheChangesTheEdgeCacheAsPatchDoes) {
  Account a = makeAccount(*server, "dircache");
  std::string name = mustCreate(api(a), "flows")["name"];
  std::string id = projectId(*server, name);
  json answer = mustCall("set_cache", {{"project_id", id}, {"cache_enabled", false}});
  EXPECT_EQ(answer["cache_enabled"], false);
  EXPECT_EQ(answer["cache_ttl"], 60) << "the ttl is kept when not given";
  EXPECT_EQ(answer, get(a, name));
  answer = mustCall("set_cache", {{"project_id", id}, {"cache_enabled", true}, {"cache_ttl", 5}});
  EXPECT_EQ(answer["cache_enabled"], true);
  EXPECT_EQ(answer["cache_ttl"], 5);

  // PATCH's rule and words, and nothing changed.
  auto route = api(a).patch("/projects/" + name, {{"cache_ttl", 31536001}});
  auto service =
      call("set_cache", {{"project_id", id}, {"cache_enabled", false}, {"cache_ttl", 31536001}});
  ASSERT_EQ(route.status, 400) << route.body;
  EXPECT_EQ(service.status, 400) << service.body;
  EXPECT_EQ(errorText(service), errorText(route));
  EXPECT_EQ(get(a, name)["cache_enabled"], true) << "nothing changed";
  auto r = call("set_cache", {{"project_id", id}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "cache_enabled is required and must be a boolean");
  r = call("set_cache", {{"project_id", id}, {"cache_enabled", false}, {"cache_ttl", "5"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "cache_ttl must be a whole number");
}

TEST_F(DirectoryView, SetCmdRefusesWhatPatchRefusesWithItsTexts) {
  Account a = makeAccount(*server, "dircmdno");
  std::string name = mustCreate(api(a), "webapp")["name"];
  std::string id = projectId(*server, name);
  mustCall("set_cmd", {{"project_id", id}, {"cmd", "node server.js"}});
  for (const std::string& cmd :
       {std::string("npm start && rm -rf /"), std::string("node a.js | tee log"),
        std::string("PORT=1 node a.js"), std::string("node a.js\nrm x"), std::string("sh -c 'x'"),
        std::string("node $(cat x)")}) {
    auto route = api(a).patch("/projects/" + name, {{"cmd", cmd}});
    auto service = call("set_cmd", {{"project_id", id}, {"cmd", cmd}});
    ASSERT_EQ(route.status, 400) << cmd << " " << route.body;
    EXPECT_EQ(service.status, 400) << cmd << " " << service.body;
    EXPECT_EQ(errorText(service), errorText(route)) << cmd;
  }
  EXPECT_EQ(errorText(call("set_cmd", {{"project_id", id}, {"cmd", "a\nb"}})),
            "the start command must be one line");
  EXPECT_EQ(errorText(call("set_cmd", {{"project_id", id}, {"cmd", "A=1 node x"}})),
            "the start command is run directly, so it cannot begin with an assignment like "
            "NAME=value; set a secret instead");
  EXPECT_EQ(errorText(call("set_cmd", {{"project_id", id}, {"cmd", "a;b"}})),
            "the start command is run directly, not through a shell, so it cannot contain ;");
  EXPECT_EQ(get(a, name)["cmd"], "node server.js") << "nothing changed";

  auto r = call("set_cmd", {{"project_id", id}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "cmd is required: a string, or null to clear it");
  r = call("set_cmd", {{"project_id", id}, {"cmd", 5}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "cmd is required: a string, or null to clear it");
  r = call("set_cmd", {{"cmd", "npm start"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "project_id is required and must be a string");
  r = call("set_cmd", {{"project_id", kMissing}, {"cmd", "npm start"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + kMissing);
  EXPECT_EQ(get(a, name)["cmd"], "node server.js");
}
