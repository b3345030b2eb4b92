// ctest-label: api (starts a real berthd)
// runtime.releases.v1 over the plugin ABI (the serviceprobe fixture plugin), with the projects,
// storage and runtime plugins: a release made from files is built, goes live and is served
// through the edge, and answers exactly as the deploys routes do; one from a folder (files of
// the request replacing the folder's, a link in it refused); cmd as x-berth-cmd, with its
// rule; every refusal of create; get, wait (its timeout on a gated build, then the built
// release) and promote (as the route, 404, 409 while building); and a wait that ends when
// berthd stops rather than at its timeout.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

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

const std::string kService = "runtime.releases.v1";

// A Node app answering its name, so that a test sees which release serves.
std::string nodeApp(const std::string& says) {
  return "require('http').createServer((req, res) => {\n"
         "  res.setHeader('cache-control', 'no-store');\n"
         "  res.end(" +
         json(says).dump() +
         ");\n"
         "}).listen(Number(process.env.PORT), '127.0.0.1');\n";
}

// Files of a Node release whose npm install waits until `gate` exists (a `file:` dependency
// npm installs offline, and a postinstall script): it stays `building` as long as the test
// wants, without a sleep anywhere.
json gatedFiles(const std::string& gate) {
  json package = {{"name", "gated"},
                  {"version", "1.0.0"},
                  {"dependencies", {{"localdep", "file:./localdep"}}},
                  {"scripts", {{"start", "node server.js"}, {"postinstall", "node wait.js"}}}};
  std::string wait_js = "const fs = require('fs');\nconst gate = " + json(gate).dump() +
                        ";\nconst give_up = Date.now() + 120000;\n"
                        "const timer = setInterval(() => {\n"
                        "  if (fs.existsSync(gate)) clearInterval(timer);\n"
                        "  else if (Date.now() > give_up) process.exit(1);\n"
                        "}, 20);\n";
  return json::array(
      {{{"path", "package.json"}, {"content", package.dump()}},
       {{"path", "server.js"}, {"content", nodeApp("gated")}},
       {{"path", "wait.js"}, {"content", wait_js}},
       {{"path", "localdep/package.json"},
        {"content", R"({"name": "localdep", "version": "1.0.0", "main": "index.js"})"}},
       {{"path", "localdep/index.js"}, {"content", "module.exports = 42;\n"}}});
}

// Opens the gate however the test ends, so that no build (and no berthd stop) hangs on it.
struct Gate {
  std::string path;
  void open() const { std::ofstream(path) << "go\n"; }
  ~Gate() { open(); }
};

class ApiReleasesService : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    options.extra_yaml = "projects:\n  creation_burst: 100\n";
    startServer(options, "relsvc");
    scratch = makeTempDir("berth-releases-service");
  }
  static void TearDownTestSuite() {
    OwnerSuite::TearDownTestSuite();
    removeTree(scratch);
  }
  // A new project; its name and id.
  static std::pair<std::string, std::string> project(const std::string& label) {
    mustCreate(api(), label);
    const std::string name = projectName(label, owner->slug);
    return {name, projectId(*server, name)};
  }
  static HttpResult call(const std::string& method, const json& request, long timeout_ms = 30000) {
    return callService(*server, kService, method, request, timeout_ms);
  }
  static json mustCall(const std::string& method, const json& request) {
    HttpResult r = call(method, request, 120000);
    if (r.status != 200)
      throw std::runtime_error(method + ": " + std::to_string(r.status) + " " + r.body + r.error);
    return r.json();
  }
  // create then wait: the release once built.
  static json built(const std::string& id, const json& create) {
    json request = create;
    request["project_id"] = id;
    json made = mustCall("create", request);
    return mustCall("wait",
                    {{"project_id", id}, {"release_id", made["id"]}, {"timeout_seconds", 120}});
  }
  static json route(const std::string& name, const std::string& release_id) {
    auto r = api().get("/projects/" + name + "/deploys/" + release_id);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
  }
  static void expectRefused(const std::string& method, const json& request, long status,
                            const std::string& error) {
    HttpResult r = call(method, request);
    EXPECT_EQ(r.status, status) << request.dump() << " -> " << r.body;
    EXPECT_EQ(errorText(r), error) << request.dump();
  }

  static inline std::string scratch;
};

