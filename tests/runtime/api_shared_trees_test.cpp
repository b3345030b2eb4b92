// ctest-label: api (starts a real berthd)
// runtime.shared_trees.v1 over the plugin ABI (the serviceprobe fixture calls it as an
// installer's context would): ensure answers `building` at once and get follows the build
// (inside bubblewrap, as nobody) to `ready`; the tree is berthd's with no write bits for
// others; a second ensure rebuilds nothing (the builds' HOME counts the runs); a failing
// command fails with its error and log, and ensure starts it again; every refusal; and across a
// restart of berthd: a ready tree stays ready, a build cut short by the stop leaves no tree,
// and what an earlier berthd left in .building is removed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "../projects/api_support.hpp"
#include "start_command.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class ApiSharedTrees : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    startServer(options());
    scratch = makeTempDir("berth-shared-trees");
    source = scratch + "/source";
    fs::create_directories(source + "/lib");
    std::ofstream(source + "/package.json") << R"({"name": "tool"})";
    std::ofstream(source + "/lib/tool.js") << "console.log('tool');\n";
  }
  static void TearDownTestSuite() {
    stopServer();
    removeTree(scratch);
  }
  void SetUp() override {
    if (!berth::runtime::toolOnPath("bwrap"))
      GTEST_SKIP() << "bubblewrap is not installed here (scripts/install-deps.sh installs it)";
  }
  static BerthdOptions options() {
    BerthdOptions o;
    o.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    return o;
  }
  static HttpResult call(const std::string& method, const json& request,
                         const BerthdProcess* on = nullptr) {
    return (on ? on : server.get())
        ->api()
        .post("/serviceprobe/runtime.shared_trees.v1/" + method, request);
  }
  static json ensure(const std::string& name, const std::vector<std::string>& command,
                     const BerthdProcess* on = nullptr) {
    auto r = call("ensure", {{"name", name}, {"source", source}, {"command", command}}, on);
    if (r.status != 200)
      throw std::runtime_error("ensure: " + std::to_string(r.status) + " " + r.body);
    return r.json();
  }
  static json get(const std::string& name, const BerthdProcess* on = nullptr) {
    auto r = call("get", {{"name", name}}, on);
    if (r.status != 200)
      throw std::runtime_error("get: " + std::to_string(r.status) + " " + r.body);
    return r.json();
  }
  // Polls get until the tree is no longer building.
  static json settled(const std::string& name, const BerthdProcess* on = nullptr) {
    json tree;
    if (!eventually(
            [&] {
              tree = get(name, on);
              return tree["state"] != "building";
            },
            std::chrono::seconds(60)))
      throw std::runtime_error("still building: " + tree.dump());
    return tree;
  }
  static std::string shared() { return server->dataDir() + "/shared"; }
  static std::string runs() { return readFile(shared() + "/.home/runs"); }

  static inline std::string scratch, source;
};

