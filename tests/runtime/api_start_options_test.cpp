// ctest-label: api (starts a real berthd)
// runtime.apps.v1 over the plugin ABI (the serviceprobe fixture plugin) with the projects,
// storage and runtime plugins and a Node app made through runtime.releases.v1: every refusal
// (nothing stored by one), the defaults, the readiness path and start timeout honoured (an
// app whose "/" fails starts with a readiness path that answers, and fails with one that does
// not), a folder of the shared folder visible inside the sandbox and read-only there (and
// invisible without the option), folders outside it and links out of it refused, the
// environment reaching the app over a secret of the same name, the platform's names refused,
// a running app restarted with new options, and the options gone with the project.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../projects/api_support.hpp"
#include "host_requests.hpp"
#include "support/berthd_suite.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// "/" fails (500); /healthz answers; /not-ready answers 503; /started tells this process from
// the next; /env, /read and /write show what the app sees and may do.
const char* const kApp = R"JS(
const fs = require('fs');
const started = Date.now() + '-' + Math.random();
require('http').createServer((req, res) => {
  const url = new URL(req.url, 'http://app');
  const q = url.searchParams;
  res.setHeader('cache-control', 'no-store');
  const attempt = (f) => { try { return f(); } catch (e) { return 'error ' + e.code; } };
  switch (url.pathname) {
    case '/': res.statusCode = 500; return res.end('the root fails');
    case '/healthz': return res.end('healthy');
    case '/not-ready': res.statusCode = 503; return res.end('not ready');
    case '/started': return res.end(started);
    case '/env': return res.end(String(process.env[q.get('name')]));
    case '/read': return res.end(attempt(() => fs.readFileSync(q.get('path'), 'utf8')));
    case '/write': return res.end(attempt(() => { fs.writeFileSync(q.get('path'), 'x'); return 'written'; }));
  }
  res.statusCode = 404;
  res.end('no such page');
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

class ApiStartOptions : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    options.extra_yaml = secretsKeyYaml() + "  creation_burst: 100\n";
    startServer(options, "startopt");
    shared = server->dataDir() + "/shared";
  }
  static HttpResult call(const std::string& service, const std::string& method,
                         const json& request) {
    return callService(*server, service, method, request, 120000);
  }
  static json mustCall(const std::string& service, const std::string& method, const json& request) {
    HttpResult r = call(service, method, request);
    if (r.status != 200)
      throw std::runtime_error(method + ": " + std::to_string(r.status) + " " + r.body + r.error);
    return r.json();
  }
  static HttpResult setOptions(const json& request) {
    return call("runtime.apps.v1", "set_start_options", request);
  }
  static json options(const std::string& id) {
    return mustCall("runtime.apps.v1", "start_options", {{"project_id", id}});
  }
  // A project serving kApp, live; its name and id.
  static std::pair<std::string, std::string> appProject(const std::string& label) {
    mustCreate(api(), label);
    const std::string name = projectName(label, owner->slug);
    const std::string id = projectId(*server, name);
    json made = mustCall(
        "runtime.releases.v1", "create",
        {{"project_id", id},
         {"files",
          {{{"path", "package.json"}, {"content", R"({"name": "opts", "main": "server.js"})"}},
           {{"path", "server.js"}, {"content", kApp}}}}});
    json done =
        mustCall("runtime.releases.v1", "wait",
                 {{"project_id", id}, {"release_id", made["id"]}, {"timeout_seconds", 120}});
    if (done["status"] != "live") throw std::runtime_error("not live: " + done.dump());
    return {name, id};
  }
  static std::string page(const std::string& name, const std::string& path) {
    return onProjectHost(*server, name, path).body;
  }
  // The body of `path` once it is `expected` (the app may be restarting meanwhile).
  static bool answers(const std::string& name, const std::string& path,
                      const std::string& expected) {
    return eventually([&] { return page(name, path) == expected; }, std::chrono::seconds(60));
  }
  static void expectRefused(const json& request, long status, const std::string& error) {
    HttpResult r = setOptions(request);
    EXPECT_EQ(r.status, status) << request.dump() << " -> " << r.body;
    EXPECT_EQ(errorText(r), error) << request.dump();
  }

  static inline std::string shared;
};