TEST_F(ApiReleasesService, AReleaseFromFilesIsBuiltLiveAndServedAndAnswersAsTheRoutes) {
  std::string name, id;
  std::tie(name, id) = project("files");
  json made = mustCall(
      "create", {{"project_id", id},
                 {"files",
                  {{{"path", "index.html"}, {"content", "<h1>made by a service</h1>"}},
                   {{"path", "docs/a.txt"}, {"content", "a"}},
                   {{"path", "tools/run.sh"}, {"content", "#!/bin/sh\n"}, {"executable", true}}}}});
  EXPECT_EQ(made["status"], "building");
  EXPECT_EQ(made["project"], name);
  const std::string release_id = made["id"];

  json done = mustCall("wait", {{"project_id", id}, {"release_id", release_id}});
  EXPECT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done["files"], 3);
  EXPECT_EQ(done["runtime"], "Static");
  // get and wait answer what GET /projects/{name}/deploys/{id} answers, build_log included.
  EXPECT_EQ(done, route(name, release_id));
  EXPECT_EQ(mustCall("get", {{"project_id", id}, {"release_id", release_id}}),
            route(name, release_id));
  // The create answer is the route's Release (no build_log), as listed.
  auto listed = api().get("/projects/" + name + "/deploys").json()["deploys"][0];
  EXPECT_EQ(listed["id"], release_id);
  json made_keys, listed_keys;
  for (const auto& [key, value] : made.items()) made_keys.push_back(key);
  for (const auto& [key, value] : listed.items()) listed_keys.push_back(key);
  EXPECT_EQ(made_keys, listed_keys);

  EXPECT_EQ(api().get("/projects/" + name).json()["live"]["id"], release_id);
  HttpResult page;
  EXPECT_TRUE(eventually([&] {
    page = onProjectHost(*server, name, "/");
    return page.status == 200;
  })) << page.status
      << " " << page.body;
  EXPECT_EQ(page.body, "<h1>made by a service</h1>");
  EXPECT_EQ(onProjectHost(*server, name, "/docs/a.txt").body, "a");
  // executable: 0755, else 0644 (the unpacker keeps one execute bit as 0755).
  const std::string dir = server->dataDir() + "/releases/" + id + "/" + release_id;
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/tools/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755);
  ASSERT_EQ(::stat((dir + "/docs/a.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644);
}

TEST_F(ApiReleasesService, AReleaseFromAFolderTakesTheRequestsFilesOverTheFolders) {
  std::string name, id;
  std::tie(name, id) = project("folder");
  const std::string folder = scratch + "/site";
  fs::create_directories(folder + "/sub/deeper");
  fs::create_directories(folder + "/empty");
  std::ofstream(folder + "/index.html") << "folder index";
  std::ofstream(folder + "/sub/page.html") << "folder page";
  std::ofstream(folder + "/sub/deeper/x.txt") << "deep";
  json done = built(id, {{"folder", folder},
                         {"files", {{{"path", "index.html"}, {"content", "request index"}}}}});
  ASSERT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done["files"], 3);
  EXPECT_TRUE(
      eventually([&] { return onProjectHost(*server, name, "/").body == "request index"; }));
  EXPECT_EQ(onProjectHost(*server, name, "/sub/page.html").body, "folder page");
  EXPECT_EQ(onProjectHost(*server, name, "/sub/deeper/x.txt").body, "deep");

  // A link anywhere in the folder is refused, and nothing is recorded.
  fs::create_symlink("/etc/passwd", folder + "/sub/passwd");
  expectRefused("create", {{"project_id", id}, {"folder", folder}}, 400,
                "folder " + folder + " holds sub/passwd, a link, which a release cannot hold");
  fs::remove(folder + "/sub/passwd");
  fs::create_directory_symlink("/etc", folder + "/etc");
  expectRefused("create", {{"project_id", id}, {"folder", folder}}, 400,
                "folder " + folder + " holds etc, a link, which a release cannot hold");
  EXPECT_EQ(api().get("/projects/" + name + "/deploys").json()["deploys"].size(), 1u);
  // Nothing of ours is left in the edge's body folder.
  for (const auto& entry : fs::directory_iterator(server->dataDir() + "/edge/client_body"))
    EXPECT_EQ(entry.path().filename().string().find(".berth-release-"), std::string::npos)
        << entry.path();

  expectRefused("create", {{"project_id", id}, {"folder", scratch + "/missing"}}, 400,
                "folder " + scratch + "/missing is not a folder");
  expectRefused("create", {{"project_id", id}, {"folder", folder + "/index.html"}}, 400,
                "folder " + folder + "/index.html is not a folder");
}

TEST_F(ApiReleasesService, CmdIsTheStartCommandWithTheHeadersRule) {
  std::string name, id;
  std::tie(name, id) = project("cmd");
  json done =
      built(id, {{"cmd", "node app.js"},
                 {"files", {{{"path", "app.js"}, {"content", nodeApp("started by cmd")}}}}});
  ASSERT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done["cmd"], "node app.js");
  EXPECT_EQ(done["runtime"], "Node");
  HttpResult answer;
  EXPECT_TRUE(eventually(
      [&] {
        answer = onProjectHost(*server, name, "/");
        return answer.body == "started by cmd";
      },
      std::chrono::seconds(60)))
      << answer.status << " " << answer.body;

  // The same rule and words as the x-berth-cmd header of an upload.
  const std::string bad = "node app.js | tee out.log";
  auto upload = api().raw("POST", "/projects/" + name + "/deploys", "not even gzip",
                          {"Content-Type: application/gzip", "x-berth-cmd: " + bad});
  ASSERT_EQ(upload.status, 400) << upload.body;
  const std::string rule = errorText(upload).substr(std::string("x-berth-cmd: ").size());
  expectRefused("create",
                {{"project_id", id}, {"cmd", bad}, {"files", {{{"path", "a"}, {"content", ""}}}}},
                400, "cmd: " + rule);
  // Blank counts as none: the project's own detection (a static site here).
  json blank = built(id, {{"cmd", "  "}, {"files", {{{"path", "index.html"}, {"content", "x"}}}}});
  EXPECT_EQ(blank["status"], "live") << blank.dump();
  EXPECT_EQ(blank["cmd"], "");
}