TEST_F(ApiSharedTrees, ATreeIsBuiltOnceAsNobodyAndSharedReadOnly) {
  const std::vector<std::string> command = {
      "/bin/sh", "-c",
      "echo tool-1 >> \"$HOME/runs\"; id -u > built-by; mkdir -p node_modules/.bin; "
      "echo made > node_modules/made.txt; ln -s ../made.txt node_modules/.bin/made; "
      "echo building; sleep 1; echo built"};
  json first = ensure("tool-1.0", command);
  EXPECT_EQ(first["state"], "building");
  EXPECT_EQ(first["name"], "tool-1.0");
  EXPECT_EQ(first["path"], shared() + "/tool-1.0");
  EXPECT_EQ(first["finished_at"], nullptr);
  EXPECT_EQ(first["error"], nullptr);
  // One build, however many ask.
  EXPECT_EQ(ensure("tool-1.0", command)["started_at"], first["started_at"]);
  // The log grows while it builds.
  json midway;
  EXPECT_TRUE(eventually([&] {
    midway = get("tool-1.0");
    return midway["log"] == "building\n";
  }));
  EXPECT_EQ(midway["state"], "building") << midway.dump();

  json done = settled("tool-1.0");
  ASSERT_EQ(done["state"], "ready") << done.dump();
  EXPECT_EQ(done["log"], "building\nbuilt\n");
  EXPECT_TRUE(done["finished_at"].is_number_integer());
  EXPECT_EQ(done["error"], nullptr);
  const std::string tree = shared() + "/tool-1.0";
  EXPECT_EQ(readFile(tree + "/package.json"), R"({"name": "tool"})");
  EXPECT_EQ(readFile(tree + "/node_modules/.bin/made"), "made\n");
  EXPECT_EQ(readFile(tree + "/built-by"), "65534\n");  // nobody, never root or a project
  for (const auto& entry : fs::recursive_directory_iterator(tree)) {
    struct stat st {};
    ASSERT_EQ(::lstat(entry.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, ::geteuid()) << entry.path();  // berthd's
    if (!S_ISLNK(st.st_mode)) {
      EXPECT_EQ(st.st_mode & 022, 0u) << entry.path();
    }
  }
  EXPECT_TRUE(fs::is_empty(shared() + "/.building"));
  const std::string log = server->output();
  EXPECT_NE(log.find("shared tree tool-1.0: build started (/bin/sh -c "), std::string::npos);
  EXPECT_NE(log.find("shared tree tool-1.0 is ready at " + tree + " (built in "),
            std::string::npos);

  // Ready: answered at once, nothing built again.
  EXPECT_EQ(ensure("tool-1.0", command)["state"], "ready");
  EXPECT_EQ(ensure("tool-1.0", {"false"})["state"], "ready");
  EXPECT_EQ(runs(), "tool-1\n");
}

TEST_F(ApiSharedTrees, AFailedBuildSaysWhyAndEnsureStartsItAgain) {
  // Fails until a mark in the builds' HOME (kept between builds) exists.
  const std::string script =
      "echo flaky >> \"$HOME/flaky-runs\"; if [ -e \"$HOME/fixed\" ]; then echo fine; else "
      "touch \"$HOME/fixed\"; echo oops; exit 3; fi";
  ensure("flaky", {"/bin/sh", "-c", script});
  json failed = settled("flaky");
  ASSERT_EQ(failed["state"], "failed");
  EXPECT_EQ(failed["error"], "the build step /bin/sh -c " + script + " exited with code 3");
  EXPECT_EQ(failed["log"], "oops\n");
  EXPECT_FALSE(fs::exists(shared() + "/flaky"));
  EXPECT_NE(server->output().find("shared tree flaky failed to build after "), std::string::npos);

  json again = ensure("flaky", {"/bin/sh", "-c", script});
  EXPECT_EQ(again["state"], "building");
  EXPECT_EQ(again["error"], nullptr);
  json done = settled("flaky");
  EXPECT_EQ(done["state"], "ready") << done.dump();
  EXPECT_EQ(done["log"], "fine\n");
  EXPECT_EQ(readFile(shared() + "/.home/flaky-runs"), "flaky\nflaky\n");
}

TEST_F(ApiSharedTrees, EveryRefusalSaysWhy) {
  auto expect = [&](const std::string& method, json request, int status, const std::string& error) {
    auto r = call(method, request);
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(errorText(r), error);
  };
  const std::string rule =
      "name must be 1 to 100 characters of a-z, 0-9, '.', '_' and '-', starting with a letter "
      "or digit";
  for (const char* bad : {"", "Tool", ".home", "../x", "a/b", "-x"})
    expect("ensure", {{"name", bad}, {"source", source}, {"command", {"true"}}}, 400, rule);
  expect("get", {{"name", ".building"}}, 400, rule);
  expect("get", {{"name", "nothing-here"}}, 404, "no shared tree called nothing-here");
  json good = {{"name", "refused"}, {"source", source}, {"command", {"true"}}};
  auto with = [&](const char* field, json value) {
    json j = good;
    j[field] = std::move(value);
    return j;
  };
  expect("ensure", with("source", "relative"), 400, "source must be an absolute path");
  expect("ensure", with("source", scratch + "/missing"), 400,
         "no folder at " + scratch + "/missing");
  expect("ensure", with("source", source + "/package.json"), 400,
         source + "/package.json is not a folder");
  fs::create_directories(scratch + "/linked");
  fs::create_symlink("/etc/passwd", scratch + "/linked/passwd");
  expect("ensure", with("source", scratch + "/linked"), 400,
         scratch +
             "/linked/passwd is a link; a shared tree's source may hold only files and "
             "folders");
  expect("ensure", with("command", json::array()), 400, "command must hold 1 to 64 arguments");
  expect("ensure", with("timeout_seconds", 59), 400,
         "timeout_seconds must be a whole number from 60 to 7200");
  expect("ensure", with("environment", {{"NOT-A-NAME", "x"}}), 400,
         "environment: NOT-A-NAME is not a variable name");
  expect("get", {{"name", "refused"}}, 404, "no shared tree called refused");
}

TEST_F(ApiSharedTrees, ARestartKeepsReadyTreesAndLeavesNoHalfOne) {
  // A berthd of its own, started twice on one data_dir.
  const std::string data = makeTempDir("berth-shared-trees-data");
  const std::string trees = data + "/shared";
  BerthdOptions o = options();
  o.data_dir = data;
  json kept;
  {
    BerthdProcess first(o);
    first.start();
    ensure("kept", {"/bin/sh", "-c", "echo kept"}, &first);
    kept = settled("kept", &first);
    ASSERT_EQ(kept["state"], "ready") << kept.dump();
    // A build still running when berthd stops is stopped, and nothing of it stays.
    ensure("cut-short", {"/bin/sh", "-c", "echo started; sleep 60"}, &first);
    ASSERT_TRUE(eventually([&] { return get("cut-short", &first)["log"] == "started\n"; }));
    stopCleanly(first);
    EXPECT_FALSE(fs::exists(trees + "/cut-short"));
    EXPECT_TRUE(fs::is_empty(trees + "/.building"));
  }
  // What a berthd killed mid-build would leave.
  fs::create_directories(trees + "/.building/crashed-0123abcd/node_modules");
  std::ofstream(trees + "/.building/crashed-0123abcd/node_modules/x") << "half";
  {
    BerthdProcess second(o);
    second.start();
    EXPECT_TRUE(fs::is_empty(trees + "/.building"));
    EXPECT_NE(second.output().find("removed a shared tree an earlier berthd did not finish "
                                   "building: " +
                                   trees + "/.building/crashed-0123abcd"),
              std::string::npos);
    json after = get("kept", &second);
    EXPECT_EQ(after["state"], "ready");
    EXPECT_EQ(after["started_at"], kept["started_at"]);
    EXPECT_EQ(after["finished_at"], kept["finished_at"]);
    EXPECT_EQ(after["log"], "kept\n");
    EXPECT_EQ(call("get", {{"name", "cut-short"}}, &second).status, 404);
    stopCleanly(second);
  }
  removeTree(data);
}

}  // namespace
