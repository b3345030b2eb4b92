// Child processes through berth::common's spawnProcess; what stays here is the core's own part:
// a user looked up by name (with its supplementary groups), the inherited environment with
// overrides, and Child's kill-on-destruction lifetime.
#include "util/process.hpp"

#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <stdexcept>
#include <thread>

#include "berth/common/fd.hpp"
#include "berth/common/spawn.hpp"

extern char** environ;

namespace berth::core {
namespace {

using Clock = std::chrono::steady_clock;
using common::errnoText;
using common::Fd;

ExitStatus fromCommon(const common::ExitStatus& status) {
  return ExitStatus{status.exited, status.code, status.signal};
}

std::vector<std::string> mergedEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view line(*entry);
    auto name = line.substr(0, line.find('='));
    if (!overrides.contains(std::string(name))) env.emplace_back(line);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
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
  if (auto found = common::findOnPath(program, path_list)) return *found;
  throw std::runtime_error("cannot start " + program + ": " + errnoText(ENOENT));
}

// A user is switched to only when berthd is root; its supplementary groups come along.
std::optional<common::SpawnCredentials> credentialsFor(const SpawnOptions& options,
                                                       const std::string& argv0) {
  if (!options.run_as || ::geteuid() != 0) return std::nullopt;
  auto user = lookupUser(*options.run_as);
  if (!user)
    throw std::runtime_error("cannot start " + argv0 + ": no user called " + *options.run_as);
  common::SpawnCredentials creds{user->uid, user->gid, {}};
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

Child spawnWithOutputFd(const std::vector<std::string>& argv, const SpawnOptions& options,
                        int output_fd) {
  if (argv.empty()) throw std::invalid_argument("spawn: empty argv");
  common::SpawnRequest request;
  request.program = resolveProgram(argv[0], options);
  request.credentials = credentialsFor(options, argv[0]);
  request.argv = argv;
  request.environment = mergedEnvironment(options.env);
  request.cwd = options.cwd;
  request.new_process_group = options.new_process_group;
  request.parent_death_signal = options.parent_death_signal;
  request.stdout_fd = output_fd;
  request.stderr_fd = output_fd;
  request.output_file = options.output_file;
  return Child(common::spawnProcess(request));
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
  // Reaped elsewhere (or SIGCHLD ignored): an empty status, since how it ended is unknown.
  auto status = common::reapIfExited(pid_);
  if (!status) return true;
  status_ = fromCommon(*status);
  return false;
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
  if (!status_) status_ = fromCommon(common::reap(pid_));
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
  auto out = common::makePipe(O_CLOEXEC);
  if (!out) {
    throw std::runtime_error("cannot start " + (argv.empty() ? "" : argv[0]) + ": " +
                             errnoText(errno));
  }
  Fd out_read = std::move(out->read);
  Child child = spawnWithOutputFd(argv, options, out->write.get());
  out->write.reset();

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
  Fd guard(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!guard) throw std::runtime_error("cannot open a socket: " + errnoText(errno));
  const int fd = guard.get();
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
