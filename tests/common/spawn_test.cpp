// ctest-label: unit
// berth::common::spawnProcess: what the child gets (argv, environment, folder, descriptors,
// group, signals, credentials) and how it ended.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "berth/common/fd.hpp"
#include "berth/common/spawn.hpp"

namespace berth::common {
namespace {

struct Ran {
  ExitStatus status;
  std::string output;
};

// Runs a shell script with stdout and stderr into one pipe; returns what it wrote and how it
// ended.
Ran runShell(const std::string& script, SpawnRequest request = {}) {
  auto pipe = makePipe();
  EXPECT_TRUE(pipe.has_value());
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", script};
  request.stdout_fd = pipe->write.get();
  request.stderr_fd = pipe->write.get();
  const pid_t pid = spawnProcess(request);
  pipe->write.reset();
  Ran ran;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(pipe->read.get(), buffer, sizeof buffer)) > 0)
    ran.output.append(buffer, static_cast<size_t>(got));
  ran.status = reap(pid);
  return ran;
}

TEST(CommonSpawn, OutputAndExitStatus) {
  const Ran ran = runShell("printf out; printf err >&2; exit 3");
  EXPECT_EQ(ran.output, "outerr");
  EXPECT_TRUE(ran.status.exited);
  EXPECT_EQ(ran.status.code, 3);
  EXPECT_FALSE(ran.status.ok());
  EXPECT_EQ(ran.status.describe(), "exited with code 3");
  EXPECT_TRUE(runShell("true").status.ok());
}

TEST(CommonSpawn, ArgvIsPassedWithoutAShell) {
  auto pipe = makePipe();
  ASSERT_TRUE(pipe.has_value());
  SpawnRequest request;
  request.program = "/bin/echo";
  request.argv = {"echo", "a b", "$HOME", ";", "c"};
  request.stdout_fd = pipe->write.get();
  const pid_t pid = spawnProcess(request);
  pipe->write.reset();
  char buffer[256];
  const ssize_t got = ::read(pipe->read.get(), buffer, sizeof buffer);
  ASSERT_GT(got, 0);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(got)), "a b $HOME ; c\n");
  EXPECT_TRUE(reap(pid).ok());
}

TEST(CommonSpawn, EnvironmentIsExactlyTheOneGiven) {
  ::setenv("BERTH_SPAWN_TEST_INHERITED", "leaks", 1);
  SpawnRequest request;
  request.environment = {"BERTH_SPAWN_TEST=hello world", "PATH=/usr/bin:/bin"};
  const Ran ran =
      runShell("echo \"[$BERTH_SPAWN_TEST][$BERTH_SPAWN_TEST_INHERITED]\"", std::move(request));
  EXPECT_EQ(ran.output, "[hello world][]\n");
}

TEST(CommonSpawn, WorkingFolderAndStdinFromDevNull) {
  SpawnRequest request;
  request.cwd = "/tmp";
  // cat ends at once: its stdin is /dev/null, not the test's.
  const Ran ran = runShell("pwd; cat; echo done", std::move(request));
  EXPECT_EQ(ran.output, "/tmp\ndone\n");
}

TEST(CommonSpawn, StdinFromAGivenDescriptor) {
  auto input = makePipe();
  ASSERT_TRUE(input.has_value());
  ASSERT_EQ(::write(input->write.get(), "fed\n", 4), 4);
  input->write.reset();
  SpawnRequest request;
  request.stdin_fd = input->read.get();
  EXPECT_EQ(runShell("cat", std::move(request)).output, "fed\n");
}

TEST(CommonSpawn, OutputFileIsAppendedTo) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("berth-spawn-" + std::to_string(::getpid())))
          .string();
  { std::ofstream(path) << "before\n"; }
  SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "echo out; echo err >&2"};
  request.output_file = path;
  EXPECT_TRUE(reap(spawnProcess(request)).ok());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "before\nout\nerr\n");
  std::filesystem::remove(path);
}

TEST(CommonSpawn, NoDescriptorLeaksIntoTheChild) {
  // Opened without O_CLOEXEC, as a library might: still closed at exec. Numbered high, so that
  // it cannot be mistaken for the descriptor ls opens itself.
  Fd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  Fd leaky(::fcntl(dev_null.get(), F_DUPFD, 100));
  ASSERT_TRUE(leaky.valid());
  ASSERT_FALSE(::fcntl(leaky.get(), F_GETFD) & FD_CLOEXEC);
  const Ran ran = runShell("ls /proc/self/fd");
  EXPECT_EQ(ran.output.find(std::to_string(leaky.get())), std::string::npos) << ran.output;
}

