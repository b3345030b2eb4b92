// runtime.shared_trees.v1's logic: the contract's request rules and Tree round trip, the
// source check and copy (files and folders only, nothing followed), and SharedTrees outside the
// sandbox (tests/runtime/api_shared_trees_test runs builds in it): a build in the background
// whose log grows, a ready tree never rebuilt, concurrent ensures as one build, a failed one
// started again, a tree taken back and renamed whole, the record kept across instances, the
// leftovers swept, a stop cancelling a build and leaving nothing.
#include "shared_trees.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <berth/services/runtime_shared_trees.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using berth::runtime::copySource;
using berth::runtime::EnsureTree;
using berth::runtime::RunAs;
using berth::runtime::SharedTree;
using berth::runtime::SharedTrees;
using berth::runtime::SharedTreesSettings;
using berth::runtime::sourceProblem;
namespace contract = berth::runtime_shared_trees;
using nlohmann::json;

namespace {

std::string refusal(const json& request) {
  try {
    contract::parseEnsureRequest(request);
  } catch (const berth::Error& e) {
    return std::to_string(e.status()) + " " + e.message();
  }
  return "accepted";
}

const char* const kNameRule =
    "400 name must be 1 to 100 characters of a-z, 0-9, '.', '_' and '-', starting with a "
    "letter or digit";

TEST(RuntimeSharedTreesContract, ARequestIsCheckedWithClearTexts) {
  const json ok = {{"name", "n8n-1.64.0"}, {"source", "/srv/src"}, {"command", {"npm", "ci"}}};
  EXPECT_EQ(refusal(ok), "accepted");
  auto r = contract::parseEnsureRequest(ok);
  EXPECT_EQ(r.timeout_seconds, 3600);
  EXPECT_TRUE(r.environment.empty());
  auto with = [&](const char* field, json value) {
    json j = ok;
    j[field] = std::move(value);
    return refusal(j);
  };
  for (const char* bad : {"", "N8n", ".hidden", "-x", "_x", "a/b", "a b", "é"})
    EXPECT_EQ(with("name", bad), kNameRule) << bad;
  EXPECT_EQ(with("name", std::string(101, 'a')), kNameRule);
  EXPECT_EQ(with("name", std::string(100, 'a')), "accepted");
  EXPECT_EQ(with("name", "0.a_b-c"), "accepted");
  EXPECT_EQ(with("name", 3), "400 name is required and must be a string");
  EXPECT_EQ(with("source", "relative/dir"), "400 source must be an absolute path");
  EXPECT_EQ(with("source", ""), "400 source must be an absolute path");
  EXPECT_EQ(with("command", json::array()), "400 command must hold 1 to 64 arguments");
  EXPECT_EQ(with("command", "npm ci"), "400 command is required and must be an array of strings");
  EXPECT_EQ(with("command", {"", "ci"}), "400 command[0], the program, must not be empty");
  EXPECT_EQ(with("command", {"npm", std::string("a\0b", 3)}), "400 command[1] holds a NUL byte");
  EXPECT_EQ(with("environment", json::array()), "400 environment must be an object of strings");
  EXPECT_EQ(with("environment", {{"A", 1}}), "400 environment must be an object of strings");
  EXPECT_EQ(with("environment", {{"1A", "x"}}), "400 environment: 1A is not a variable name");
  EXPECT_EQ(with("environment", {{"A-B", "x"}}), "400 environment: A-B is not a variable name");
  EXPECT_EQ(with("environment", {{"NODE_ENV", "production"}}), "accepted");
  for (json bad : {json(59), json(7201), json("600")})
    EXPECT_EQ(with("timeout_seconds", bad),
              "400 timeout_seconds must be a whole number from 60 to 7200");
  EXPECT_EQ(with("timeout_seconds", 60), "accepted");

  contract::EnsureRequest full{"t", "/s", {"a"}, {{"X", "1"}}, 90};
  auto back = contract::parseEnsureRequest(contract::toJson(full));
  EXPECT_EQ(back.environment, full.environment);
  EXPECT_EQ(back.timeout_seconds, 90);

  SharedTree building{"t", "/d/t", "building", 5, std::nullopt, std::nullopt, "..."};
  EXPECT_EQ(contract::parseTree(contract::toJson(building)), building);
  SharedTree failed{"t", "/d/t", "failed", 5, 9, "it broke", ""};
  EXPECT_EQ(contract::parseTree(contract::toJson(failed)), failed);
  json odd = contract::toJson(failed);
  odd["state"] = "done";
  EXPECT_THROW(contract::parseTree(odd), berth::Error);
}

class SharedTreesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-shared-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    fs::permissions(base_, fs::perms(0755));
    source_ = base_ / "source";
    fs::create_directories(source_ / "lib" / "deep");
    std::ofstream(source_ / "package.json") << "{}";
    std::ofstream(source_ / "lib" / "deep" / "tool.sh") << "#!/bin/sh\necho tool\n";
    fs::permissions(source_ / "lib" / "deep" / "tool.sh", fs::perms(0700));
    dir_ = base_ / "shared";
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms(0755));
  }
  void TearDown() override {
    trees_.reset();
    fs::remove_all(base_);
  }

  SharedTrees& trees() {
    if (!trees_) {
      SharedTreesSettings settings;
      settings.dir = dir_.string();
      settings.build_as = RunAs{65534, 65534};
      settings.info = [this](const std::string& line) {
        std::lock_guard lock(lines_mutex_);
        lines_.push_back(line);
      };
      trees_ = std::make_unique<SharedTrees>(std::move(settings));
    }
    return *trees_;
  }
  EnsureTree request(const std::string& name, std::vector<std::string> command) const {
    EnsureTree r;
    r.name = name;
    r.source = source_.string();
    r.command = std::move(command);
    r.timeout_seconds = 60;
    return r;
  }
  SharedTree settled(const std::string& name) {
    SharedTree tree;
    for (int i = 0; i < 600; ++i) {
      tree = *trees().get(name);
      if (tree.state != "building") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return tree;
  }
  std::string counter() const {
    std::ifstream in(dir_ / ".home" / "runs");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Appends to a counter in the builds' HOME, then writes out.txt and lists what it got.
  static std::vector<std::string> counting(const std::string& extra = "") {
    return {"/bin/sh", "-c",
            "echo run >> \"$HOME/runs\"; id -u > built-by; echo hello > out.txt; "
            "echo building; " +
                extra};
  }

  fs::path base_, source_, dir_;
  std::unique_ptr<SharedTrees> trees_;
  std::mutex lines_mutex_;
  std::vector<std::string> lines_;
};

TEST_F(SharedTreesTest, TheSourceMayHoldOnlyFilesAndFolders) {
  EXPECT_EQ(sourceProblem(source_.string()), std::nullopt);
  EXPECT_EQ(sourceProblem((base_ / "missing").string()),
            "no folder at " + (base_ / "missing").string());
  EXPECT_EQ(sourceProblem((source_ / "package.json").string()),
            (source_ / "package.json").string() + " is not a folder");
  fs::create_symlink("/etc", source_ / "lib" / "etc");
  EXPECT_EQ(sourceProblem(source_.string()),
            (source_ / "lib" / "etc").string() +
                " is a link; a shared tree's source may hold only files and folders");
  fs::remove(source_ / "lib" / "etc");
  ASSERT_EQ(::mkfifo((source_ / "pipe").c_str(), 0644), 0);
  EXPECT_EQ(sourceProblem(source_.string()),
            (source_ / "pipe").string() +
                " is a device file, fifo or socket; a shared tree's source may hold only files "
                "and folders");
  fs::remove(source_ / "pipe");
  fs::create_directory_symlink(source_, base_ / "alias");
  EXPECT_EQ(sourceProblem((base_ / "alias").string()),
            (base_ / "alias").string() +
                " is a link; a shared tree's source may hold only files and folders");
  // A refused source is the caller's 400, before anything starts.
  fs::create_symlink("/etc/passwd", source_ / "passwd");
  try {
    trees().ensure(request("linked", {"true"}));
    FAIL() << "a source with a link was accepted";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 400);
  }
  EXPECT_FALSE(trees().get("linked"));
}