TEST_F(ApiReleasesService, CreateRefusesWhatTheRouteWouldAndBadRequests) {
  std::string name, id;
  std::tie(name, id) = project("refuse");
  const json one = {{{"path", "index.html"}, {"content", "x"}}};
  expectRefused("create", {{"project_id", "00000000-0000-0000-0000-000000000000"}, {"files", one}},
                404, "no project called 00000000-0000-0000-0000-000000000000");
  expectRefused("create", {{"files", one}}, 400, "project_id is required and must be a string");
  expectRefused("create", {{"project_id", id}}, 400, "a release needs files or a folder");
  expectRefused("create", {{"project_id", id}, {"files", json::array()}}, 400,
                "a release needs files or a folder");
  expectRefused("create", {{"project_id", id}, {"files", "index.html"}}, 400,
                "files must be an array of {path, content, executable?}");
  expectRefused("create", {{"project_id", id}, {"files", {"index.html"}}}, 400,
                "files must be an array of {path, content, executable?}");
  expectRefused("create", {{"project_id", id}, {"files", {{{"content", "x"}}}}}, 400,
                "files[0].path is required and must be a string");
  expectRefused("create",
                {{"project_id", id}, {"files", {one[0], {{"path", "b"}, {"content", 3}}}}}, 400,
                "files[1].content is required and must be a string");
  expectRefused(
      "create",
      {{"project_id", id}, {"files", {{{"path", "b"}, {"content", ""}, {"executable", "yes"}}}}},
      400, "files[0].executable must be a boolean");
  const std::vector<std::pair<std::string, std::string>> bad_paths = {
      {"", "must not be empty"},
      {"/etc/passwd", "must be relative to the release's root, not start with '/'"},
      {"../outside", "must not hold \".\" or \"..\" parts"},
      {"a/../../b", "must not hold \".\" or \"..\" parts"},
      {"./a", "must not hold \".\" or \"..\" parts"},
      {"a//b", "must not hold empty parts (\"//\" or a trailing \"/\")"},
      {"dir/", "must not hold empty parts (\"//\" or a trailing \"/\")"},
      {"a\nb", "must not hold control characters"},
      {std::string(1025, 'a'), "is longer than 1024 bytes"},
  };
  for (const auto& [path, problem] : bad_paths)
    expectRefused("create",
                  {{"project_id", id}, {"files", {one[0], {{"path", path}, {"content", ""}}}}}, 400,
                  "files[1].path " + problem);
  expectRefused("create", {{"project_id", id}, {"folder", "relative/site"}}, 400,
                "folder must be an absolute path");
  expectRefused("create", {{"project_id", id}, {"folder", 7}}, 400, "folder must be a string");
  expectRefused("create", {{"project_id", id}, {"files", one}, {"cmd", 7}}, 400,
                "cmd must be a string");
  // None of these recorded anything.
  EXPECT_EQ(api().get("/projects/" + name + "/deploys").json()["deploys"].size(), 0u);

  // A release whose files the build refuses fails as an upload would, with its error.
  json failed = built(id, {{"files", {{{"path", "package.json"}, {"content", "{not json"}}}}});
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], "package.json is not valid JSON");
  expectRefused(
      "promote", {{"project_id", id}, {"release_id", failed["id"]}}, 410,
      "release " + failed["id"].get<std::string>() + " failed to build, so it cannot be made live");
}

