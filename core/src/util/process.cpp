// fork/exec with everything the child needs prepared before fork: between fork and exec only
// async-signal-safe calls are allowed, because another thread may hold malloc's lock.
#include "util/process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace berth::core {
namespace {

using Clock = std::chrono::steady_clock;

ExitStatus decodeStatus(int raw) {
  ExitStatus status;
  if (WIFEXITED(raw)) {
    status.exited = true;
    status.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.signal = WTERMSIG(raw);
  }
  return status;
}

// Closes a descriptor when the scope ends (the parent's ends of pipes).
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

std::string errnoText(int err) {
  char buffer[256];
  // GNU strerror_r may return a static string instead of filling the buffer.
  return ::strerror_r(err, buffer, sizeof buffer);
}

// Keeps strings alive and hands out the char* array exec wants.
class CStringArray {
 public:
  void add(std::string value) { storage_.push_back(std::move(value)); }
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

CStringArray mergedEnvironment(const std::map<std::string, std::string>& overrides) {
  CStringArray env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view line(*entry);
    auto name = line.substr(0, line.find('='));
    if (!overrides.contains(std::string(name))) env.add(std::string(line));
  }
  for (const auto& [name, value] : overrides) env.add(name + "=" + value);
  return env;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// PATH lookup happens in the parent: execvp may allocate, which is unsafe after fork.
std::string resolveProgram(const std::string& program, const SpawnOptions& options) {
  if (program.find('/') != std::string::npos) return program;
  std::string path_list;
  if (auto it = options.env.find("PATH"); it != options.env.end()) {
    path_list = it->second;
  } else if (const char* inherited = ::getenv("PATH")) {
    path_list = inherited;
  } else {
    path_list = "/usr/local/bin:/usr/bin:/bin";
  }
  size_t start = 0;
  while (start <= path_list.size()) {
    size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    std::string dir = path_list.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (isExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  throw std::runtime_error("cannot start " + program + ": " + errnoText(ENOENT));
}

struct Credentials {
  uid_t uid;
  gid_t gid;
  std::vector<gid_t> groups;
};

std::optional<Credentials> credentialsFor(const SpawnOptions& options, const std::string& argv0) {
  if (!options.run_as || ::geteuid() != 0) return std::nullopt;
  auto user = lookupUser(*options.run_as);
  if (!user)
    throw std::runtime_error("cannot start " + argv0 + ": no user called " + *options.run_as);
  Credentials creds{user->uid, user->gid, {}};
  int count = 32;
  for (;;) {
    creds.groups.resize(static_cast<size_t>(count));
    int wanted = count;
    if (::getgrouplist(options.run_as->c_str(), user->gid, creds.groups.data(), &wanted) >= 0) {
      creds.groups.resize(static_cast<size_t>(wanted));
      break;
    }
    count = std::max(wanted, count * 2);
  }
  return creds;
}

[[noreturn]] void reportErrnoAndExit(int report_fd) {
  int err = errno;
  ssize_t ignored = ::write(report_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

// Runs in the forked child. Reports errno through report_fd and exits on any failure.
[[noreturn]] void childMain(const char* program, char** argv, char** envp,
                            const SpawnOptions& options, const std::optional<Credentials>& creds,
                            int output_fd, int report_fd, pid_t parent) {
  auto fail = [report_fd]() { reportErrnoAndExit(report_fd); };

  // berthd blocks or ignores signals (sigwait, SIGPIPE); a child must start with defaults.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }

  if (options.new_process_group && ::setpgid(0, 0) != 0) fail();

  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0) fail();
  if (null_fd > STDERR_FILENO) ::close(null_fd);

  if (output_fd < 0 && !options.output_file.empty()) {
    output_fd = ::open(options.output_file.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (output_fd < 0) fail();
  }
  if (output_fd >= 0) {
    if (::dup2(output_fd, STDOUT_FILENO) < 0 || ::dup2(output_fd, STDERR_FILENO) < 0) fail();
    if (output_fd > STDERR_FILENO) ::close(output_fd);
  }

  if (creds) {
    if (::setgroups(creds->groups.size(), creds->groups.data()) != 0) fail();
    if (::setgid(creds->gid) != 0) fail();
    if (::setuid(creds->uid) != 0) fail();
  }
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) fail();
  // After the credentials change, which clears the setting.
  if (options.parent_death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, options.parent_death_signal) != 0) fail();
    if (::getppid() != parent) ::_exit(1);  // the parent died before the setting took hold
  }

  // Descriptors opened elsewhere without O_CLOEXEC must not leak into the program.
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) {
      if (fd != report_fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  ::execve(program, argv, envp);
  reportErrnoAndExit(report_fd);
}

Child spawnWithOutputFd(const std::vector<std::string>& argv, const SpawnOptions& options,
                        int output_fd) {
  if (argv.empty()) throw std::invalid_argument("spawn: empty argv");
  std::string program = resolveProgram(argv[0], options);
  auto creds = credentialsFor(options, argv[0]);
  CStringArray args;
  for (const auto& arg : argv) args.add(arg);
  CStringArray env = mergedEnvironment(options.env);
  char** argv_ptrs = args.data();
  char** env_ptrs = env.data();

  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    throw std::runtime_error("cannot start " + argv[0] + ": " + errnoText(errno));
  }
  Fd report_read(report[0]);
  Fd report_write(report[1]);

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start " + argv[0] + ": " + errnoText(errno));
  if (pid == 0) {
    childMain(program.c_str(), argv_ptrs, env_ptrs, options, creds, output_fd, report_write.get(),
              parent);
  }
  // Also from the parent, so a signal to the group right after spawn cannot miss the child.
  if (options.new_process_group) ::setpgid(pid, pid);
  report_write.reset();

  int child_errno = 0;
  ssize_t got;
  do {
    got = ::read(report_read.get(), &child_errno, sizeof child_errno);
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error("cannot start " + argv[0] + ": " + errnoText(child_errno));
  }
  return Child(pid);
}

}  // namespace

Child::Child(Child&& other) noexcept : pid_(other.pid_), status_(other.status_) {
  other.pid_ = -1;
  other.status_.reset();
}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0 && !status_) {
      if (::getpgid(pid_) == pid_) ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      waitForever();
    }
    pid_ = other.pid_;
    status_ = other.status_;
    other.pid_ = -1;
    other.status_.reset();
  }
  return *this;
}