TEST_F(SharedTreesTest, ACopyKeepsFoldersAndExecutableBits) {
  fs::create_directories(base_ / "copy");
  copySource(source_.string(), (base_ / "copy").string());
  EXPECT_TRUE(fs::is_regular_file(base_ / "copy" / "package.json"));
  struct stat st {};
  ASSERT_EQ(::stat((base_ / "copy" / "lib" / "deep" / "tool.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((base_ / "copy" / "package.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(SharedTreesTest, ATreeIsBuiltOnceInTheBackgroundAndTakenBack) {
  // Waits for a file berthd's side makes, so the test sees it building.
  const fs::path gate = base_ / "gate";
  auto first = trees().ensure(
      request("tool-1", counting("while [ ! -e " + gate.string() + " ]; do sleep 0.05; done")));
  EXPECT_EQ(first.state, "building");
  EXPECT_EQ(first.path, (dir_ / "tool-1").string());
  EXPECT_FALSE(first.finished_at);
  // Concurrent ensures are the same build.
  auto again = trees().ensure(request("tool-1", {"false"}));
  EXPECT_EQ(again.state, "building");
  EXPECT_EQ(again.started_at, first.started_at);
  // The log grows while it builds.
  SharedTree now;
  for (int i = 0; i < 200; ++i) {
    now = *trees().get("tool-1");
    if (now.log == "building\n") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(now.log, "building\n");
  EXPECT_EQ(now.state, "building");
  EXPECT_FALSE(fs::exists(dir_ / "tool-1")) << "the tree appeared before it was built";
  std::ofstream(gate) << "go";
  fs::permissions(base_, fs::perms(0755));

  SharedTree done = settled("tool-1");
  ASSERT_EQ(done.state, "ready") << done.error.value_or("") << done.log;
  EXPECT_EQ(done.error, std::nullopt);
  ASSERT_TRUE(done.finished_at);
  EXPECT_GE(*done.finished_at, done.started_at);
  EXPECT_EQ(counter(), "run\n");
  // The tree: the source and what the command made, berthd's, no write bits for others.
  const fs::path tree = dir_ / "tool-1";
  EXPECT_TRUE(fs::is_regular_file(tree / "package.json"));
  EXPECT_TRUE(fs::is_regular_file(tree / "lib" / "deep" / "tool.sh"));
  for (const auto& entry : fs::recursive_directory_iterator(tree)) {
    struct stat st {};
    ASSERT_EQ(::lstat(entry.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, ::geteuid()) << entry.path();
    EXPECT_EQ(st.st_mode & 022, 0u) << entry.path();
  }
  std::ifstream built_by(tree / "built-by");
  std::string uid;
  built_by >> uid;
  EXPECT_EQ(uid, ::geteuid() == 0 ? "65534" : std::to_string(::geteuid()));
  EXPECT_TRUE(fs::is_empty(dir_ / ".building"));

  // Ready: answered at once, nothing rebuilt, whatever the request says.
  auto ready = trees().ensure(request("tool-1", {"false"}));
  EXPECT_EQ(ready.state, "ready");
  EXPECT_EQ(counter(), "run\n");
  // Another instance (berthd started again) reads the tree and its record from the disk.
  trees_.reset();
  auto kept = trees().get("tool-1");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->state, "ready");
  EXPECT_EQ(kept->started_at, done.started_at);
  EXPECT_EQ(kept->finished_at, done.finished_at);
  EXPECT_EQ(kept->log, "building\n");
  EXPECT_EQ(trees().ensure(request("tool-1", {"false"})).state, "ready");
  EXPECT_EQ(counter(), "run\n");
  EXPECT_FALSE(trees().get("tool-2"));
  std::lock_guard lock(lines_mutex_);
  ASSERT_GE(lines_.size(), 2u);
  EXPECT_TRUE(lines_[0].starts_with("shared tree tool-1: build started (/bin/sh -c ")) << lines_[0];
  EXPECT_TRUE(
      lines_[1].starts_with("shared tree tool-1 is ready at " + tree.string() + " (built in "))
      << lines_[1];
}

TEST_F(SharedTreesTest, AFailedBuildSaysWhyAndIsStartedAgain) {
  // Fails the first time, succeeds once $HOME/fixed exists (the home is kept between builds).
  const std::vector<std::string> flaky = {
      "/bin/sh", "-c",
      "echo run >> \"$HOME/runs\"; if [ -e \"$HOME/fixed\" ]; then echo ok; else "
      "touch \"$HOME/fixed\"; echo oops; exit 3; fi"};
  trees().ensure(request("flaky", flaky));
  SharedTree failed = settled("flaky");
  ASSERT_EQ(failed.state, "failed");
  EXPECT_EQ(failed.error, "the build step /bin/sh -c " + flaky[2] + " exited with code 3");
  EXPECT_EQ(failed.log, "oops\n");
  EXPECT_FALSE(fs::exists(dir_ / "flaky"));
  EXPECT_TRUE(fs::is_empty(dir_ / ".building"));
  EXPECT_EQ(trees().get("flaky")->state, "failed");

  auto restarted = trees().ensure(request("flaky", flaky));
  EXPECT_EQ(restarted.state, "building");
  EXPECT_EQ(restarted.error, std::nullopt);
  SharedTree done = settled("flaky");
  EXPECT_EQ(done.state, "ready") << done.error.value_or("");
  EXPECT_EQ(done.log, "ok\n");
  EXPECT_EQ(counter(), "run\nrun\n");
}

TEST_F(SharedTreesTest, LeftoversAreSweptAndAStopLeavesNoHalfTree) {
  fs::create_directories(dir_ / ".building" / "old-1234" / "node_modules");
  trees().sweep();
  EXPECT_TRUE(fs::is_empty(dir_ / ".building"));

  trees().ensure(request("slow", {"/bin/sh", "-c", "echo started; sleep 30"}));
  for (int i = 0; i < 200 && trees().get("slow")->log.empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(trees().building());
  const auto began = std::chrono::steady_clock::now();
  trees().stop();
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
  SharedTree stopped = *trees().get("slow");
  EXPECT_EQ(stopped.state, "failed");
  EXPECT_EQ(stopped.error,
            "the build step /bin/sh -c echo started; sleep 30 was stopped because berthd is "
            "stopping");
  EXPECT_FALSE(fs::exists(dir_ / "slow"));
  EXPECT_TRUE(fs::is_empty(dir_ / ".building"));
  try {
    trees().ensure(request("slow", {"true"}));
    FAIL() << "ensure accepted while stopping";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 503);
    EXPECT_EQ(e.message(), "berthd is stopping; ensure the tree again once it has started");
  }
}

}  // namespace
