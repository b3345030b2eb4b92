#include "util/process.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "support/berthd_process.hpp"
#include "support/eventually.hpp"

using namespace berth::core;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/berth-process.XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

using berth::testing::readFile;

// True once pid is gone or a zombie nobody reaps (PID 1 in a container may not reap).
bool processGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

// Polled every 20 ms for 10 s at most.
bool eventually(const std::function<bool()>& condition) {
  return berth::testing::eventually(condition, 10s, 20ms);
}

}  // namespace

TEST(Process, MissingBinaryThrowsFromSpawn) {
  try {
    spawn({"/nonexistent/berth-no-such-binary"});
    FAIL() << "spawn did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot start /nonexistent/berth-no-such-binary: No such file or directory");
  }
  EXPECT_THROW(spawn({"berth-no-such-binary-on-path"}), std::runtime_error);
}

TEST(Process, ExecErrorOfTheChildIsReported) {
  TempDir dir;
  std::string script = dir.path() + "/not-executable";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
  try {
    spawn({script});
    FAIL() << "spawn did not throw";  // even root may not exec a file without any x bit
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Permission denied"), std::string::npos) << e.what();
  }
}

TEST(Process, ExitCodesAndSignalsAreReported) {
  auto ok = spawn({"true"}).waitForever();
  EXPECT_TRUE(ok.ok());
  auto failed = spawn({"sh", "-c", "exit 7"}).waitForever();
  EXPECT_TRUE(failed.exited);
  EXPECT_EQ(failed.code, 7);
  EXPECT_FALSE(failed.ok());
  auto killed = spawn({"sh", "-c", "kill -9 $$"}).waitForever();
  EXPECT_FALSE(killed.exited);
  EXPECT_EQ(killed.signal, SIGKILL);
}

TEST(Process, RunCommandCapturesStdoutAndStderr) {
  auto result = runCommand({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(result.status.code, 3);
  EXPECT_NE(result.output.find("out\n"), std::string::npos);
  EXPECT_NE(result.output.find("err\n"), std::string::npos);
}

TEST(Process, RunCommandKillsOnTimeout) {
  auto result = runCommand({"sleep", "30"}, {}, 200ms);
  EXPECT_FALSE(result.status.exited);
  EXPECT_EQ(result.status.signal, SIGKILL);
}

TEST(Process, EnvironmentIsMergedAndCwdApplied) {
  TempDir dir;
  ::setenv("BERTH_PROCESS_TEST_INHERITED", "kept", 1);
  ::setenv("BERTH_PROCESS_TEST_REPLACED", "old", 1);
  SpawnOptions options;
  options.cwd = dir.path();
  options.env = {{"BERTH_PROCESS_TEST_REPLACED", "new"}, {"BERTH_PROCESS_TEST_ADDED", "added"}};
  auto result = runCommand({"sh", "-c",
                            "echo $BERTH_PROCESS_TEST_INHERITED $BERTH_PROCESS_TEST_REPLACED "
                            "$BERTH_PROCESS_TEST_ADDED; pwd"},
                           options);
  ASSERT_TRUE(result.status.ok()) << result.output;
  EXPECT_EQ(result.output, "kept new added\n" + fs::canonical(dir.path()).string() + "\n");
}

TEST(Process, OutputFileIsAppended) {
  TempDir dir;
  SpawnOptions options;
  options.output_file = dir.path() + "/out.log";
  spawn({"sh", "-c", "echo one; echo two >&2"}, options).waitForever();
  spawn({"sh", "-c", "echo three"}, options).waitForever();
  EXPECT_EQ(readFile(options.output_file), "one\ntwo\nthree\n");
}

TEST(Process, StdinIsEmpty) {
  auto result = runCommand({"cat"}, {}, 5s);
  EXPECT_TRUE(result.status.ok());
  EXPECT_EQ(result.output, "");
}

TEST(Process, WaitTimesOutWhileRunning) {
  Child child = spawn({"sleep", "30"});
  EXPECT_TRUE(child.running());
  EXPECT_FALSE(child.wait(50ms).has_value());
  auto status = child.stop(5s);
  EXPECT_EQ(status.signal, SIGTERM);
  EXPECT_FALSE(child.running());
  ASSERT_TRUE(child.exitStatus().has_value());
}

TEST(Process, StopEscalatesToSigkill) {
  TempDir dir;
  SpawnOptions options;
  options.output_file = dir.path() + "/ready";
  Child child =
      spawn({"sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.05; done"}, options);
  ASSERT_TRUE(eventually([&] { return readFile(options.output_file) == "ready\n"; }));
  auto status = child.stop(200ms);
  EXPECT_EQ(status.signal, SIGKILL);
}

TEST(Process, ChildStartsWithSignalsUnblocked) {
  // berthd blocks SIGTERM for sigwait; its children must still die of SIGTERM.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  auto previous_pipe = ::signal(SIGPIPE, SIG_IGN);
  Child child = spawn({"sleep", "30"});
  auto masks = runCommand({"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"});
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::signal(SIGPIPE, previous_pipe);

  auto status = child.stop(5s);
  EXPECT_EQ(status.signal, SIGTERM);
  EXPECT_NE(masks.output.find("SigBlk:\t0000000000000000"), std::string::npos) << masks.output;
  EXPECT_NE(masks.output.find("SigIgn:\t0000000000000000"), std::string::npos) << masks.output;
}

TEST(Process, DestructorKillsTheWholeProcessGroup) {
  TempDir dir;
  SpawnOptions options;
  options.output_file = dir.path() + "/pid";
  pid_t grandchild = 0;
  {
    Child child = spawn({"sh", "-c", "sleep 60 & echo $!; wait"}, options);
    ASSERT_TRUE(eventually([&] { return readFile(options.output_file).ends_with("\n"); }));
    grandchild = std::stoi(readFile(options.output_file));
    ASSERT_FALSE(processGone(grandchild));
  }
  EXPECT_TRUE(eventually([&] { return processGone(grandchild); }));
}

TEST(Process, MovedChildIsOwnedOnce) {
  Child first = spawn({"sleep", "30"});
  pid_t pid = first.pid();
  Child second = std::move(first);
  EXPECT_EQ(first.pid(), -1);
  EXPECT_EQ(second.pid(), pid);
  EXPECT_TRUE(second.running());
  second = Child();  // kills and reaps the old one
  EXPECT_TRUE(processGone(pid));
}

TEST(Process, RunAsAnotherUserWhenRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  auto nobody = lookupUser("nobody");
  ASSERT_TRUE(nobody.has_value());
  SpawnOptions options;
  options.run_as = "nobody";
  auto result = runCommand({"sh", "-c", "id -u; id -g"}, options);
  ASSERT_TRUE(result.status.ok()) << result.output;
  EXPECT_EQ(result.output, std::to_string(nobody->uid) + "\n" + std::to_string(nobody->gid) + "\n");

  options.run_as = "berth-no-such-user";
  EXPECT_THROW(spawn({"true"}, options), std::runtime_error);
}

TEST(Process, LookupUser) {
  auto root = lookupUser("root");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->uid, 0u);
  EXPECT_EQ(root->gid, 0u);
  EXPECT_EQ(root->home, "/root");
  EXPECT_FALSE(lookupUser("berth-no-such-user").has_value());
}

TEST(Process, FreeLoopbackPortCanBeBound) {
  uint16_t port = freeLoopbackPort();
  ASSERT_NE(port, 0);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::close(fd);
}
