#include "berth/common/spawn.hpp"

#include <grp.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace berth::common {
namespace {

// Keeps strings alive and hands out the NULL-terminated char* array execve wants.
class CStrings {
 public:
  explicit CStrings(const std::vector<std::string>& strings) : storage_(strings) {
    for (auto& s : storage_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  char** data() { return pointers_.data(); }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> pointers_;
};

[[noreturn]] void reportErrnoAndExit(int report_fd) {
  const int err = errno;
  ssize_t ignored = ::write(report_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

// Runs in the forked child: async-signal-safe calls only. Reports errno through report_fd and
// exits on any failure.
[[noreturn]] void childMain(const SpawnRequest& request, char** argv, char** envp, int report_fd,
                            pid_t parent) {
  const auto fail = [report_fd] { reportErrnoAndExit(report_fd); };

  // berthd blocks or ignores signals (sigwait, SIGPIPE); a child must start with defaults.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  if (request.ignore_term) ::signal(SIGTERM, SIG_IGN);

  // Its own group, so that a stop reaches everything it started.
  if (request.new_process_group && ::setpgid(0, 0) != 0) fail();

  const int stdin_fd =
      request.stdin_fd >= 0 ? request.stdin_fd : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (stdin_fd < 0 || ::dup2(stdin_fd, STDIN_FILENO) < 0) fail();

  int stdout_fd = request.stdout_fd;
  int stderr_fd = request.stderr_fd;
  if (stdout_fd < 0 && stderr_fd < 0 && !request.output_file.empty()) {
    stdout_fd =
        ::open(request.output_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (stdout_fd < 0) fail();
    stderr_fd = stdout_fd;
  }
  if (stdout_fd >= 0 && ::dup2(stdout_fd, STDOUT_FILENO) < 0) fail();
  if (stderr_fd >= 0 && ::dup2(stderr_fd, STDERR_FILENO) < 0) fail();

  if (request.credentials) {
    const SpawnCredentials& creds = *request.credentials;
    if (::setgroups(creds.groups.size(), creds.groups.empty() ? nullptr : creds.groups.data()) != 0)
      fail();
    if (::setgid(creds.gid) != 0) fail();
    if (::setuid(creds.uid) != 0) fail();
  }
  if (!request.cwd.empty() && ::chdir(request.cwd.c_str()) != 0) fail();
  // After the credentials change, which clears the setting.
  if (request.parent_death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, request.parent_death_signal) != 0) fail();
    if (::getppid() != parent) ::_exit(1);  // the parent died before the setting took hold
  }

  // Descriptors opened elsewhere without O_CLOEXEC must not leak into the program.
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd)
      if (fd != report_fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  ::execve(request.program.c_str(), argv, envp);
  reportErrnoAndExit(report_fd);
}

}  // namespace

std::string errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

std::string ExitStatus::describe() const {
  if (exited) return "exited with code " + std::to_string(code);
  return "was killed by signal " + std::to_string(signal);
}

ExitStatus decodeWaitStatus(int raw) {
  ExitStatus status;
  if (WIFEXITED(raw)) {
    status.exited = true;
    status.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.signal = WTERMSIG(raw);
  }
  return status;
}

std::optional<ExitStatus> reapIfExited(pid_t pid) {
  int raw = 0;
  const pid_t got = ::waitpid(pid, &raw, WNOHANG);
  if (got == pid) return decodeWaitStatus(raw);
  if (got < 0 && errno == ECHILD) return ExitStatus{};
  return std::nullopt;
}

ExitStatus reap(pid_t pid) {
  int raw = 0;
  pid_t got;
  while ((got = ::waitpid(pid, &raw, 0)) < 0 && errno == EINTR) {
  }
  return got == pid ? decodeWaitStatus(raw) : ExitStatus{};
}

Fd openPidFd(pid_t pid) {
#ifdef SYS_pidfd_open
  return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#else
  (void)pid;
  return Fd();
#endif
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> findOnPath(const std::string& name, const std::string& path_list) {
  std::size_t start = 0;
  while (start <= path_list.size()) {
    auto end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    const std::string dir = path_list.substr(start, end - start);
    start = end + 1;
    // An empty entry would mean the working folder, which differs between parent and child.
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (isExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

pid_t spawnProcess(const SpawnRequest& request) {
  if (request.argv.empty()) throw std::invalid_argument("spawnProcess: empty argv");
  const std::string& name = request.argv[0];
  CStrings args(request.argv);
  CStrings env(request.environment);

  auto report = makePipe(O_CLOEXEC);
  if (!report) throw std::runtime_error("cannot start " + name + ": " + errnoText(errno));

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start " + name + ": " + errnoText(errno));
  if (pid == 0) childMain(request, args.data(), env.data(), report->write.get(), parent);
  // Also from the parent, so that a signal to the group right after spawn cannot miss the child.
  if (request.new_process_group) ::setpgid(pid, pid);
  report->write.reset();

  int child_errno = 0;
  ssize_t got;
  do {
    got = ::read(report->read.get(), &child_errno, sizeof child_errno);
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    reap(pid);
    throw std::runtime_error("cannot start " + name + ": " + errnoText(child_errno));
  }
  return pid;
}

}  // namespace berth::common
