// ctest-label: api (starts a real berthd)
// The start-command rules and a Project's `runtime` reach the projects plugin only through
// hooks the runtime answers (projects.cmd_change.v1, <berth/services/projects_cmd_change.hpp>,
// and projects.view.v1, <berth/services/projects_view.hpp>); the projects plugin names no
// runtime service. Over real HTTP and the real plugins:
// - with the runtime plugin, a command it would not run is refused with its text, by PATCH and
//   by projects.directory.v1 `set_cmd`, and nothing is stored; GET, GET /projects, PATCH and
//   the directory's view show the runtime its rules name;
// - without it, any command is stored and no runtime shows (null), in the same shape.
#include <gtest/gtest.h>

#include <string>

#include "api_support.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

const std::string kAssignment =
    "the start command is run directly, so it cannot begin with an assignment like NAME=value; "
    "set a secret instead";
const std::string kPipe =
    "the start command is run directly, not through a shell, so it cannot contain |";

json getProject(const ApiClient& api, const std::string& name) {
  auto r = api.get("/projects/" + name);
  if (r.status != 200) throw std::runtime_error("GET /projects/" + name + ": " + r.body);
  return r.json();
}

json listed(const ApiClient& api, const std::string& name) {
  auto r = api.get("/projects");
  auto all = r.json();  // must outlive the loop
  for (const auto& p : all.at("projects"))
    if (p.at("name") == name) return p;
  return nullptr;
}

class CmdWithRuntime : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    startServer(options);
  }
};

class CmdWithoutRuntime : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "serviceprobe"};
    startServer(options);
  }
};

}  // namespace

TEST_F(CmdWithRuntime, TheRuntimeRefusesACommandItWouldNotRun) {
  Account a = makeAccount(*server, "cmdrt");
  std::string name = mustCreate(api(a), "site")["name"];
  std::string id = projectId(*server, name);
  ASSERT_EQ(api(a).patch("/projects/" + name, {{"cmd", "node server.js"}}).status, 200);

  auto r = api(a).patch("/projects/" + name, {{"cmd", "PORT=3000 node server.js"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), kAssignment);
  r = api(a).patch("/projects/" + name, {{"cmd", "node a.js | tee log"}, {"cache_ttl", 5}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), kPipe);
  r = callService(*server, "projects.directory.v1", "set_cmd",
                  {{"project_id", id}, {"cmd", "PORT=1 npm start"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), kAssignment);

  json now = getProject(api(a), name);
  EXPECT_EQ(now["cmd"], "node server.js") << "a refused change stores nothing";
  EXPECT_EQ(now["cache_ttl"], 60) << "nor the fields sent with it";
}

TEST_F(CmdWithRuntime, TheRuntimeNamesTheRuntimeEverywhereAProjectShows) {
  Account a = makeAccount(*server, "cmdname");
  std::string name = mustCreate(api(a), "web")["name"];
  std::string other = mustCreate(api(a), "bare")["name"];
  std::string id = projectId(*server, name);
  EXPECT_TRUE(getProject(api(a), name)["runtime"].is_null()) << "no cmd, no runtime";

  auto r = api(a).patch("/projects/" + name, {{"cmd", "python3 app.py"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["runtime"], "Python");
  EXPECT_EQ(getProject(api(a), name)["runtime"], "Python");
  EXPECT_EQ(listed(api(a), name)["runtime"], "Python") << "GET /projects asks in one event";
  ASSERT_TRUE(listed(api(a), other).contains("runtime"));
  EXPECT_TRUE(listed(api(a), other)["runtime"].is_null());
  EXPECT_EQ(
      mustCallService(*server, "projects.directory.v1", "view", {{"project_id", id}})["runtime"],
      "Python");
  EXPECT_EQ(mustCallService(*server, "projects.directory.v1", "set_cmd",
                            {{"project_id", id}, {"cmd", "/usr/bin/php-fpm8.2"}})["runtime"],
            "PHP");
  EXPECT_TRUE(api(a).patch("/projects/" + name, {{"cmd", "./server"}}).json()["runtime"].is_null());
}

TEST_F(CmdWithoutRuntime, AnyCommandIsStoredAndNoRuntimeShows) {
  Account a = makeAccount(*server, "cmdnort");
  std::string name = mustCreate(api(a), "site")["name"];
  std::string id = projectId(*server, name);
  for (std::string cmd : {"PORT=3000 node server.js", "node a.js | tee log", "node server.js"}) {
    auto r = api(a).patch("/projects/" + name, {{"cmd", cmd}});
    ASSERT_EQ(r.status, 200) << cmd << ": " << r.body;
    EXPECT_EQ(r.json()["cmd"], cmd);
    ASSERT_TRUE(r.json().contains("runtime")) << r.body;
    EXPECT_TRUE(r.json()["runtime"].is_null()) << cmd << ": nobody names a runtime";
    json shown = getProject(api(a), name);
    EXPECT_EQ(shown["cmd"], cmd);
    EXPECT_TRUE(shown["runtime"].is_null()) << cmd;
    EXPECT_TRUE(listed(api(a), name)["runtime"].is_null()) << cmd;
  }
  json answer = mustCallService(*server, "projects.directory.v1", "set_cmd",
                                {{"project_id", id}, {"cmd", "PORT=1 npm start"}});
  EXPECT_EQ(answer["cmd"], "PORT=1 npm start");
  EXPECT_TRUE(answer["runtime"].is_null());
}