TEST_F(ApiReleasesService, WaitGetAndPromoteWhileOneBuildsAndAfter) {
  std::string name, id;
  std::tie(name, id) = project("waits");
  json first = built(id, {{"files", {{{"path", "index.html"}, {"content", "first"}}}}});
  ASSERT_EQ(first["status"], "live");
  json second = built(id, {{"files", {{{"path", "index.html"}, {"content", "second"}}}}});
  ASSERT_EQ(second["status"], "live");

  Gate gate{server->dataDir() + "/runtime/homes/" + id + "/open-gate"};
  json gated = mustCall("create", {{"project_id", id}, {"files", gatedFiles(gate.path)}});
  const std::string gated_id = gated["id"];
  // While it builds: 409 for another release, from the service and from the route alike.
  expectRefused("create", {{"project_id", id}, {"files", {{{"path", "a"}, {"content", ""}}}}}, 409,
                "a release of " + name + " is already building; upload again when it is done");
  expectRefused("promote", {{"project_id", id}, {"release_id", first["id"]}}, 409,
                "a release is building; promote again when it is done");
  // A wait that times out answers the release still building, after its timeout.
  const auto began = std::chrono::steady_clock::now();
  json still =
      mustCall("wait", {{"project_id", id}, {"release_id", gated_id}, {"timeout_seconds", 1}});
  const auto took = std::chrono::steady_clock::now() - began;
  EXPECT_EQ(still["status"], "building");
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::seconds(10));

  // A wait in progress answers soon after the build ends.
  auto waiting = std::async(std::launch::async, [&] {
    return mustCall("wait",
                    {{"project_id", id}, {"release_id", gated_id}, {"timeout_seconds", 600}});
  });
  gate.open();
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(120)), std::future_status::ready);
  json done = waiting.get();
  EXPECT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done, route(name, gated_id));

  // promote answers as the route does, and makes the release live again.
  json promoted = mustCall("promote", {{"project_id", id}, {"release_id", second["id"]}});
  EXPECT_EQ(promoted["status"], "live");
  EXPECT_EQ(promoted["id"], second["id"]);
  auto again =
      api().post("/projects/" + name + "/deploys/" + second["id"].get<std::string>() + "/promote",
                 json::object());
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.json(), promoted);
  EXPECT_EQ(api().get("/projects/" + name).json()["live"]["id"], second["id"]);
  EXPECT_TRUE(eventually([&] { return onProjectHost(*server, name, "/").body == "second"; }));

  const std::string unknown = "11111111-2222-3333-4444-555555555555";
  for (const char* method : {"get", "wait", "promote"})
    expectRefused(method, {{"project_id", id}, {"release_id", unknown}}, 404,
                  "no release called " + unknown);
  expectRefused("get", {{"project_id", unknown}, {"release_id", gated_id}}, 404,
                "no project called " + unknown);
  expectRefused("get", {{"project_id", id}}, 400, "release_id is required and must be a string");
  for (json timeout : {json(0), json(1801), json("5"), json(1.5)})
    expectRefused("wait",
                  {{"project_id", id}, {"release_id", gated_id}, {"timeout_seconds", timeout}}, 400,
                  "timeout_seconds must be a whole number from 1 to 1800");
}

// Its own berthd: the wait in progress must end when berthd stops, not at its timeout.
TEST(ApiReleasesServiceStop, AWaitEndsWhenBerthdStops) {
  BerthdOptions options;
  options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
  options.set = {"server.drain_seconds=1"};
  BerthdProcess server(options);
  server.start();
  Account owner = makeAccount(server, "relstop");
  mustCreate(server.api(owner.token), "stopping");
  const std::string id = projectId(server, projectName("stopping", owner.slug));
  Gate gate{server.dataDir() + "/runtime/homes/" + id + "/open-gate"};
  auto made = callService(server, kService, "create",
                          {{"project_id", id}, {"files", gatedFiles(gate.path)}});
  ASSERT_EQ(made.status, 200) << made.body;
  const std::string release_id = made.json()["id"];
  auto waiting = std::async(std::launch::async, [&] {
    return callService(server, kService, "wait",
                       {{"project_id", id}, {"release_id", release_id}, {"timeout_seconds", 600}},
                       700000);
  });
  // The wait has begun (and the job that watches waits has seen it) before berthd stops.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const auto began = std::chrono::steady_clock::now();
  server.terminate();
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(60)), std::future_status::ready)
      << "the wait outlived berthd's stop";
  HttpResult answer = waiting.get();
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(30));
  EXPECT_EQ(answer.status, 503) << answer.body << answer.error;
  EXPECT_EQ(errorText(answer), "berthd is stopping; release " + release_id + " is still building");
}

}  // namespace