TEST_F(ApiStartOptions, EveryRefusalAndNothingStoredByOne) {
  mustCreate(api(), "refused");
  const std::string id = projectId(*server, projectName("refused", owner->slug));
  const json defaults = {{"project_id", id},
                         {"readiness_path", nullptr},
                         {"start_timeout_seconds", nullptr},
                         {"read_only_paths", json::array()},
                         {"environment", json::object()}};
  EXPECT_EQ(options(id), defaults);

  fs::create_directories(shared + "/tools/bin");
  fs::create_directories(shared + "/.home");
  ::symlink("/etc", (shared + "/etc-link").c_str());
  ::symlink(shared.c_str(), (shared + "/loop").c_str());
  fs::create_directories(server->dataDir() + "/outside");
  ::symlink((server->dataDir() + "/outside").c_str(), (shared + "/tools/out").c_str());

  const std::string unknown = "00000000-0000-0000-0000-000000000000";
  expectRefused({{"project_id", unknown}}, 404, "no project called " + unknown);
  expectRefused(json::object(), 400, "project_id is required and must be a string");
  const std::string readiness_rule =
      "readiness_path must start with \"/\", be at most 200 characters and hold no spaces or "
      "control characters";
  for (json path : {json("healthz"), json(""), json("/a b"), json("/a\tb"),
                    json("/" + std::string(200, 'a')), json(5)})
    expectRefused({{"project_id", id}, {"readiness_path", path}}, 400, readiness_rule);
  for (json timeout : {json(0), json(901), json(-3), json("30"), json(2.5)})
    expectRefused({{"project_id", id}, {"start_timeout_seconds", timeout}}, 400,
                  "start_timeout_seconds must be a whole number from 1 to 900");
  const std::string paths_rule = "read_only_paths must be an array of at most 8 paths";
  expectRefused({{"project_id", id}, {"read_only_paths", shared + "/tools"}}, 400, paths_rule);
  expectRefused({{"project_id", id}, {"read_only_paths", {7}}}, 400, paths_rule);
  expectRefused({{"project_id", id},
                 {"read_only_paths", json(std::vector<std::string>(9, shared + "/tools"))}},
                400, paths_rule);
  for (const std::string& path :
       {std::string("tools"), std::string("/etc"), server->dataDir() + "/releases",
        server->dataDir() + "/outside", shared, shared + "/", shared + "/tools/",
        shared + "//tools", shared + "/./tools", shared + "/tools/../tools",
        shared + "/tools/bin/..", shared + "/missing", shared + "/.home", shared + "/etc-link",
        shared + "/loop/tools", shared + "/tools/out", shared + "/tools/bin/../../../outside"})
    expectRefused({{"project_id", id}, {"read_only_paths", {shared + "/tools", path}}}, 400,
                  "a read-only path must be a folder under " + shared + ": " + path);
  const std::string environment_rule =
      "environment must be an object of at most 32 names with string values";
  expectRefused({{"project_id", id}, {"environment", json::array({"A=1"})}}, 400, environment_rule);
  expectRefused({{"project_id", id}, {"environment", {{"A", 1}}}}, 400, environment_rule);
  json many = json::object();
  for (int i = 0; i < 33; ++i) many["NAME_" + std::to_string(i)] = "x";
  expectRefused({{"project_id", id}, {"environment", many}}, 400, environment_rule);
  for (const std::string& name : {std::string("lower"), std::string("1ABC"), std::string("A-B"),
                                  std::string(65, 'A'), std::string("")})
    expectRefused({{"project_id", id}, {"environment", {{name, "x"}}}}, 400,
                  "environment name " + name +
                      " must be 1 to 64 of A-Z, 0-9 and _, not starting with a digit");
  expectRefused({{"project_id", id}, {"environment", {{"BIG", std::string(4097, 'x')}}}}, 400,
                "the value of environment BIG must be at most 4096 bytes without NUL characters");
  expectRefused({{"project_id", id}, {"environment", {{"NUL", std::string("a\0b", 3)}}}}, 400,
                "the value of environment NUL must be at most 4096 bytes without NUL characters");
  for (const char* name :
       {"PORT", "HOME", "TMPDIR", "PATH", "DATABASE_URL", "PGHOST", "PGPASSWORD", "BERTH_URL"})
    expectRefused({{"project_id", id}, {"environment", {{"OK", "1"}, {name, "mine"}}}}, 400,
                  std::string("environment ") + name +
                      " is set by the platform; start options cannot set it");
  EXPECT_EQ(options(id), defaults);

  // What is allowed is stored as given, and a request without a field unsets it.
  json full = {{"project_id", id},
               {"readiness_path", "/healthz?full=1"},
               {"start_timeout_seconds", 900},
               {"read_only_paths", {shared + "/tools", shared + "/tools/bin"}},
               {"environment", {{"A", ""}, {"_UNDER_1", std::string(4096, 'v')}}}};
  auto set = setOptions(full);
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(set.json(), full);
  EXPECT_EQ(options(id), full);
  ASSERT_EQ(setOptions({{"project_id", id}, {"start_timeout_seconds", 1}}).status, 200);
  json only_timeout = defaults;
  only_timeout["start_timeout_seconds"] = 1;
  EXPECT_EQ(options(id), only_timeout);
}

