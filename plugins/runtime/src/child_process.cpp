#include "child_process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace berth::runtime {
namespace {

using Clock = std::chrono::steady_clock;

std::string errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

class CStrings {
 public:
  void add(std::string s) { storage_.push_back(std::move(s)); }
  char** data() {
    pointers_.clear();
    for (auto& s : storage_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
    return pointers_.data();
  }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> pointers_;
};

bool isExecutable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// In the parent: execvp allocates, which is unsafe after fork. Relative names with a '/'
// ("./server") are resolved against the child's working folder.
std::string resolveProgram(const ChildSpec& spec) {
  const std::string& program = spec.argv[0];
  if (program.find('/') != std::string::npos) {
    if (program.front() == '/' || spec.cwd.empty()) return program;
    return spec.cwd + "/" + program;
  }
  auto it = spec.env.find("PATH");
  const std::string list = it != spec.env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    const std::string dir = list.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + program;
    if (isExecutable(candidate)) return candidate;
  }
  throw std::runtime_error("cannot start " + program + ": no such program on PATH");
}

std::optional<RunAs> credentialsFor(const ChildSpec& spec) {
  if (::geteuid() != 0) return std::nullopt;
  // Root never runs a child as itself.
  if (!spec.run_as)
    throw std::runtime_error("cannot start " + spec.argv[0] + ": no user to run it as");
  if (spec.run_as->uid == 0 || spec.run_as->gid == 0)
    throw std::runtime_error("cannot start " + spec.argv[0] + ": uid or gid 0 is root");
  return spec.run_as;
}

[[noreturn]] void failChild(int report_fd) {
  int err = errno;
  ssize_t ignored = ::write(report_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

[[noreturn]] void childMain(const char* program, char** argv, char** envp, const char* cwd,
                            const std::optional<RunAs>& creds, bool ignore_term, int input_fd,
                            int output_fd, int report_fd, pid_t parent) {
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  if (ignore_term) ::signal(SIGTERM, SIG_IGN);
  // Its own group, so a stop reaches everything it started.
  if (::setpgid(0, 0) != 0) failChild(report_fd);
  int stdin_fd = input_fd >= 0 ? input_fd : ::open("/dev/null", O_RDONLY);
  if (stdin_fd < 0 || ::dup2(stdin_fd, STDIN_FILENO) < 0) failChild(report_fd);
  if (::dup2(output_fd, STDOUT_FILENO) < 0 || ::dup2(output_fd, STDERR_FILENO) < 0)
    failChild(report_fd);
  if (creds) {
    if (::setgroups(0, nullptr) != 0) failChild(report_fd);
    if (::setgid(creds->gid) != 0) failChild(report_fd);
    if (::setuid(creds->uid) != 0) failChild(report_fd);
  }
  if (cwd[0] != '\0' && ::chdir(cwd) != 0) failChild(report_fd);
  // After setuid, which clears it.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) failChild(report_fd);
  if (::getppid() != parent) ::_exit(1);
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd)
      if (fd != report_fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  ::execve(program, argv, envp);
  failChild(report_fd);
}

ChildExit decode(int raw) {
  ChildExit exit;
  if (WIFEXITED(raw)) {
    exit.exited = true;
    exit.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    exit.signal = WTERMSIG(raw);
  }
  return exit;
}

}  // namespace

std::string ChildExit::describe() const {
  if (exited) return "exited with code " + std::to_string(code);
  return "was killed by signal " + std::to_string(signal);
}

StartedChild spawnChild(const ChildSpec& spec) {
  if (spec.argv.empty()) throw std::invalid_argument("spawnChild: empty argv");
  const std::string program = resolveProgram(spec);
  const auto creds = credentialsFor(spec);
  CStrings args, env;
  for (const auto& a : spec.argv) args.add(a);
  for (const auto& [name, value] : spec.env) env.add(name + "=" + value);
  char** argv = args.data();
  char** envp = env.data();

  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot start " + spec.argv[0] + ": " + errnoText(errno));
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    ::close(output[0]);
    ::close(output[1]);
    throw std::runtime_error("cannot start " + spec.argv[0] + ": " + errnoText(errno));
  }
  int input[2] = {-1, -1};
  if (spec.pipe_stdin && ::pipe2(input, O_CLOEXEC) != 0) {
    const int err = errno;
    for (int fd : {output[0], output[1], report[0], report[1]}) ::close(fd);
    throw std::runtime_error("cannot start " + spec.argv[0] + ": " + errnoText(err));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0)
    childMain(program.c_str(), argv, envp, spec.cwd.c_str(), creds, spec.ignore_term, input[0],
              output[1], report[1], parent);
  const int fork_errno = errno;
  ::close(output[1]);
  ::close(report[1]);
  if (input[0] >= 0) ::close(input[0]);
  if (pid < 0) {
    ::close(output[0]);
    ::close(report[0]);
    if (input[1] >= 0) ::close(input[1]);
    throw std::runtime_error("cannot start " + spec.argv[0] + ": " + errnoText(fork_errno));
  }
  ::setpgid(pid, pid);  // from both sides, so a stop right after spawn cannot miss it
  int child_errno = 0;
  ssize_t got;
  do {
    got = ::read(report[0], &child_errno, sizeof child_errno);
  } while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got > 0) {
    reap(pid);
    ::close(output[0]);
    if (input[1] >= 0) ::close(input[1]);
    throw std::runtime_error("cannot start " + spec.argv[0] + ": " + errnoText(child_errno));
  }
  return StartedChild{pid, output[0], input[1]};
}

std::optional<ChildExit> reapIfExited(pid_t pid) {
  int raw = 0;
  pid_t got = ::waitpid(pid, &raw, WNOHANG);
  if (got == pid) return decode(raw);
  if (got < 0 && errno == ECHILD) return ChildExit{};
  return std::nullopt;
}

ChildExit reap(pid_t pid) {
  int raw = 0;
  pid_t got;
  while ((got = ::waitpid(pid, &raw, 0)) < 0 && errno == EINTR) {
  }
  return got == pid ? decode(raw) : ChildExit{};
}

int openPidFd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

namespace {
// Exited, but not yet reaped: its group id cannot be reused by another process meanwhile.
bool hasExited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
         info.si_pid == pid;
}
}  // namespace

ChildExit stopChild(pid_t pid, std::chrono::milliseconds grace) {
  ::kill(-pid, SIGTERM);
  const int pidfd = openPidFd(pid);
  const auto deadline = Clock::now() + grace;
  for (;;) {
    if (hasExited(pid)) {
      if (pidfd >= 0) ::close(pidfd);
      ::kill(-pid, SIGKILL);  // helpers it left behind in its group
      return reap(pid);
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    if (pidfd >= 0) {
      struct pollfd p {
        pidfd, POLLIN, 0
      };
      ::poll(&p, 1, static_cast<int>(left.count()));
    } else {
      std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(10)));
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  ::kill(-pid, SIGKILL);
  return reap(pid);
}

}  // namespace berth::runtime