TEST(CommonSpawn, NewProcessGroupIsSetBeforeSpawnReturns) {
  SpawnRequest request;
  request.program = "/bin/sleep";
  request.argv = {"sleep", "30"};
  request.new_process_group = true;
  const pid_t pid = spawnProcess(request);
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgid(0));
  ::kill(-pid, SIGKILL);
  const ExitStatus status = reap(pid);
  EXPECT_FALSE(status.exited);
  EXPECT_EQ(status.signal, SIGKILL);
  EXPECT_EQ(status.describe(), "was killed by signal 9");
}

TEST(CommonSpawn, WithoutNewGroupStaysInOurs) {
  SpawnRequest request;
  request.program = "/bin/sleep";
  request.argv = {"sleep", "30"};
  const pid_t pid = spawnProcess(request);
  EXPECT_EQ(::getpgid(pid), ::getpgid(0));
  ::kill(pid, SIGKILL);
  reap(pid);
}

TEST(CommonSpawn, SignalsStartAtTheirDefaultsOrTermIgnored) {
  // The test ignores SIGTERM itself; a child must not inherit that...
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGTERM, &ignore, &previous);
  SpawnRequest request;
  request.program = "/bin/sleep";
  request.argv = {"sleep", "30"};
  const pid_t pid = spawnProcess(request);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(reap(pid).signal, SIGTERM);

  // ...unless it asks for it.
  request.ignore_term = true;
  const pid_t ignoring = spawnProcess(request);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past exec
  ::kill(ignoring, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(reapIfExited(ignoring), std::nullopt) << "SIGTERM ended a child told to ignore it";
  ::kill(ignoring, SIGKILL);
  EXPECT_EQ(reap(ignoring).signal, SIGKILL);
  ::sigaction(SIGTERM, &previous, nullptr);
}

TEST(CommonSpawn, RunsAsTheGivenUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching users needs root";
  SpawnRequest request;
  request.credentials = SpawnCredentials{65534, 65534, {}};
  const Ran ran = runShell("id -u; id -g; id -G", std::move(request));
  EXPECT_EQ(ran.output, "65534\n65534\n65534\n");
}

TEST(CommonSpawn, AFailedExecThrowsWithTheReason) {
  SpawnRequest request;
  request.program = "/nonexistent/berth-no-such-binary";
  request.argv = {"/nonexistent/berth-no-such-binary"};
  try {
    spawnProcess(request);
    FAIL() << "a missing program started";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot start /nonexistent/berth-no-such-binary: No such file or directory");
  }
  // A step before exec that fails (its working folder) is reported the same way.
  request.program = "/bin/true";
  request.argv = {"true"};
  request.cwd = "/nonexistent-folder";
  try {
    spawnProcess(request);
    FAIL() << "a child started in a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot start true: No such file or directory");
  }
}

TEST(CommonSpawn, ReapIfExitedWaitsForNothing) {
  SpawnRequest request;
  request.program = "/bin/sleep";
  request.argv = {"sleep", "30"};
  const pid_t pid = spawnProcess(request);
  EXPECT_EQ(reapIfExited(pid), std::nullopt);
  Fd pidfd = openPidFd(pid);
  ::kill(pid, SIGKILL);
  if (pidfd.valid()) {
    pollfd p{pidfd.get(), POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 10000), 1);  // readable once it exits
  }
  std::optional<ExitStatus> status;
  for (int i = 0; i < 1000 && !status; ++i) {
    status = reapIfExited(pid);
    if (!status) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->signal, SIGKILL);
  // Reaped already: how it ended cannot be known a second time.
  EXPECT_EQ(reapIfExited(pid)->exited, false);
}

TEST(CommonSpawn, FindOnPathSkipsEmptyEntriesAndNonExecutables) {
  EXPECT_EQ(findOnPath("sh", "/nonexistent::/bin"), "/bin/sh");
  EXPECT_EQ(findOnPath("berth-no-such-program", "/usr/bin:/bin"), std::nullopt);
  EXPECT_EQ(findOnPath("passwd", "/etc"), std::nullopt);  // a file, but not executable
  EXPECT_EQ(findOnPath("sh", ""), std::nullopt);
}

}  // namespace
}  // namespace berth::common