TEST_F(ApiStartOptions, TheReadinessPathAndStartTimeoutAreHonoured) {
  std::string name, id;
  std::tie(name, id) = appProject("ready");
  // Without options: ready once it accepts connections, though "/" fails.
  EXPECT_TRUE(answers(name, "/healthz", "healthy"));

  // A readiness path that never answers below 400: the start fails after the timeout given.
  ASSERT_EQ(
      setOptions(
          {{"project_id", id}, {"readiness_path", "/not-ready"}, {"start_timeout_seconds", 2}})
          .status,
      200);
  HttpResult failing;
  EXPECT_TRUE(eventually(
      [&] {
        failing = onProjectHost(*server, name, "/healthz");
        return failing.status == 503;
      },
      std::chrono::seconds(60)))
      << failing.status << " " << failing.body;
  EXPECT_EQ(errorText(failing), "the app's readiness path /not-ready did not answer within 2 s");
  // "/" answers 500: as a readiness path it fails too.
  ASSERT_EQ(setOptions({{"project_id", id}, {"readiness_path", "/"}, {"start_timeout_seconds", 1}})
                .status,
            200);
  EXPECT_TRUE(eventually([&] {
    failing = onProjectHost(*server, name, "/healthz");
    return errorText(failing) == "the app's readiness path / did not answer within 1 s";
  })) << failing.body;

  // One that answers: the app starts.
  ASSERT_EQ(setOptions({{"project_id", id}, {"readiness_path", "/healthz"}}).status, 200);
  EXPECT_TRUE(answers(name, "/healthz", "healthy"));
}