Child::~Child() {
  if (pid_ <= 0 || status_) return;
  // The whole group, so that workers of a child (nginx, postgres) do not outlive it.
  if (::getpgid(pid_) == pid_) ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  waitForever();
}

bool Child::running() {
  if (pid_ <= 0 || status_) return false;
  int raw = 0;
  pid_t got = ::waitpid(pid_, &raw, WNOHANG);
  if (got == pid_) {
    status_ = decodeStatus(raw);
    return false;
  }
  if (got < 0 && errno == ECHILD) {
    // Reaped elsewhere (or SIGCHLD ignored): we cannot know how it ended.
    status_ = ExitStatus{};
    return false;
  }
  return true;
}

void Child::signal(int sig) {
  if (running()) ::kill(pid_, sig);
}

std::optional<ExitStatus> Child::wait(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (running()) {
    auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    std::this_thread::sleep_for(std::min(pause, left));
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return status_;
}

ExitStatus Child::waitForever() {
  if (pid_ <= 0) return status_.value_or(ExitStatus{});
  if (!status_) {
    int raw = 0;
    pid_t got;
    while ((got = ::waitpid(pid_, &raw, 0)) < 0 && errno == EINTR) {
    }
    status_ = got == pid_ ? decodeStatus(raw) : ExitStatus{};
  }
  return *status_;
}

ExitStatus Child::stop(std::chrono::milliseconds grace) {
  if (!running()) return status_.value_or(ExitStatus{});
  ::kill(pid_, SIGTERM);
  if (auto status = wait(grace)) return *status;
  if (::getpgid(pid_) == pid_) ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  return waitForever();
}

Child spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  return spawnWithOutputFd(argv, options, -1);
}

RunResult runCommand(const std::vector<std::string>& argv, const SpawnOptions& options,
                     std::chrono::milliseconds timeout) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    throw std::runtime_error("cannot start " + (argv.empty() ? "" : argv[0]) + ": " +
                             errnoText(errno));
  }
  Fd out_read(out[0]);
  Fd out_write(out[1]);
  Child child = spawnWithOutputFd(argv, options, out_write.get());
  out_write.reset();

  RunResult result;
  auto deadline = Clock::now() + timeout;
  bool killed = false;
  bool exited = false;
  std::array<char, 8192> buffer{};
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      if (killed || exited) break;  // something else still holds the pipe: stop reading
      // Kill the group too: a grandchild holding the pipe would otherwise keep us reading.
      if (::getpgid(child.pid()) == child.pid()) ::kill(-child.pid(), SIGKILL);
      child.signal(SIGKILL);
      killed = true;
      deadline = Clock::now() + std::chrono::seconds(1);
      continue;
    }
    pollfd pfd{out_read.get(), POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) {
      // A daemonised grandchild may keep the pipe open after the child itself exited.
      if (!exited && !killed && !child.running()) {
        exited = true;
        deadline = std::min(deadline, Clock::now() + std::chrono::seconds(1));
      }
      continue;
    }
    ssize_t got = ::read(out_read.get(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.output.append(buffer.data(), static_cast<size_t>(got));
  }
  result.status = child.waitForever();
  if (killed) {
    result.output += "\n(killed after " + std::to_string(timeout.count()) + " ms)";
  }
  return result;
}

std::optional<UserIds> lookupUser(const std::string& name) {
  long suggested = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(suggested > 0 ? static_cast<size_t>(suggested) : 4096);
  passwd entry{};
  passwd* found = nullptr;
  for (;;) {
    int rc = ::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
    if (rc == ERANGE) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (rc != 0 || found == nullptr) return std::nullopt;
    return UserIds{entry.pw_uid, entry.pw_gid, entry.pw_dir ? entry.pw_dir : ""};
  }
}

uint16_t freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("cannot open a socket: " + errnoText(errno));
  Fd guard(fd);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    throw std::runtime_error("cannot bind 127.0.0.1:0: " + errnoText(errno));
  }
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("getsockname: " + errnoText(errno));
  }
  return ntohs(addr.sin_port);
}

}  // namespace berth::core