TEST_F(ApiStartOptions, ASharedFolderIsVisibleReadOnlyOnlyWithTheOption) {
  std::string name, id;
  std::tie(name, id) = appProject("shared");
  const std::string tools = shared + "/node-tools";
  fs::create_directories(tools);
  std::ofstream(tools + "/tool.txt") << "a shared tool";
  // Writable by anyone on the host: only the read-only mount keeps the app from writing.
  ::chmod(tools.c_str(), 0777);

  // Not in the sandbox without the option.
  EXPECT_TRUE(answers(name, "/healthz", "healthy"));
  EXPECT_EQ(page(name, "/read?path=" + tools + "/tool.txt"), "error ENOENT");

  const std::string started = page(name, "/started");
  auto set = setOptions({{"project_id", id}, {"read_only_paths", {tools}}});
  ASSERT_EQ(set.status, 200) << set.body;
  // The running app was stopped and started again with it, before any request asked.
  EXPECT_TRUE(
      eventually([&] { return api().get("/projects/" + name).json()["state"] == "running"; },
                 std::chrono::seconds(60)));
  EXPECT_NE(page(name, "/started"), started);
  EXPECT_TRUE(answers(name, "/read?path=" + tools + "/tool.txt", "a shared tool"));
  EXPECT_EQ(page(name, "/write?path=" + tools + "/new.txt"), "error EROFS");
  EXPECT_EQ(page(name, "/write?path=" + tools + "/tool.txt"), "error EROFS");
  EXPECT_FALSE(fs::exists(tools + "/new.txt"));
  // The rest of the shared folder stays out of sight.
  fs::create_directories(shared + "/other");
  std::ofstream(shared + "/other/secret.txt") << "another tree";
  EXPECT_EQ(page(name, "/read?path=" + shared + "/other/secret.txt"), "error ENOENT");

  // A folder that went away since it was set: the next start (a new release here) is refused
  // with 503 rather than run without it.
  ASSERT_EQ(setOptions({{"project_id", id}, {"read_only_paths", {shared + "/other"}}}).status, 200);
  fs::remove_all(shared + "/other");
  json again = mustCall(
      "runtime.releases.v1", "create",
      {{"project_id", id},
       {"files",
        {{{"path", "package.json"}, {"content", R"({"name": "opts", "main": "server.js"})"}},
         {{"path", "server.js"}, {"content", kApp}}}}});
  ASSERT_EQ(
      mustCall(
          "runtime.releases.v1", "wait",
          {{"project_id", id}, {"release_id", again["id"]}, {"timeout_seconds", 120}})["status"],
      "live");
  HttpResult gone;
  EXPECT_TRUE(eventually([&] {
    gone = onProjectHost(*server, name, "/healthz");
    return gone.status == 503;
  })) << gone.status
      << " " << gone.body;
  EXPECT_EQ(errorText(gone), "the start options' read-only path " + shared +
                                 "/other is no longer a folder under " + shared);
}

TEST_F(ApiStartOptions, TheEnvironmentReachesTheAppOverASecretAndGoesWithTheProject) {
  std::string name, id;
  std::tie(name, id) = appProject("env");
  ASSERT_EQ(api()
                .post("/projects/" + name + "/secrets",
                      {{"name", "GREETING"}, {"value", "from a secret"}})
                .status,
            201);
  EXPECT_TRUE(answers(name, "/env?name=GREETING", "from a secret"));
  auto set = setOptions(
      {{"project_id", id}, {"environment", {{"GREETING", "from the options"}, {"MODE", "x y"}}}});
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_TRUE(answers(name, "/env?name=GREETING", "from the options"));
  EXPECT_EQ(page(name, "/env?name=MODE"), "x y");
  // A secret set later does not override it either (the app restarts, the option stays).
  const std::string started = page(name, "/started");
  ASSERT_EQ(api()
                .post("/projects/" + name + "/secrets",
                      {{"name", "GREETING"}, {"value", "a newer secret"}})
                .status,
            201);
  EXPECT_TRUE(eventually(
      [&] {
        HttpResult now = onProjectHost(*server, name, "/started");
        return now.status == 200 && now.body != started;
      },
      std::chrono::seconds(60)));
  EXPECT_EQ(page(name, "/env?name=GREETING"), "from the options");
  // Unset: the secret is seen again.
  ASSERT_EQ(setOptions({{"project_id", id}}).status, 200);
  EXPECT_TRUE(answers(name, "/env?name=GREETING", "a newer secret"));

  ASSERT_EQ(setOptions({{"project_id", id}, {"environment", {{"MODE", "kept"}}}}).status, 200);
  auto count = [&] {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    return column(db, "SELECT count(*)::text FROM runtime.start_options WHERE project_id = $1",
                  {id})[0];
  };
  EXPECT_EQ(count(), "1");
  ASSERT_EQ(api().del("/projects/" + name).status, 204);
  EXPECT_TRUE(eventually([&] { return count() == "0"; }));
}

}  // namespace
