#include "release_build.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_process.hpp"

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string duration(milliseconds ms) {
  if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
  return std::to_string(ms.count()) + " ms";
}

// Keeps the end of the output: the lines that say why a build failed come last.
void appendBounded(std::string& log, std::string_view more, std::size_t max, bool& cut) {
  log.append(more);
  if (log.size() > max) {
    log.erase(0, log.size() - max);
    cut = true;
  }
}

}  // namespace

namespace {

// Writes what is left of a command's stdin without blocking; false once it is all written or
// the command closed its end (then the rest is dropped). SIGPIPE is blocked on this thread
// while the command runs (StdinPipeSignal), so a closed end is EPIPE, not a signal.
bool feedInput(int fd, const std::string& input, std::size_t& written) {
  while (written < input.size()) {
    const ssize_t n = ::write(fd, input.data() + written, input.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;  // full for now: more when poll says so; else it is gone
  }
  return false;
}

// Blocks SIGPIPE on the calling thread while a command's stdin is written, and takes away one
// a write raised before the old mask is restored (a thread-directed SIGPIPE would otherwise
// end a process that does not ignore it).
class StdinPipeSignal {
 public:
  StdinPipeSignal() {
    sigset_t pipe;
    ::sigemptyset(&pipe);
    ::sigaddset(&pipe, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  }
  ~StdinPipeSignal() {
    sigset_t pending;
    ::sigpending(&pending);
    if (::sigismember(&pending, SIGPIPE) == 1 && ::sigismember(&old_, SIGPIPE) == 0) {
      sigset_t pipe;
      ::sigemptyset(&pipe);
      ::sigaddset(&pipe, SIGPIPE);
      const struct timespec now {};
      ::sigtimedwait(&pipe, nullptr, &now);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  StdinPipeSignal(const StdinPipeSignal&) = delete;
  StdinPipeSignal& operator=(const StdinPipeSignal&) = delete;

 private:
  sigset_t old_;
};

}  // namespace

CommandRun runBuildCommand(const std::vector<std::string>& argv, const SandboxMounts& mounts,
                           const std::map<std::string, std::string>& env,
                           const std::optional<RunAs>& run_as, const BuildLimits& limits,
                           const std::optional<SandboxOptions>& sandbox, const CommandIo& io) {
  CommandRun run;
  std::optional<StdinPipeSignal> pipe_signal;
  if (io.input) pipe_signal.emplace();
  StartedChild child;
  try {
    std::vector<std::string> command = argv;
    if (sandbox) command = sandboxedArgv(*sandbox, mounts, argv);
    ChildSpec spec{command, env, mounts.release_dir, run_as, sandbox.has_value()};
    spec.pipe_stdin = io.input.has_value();
    child = spawnChild(spec);
  } catch (const std::exception& e) {
    run.error = e.what();
    return run;
  }
  std::size_t input_written = 0;
  if (child.input) {
    ::fcntl(child.input.get(), F_SETFL, ::fcntl(child.input.get(), F_GETFL) | O_NONBLOCK);
    if (!feedInput(child.input.get(), *io.input, input_written))
      child.input.reset();  // all of it written (or nobody reads): its stdin ends
  }
  const auto deadline = Clock::now() + limits.timeout;
  bool cut = false;
  const auto cancelRequested = [&] {
    return limits.cancel != nullptr && limits.cancel->load(std::memory_order_relaxed);
  };
  char buffer[8192];
  for (;;) {
    if (cancelRequested()) {
      run.cancelled = true;
      break;
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      run.timed_out = true;
      break;
    }
    struct pollfd p[2] = {{child.output.get(), POLLIN, 0}, {child.input.get(), POLLOUT, 0}};
    const nfds_t count = child.input ? 2 : 1;
    const int ready = ::poll(p, count, static_cast<int>(std::min<long long>(left.count(), 200)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    if (count == 2 && p[1].revents != 0 && !feedInput(child.input.get(), *io.input, input_written))
      child.input.reset();
    if (p[0].revents == 0) continue;
    const ssize_t got = ::read(child.output.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // every writer closed the pipe: it has ended
    const std::string_view piece(buffer, static_cast<std::size_t>(got));
    appendBounded(run.log, piece, limits.max_log_bytes, cut);
    if (io.on_output) io.on_output(piece);
  }
  child.output.reset();
  child.input.reset();
  // Its output ended; it may still be finishing (closing stdout is not exiting).
  while (!run.timed_out && !run.cancelled) {
    if (cancelRequested()) {
      run.cancelled = true;
      break;
    }
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid == child.pid)
      break;
    if (Clock::now() >= deadline)
      run.timed_out = true;
    else
      ::usleep(10000);
  }
  // SIGTERM reaches an exited leader's group only as leftovers; the status is the leader's.
  const ChildExit exit = stopChild(child.pid, milliseconds(2000));
  run.exit = exit;
  if (cut) run.log = "(earlier output cut)\n" + run.log;
  if (run.cancelled) {
    run.error = "the build step " + joined(argv) + " was stopped because berthd is stopping";
    return run;
  }
  if (run.timed_out) {
    run.error = "the build step " + joined(argv) + " took longer than " + duration(limits.timeout) +
                " and was stopped";
    return run;
  }
  if (!exit.exited || exit.code != 0) {
    run.error = "the build step " + joined(argv) + " " + exit.describe();
    return run;
  }
  run.ok = true;
  return run;
}

CommandRun runBuildCommand(const std::vector<std::string>& argv, const std::string& dir,
                           const std::map<std::string, std::string>& env,
                           const std::optional<RunAs>& run_as, const BuildLimits& limits,
                           const std::optional<SandboxOptions>& sandbox, const std::string& home) {
  return runBuildCommand(argv, SandboxMounts{dir, true, home, {}}, env, run_as, limits, sandbox);
}

std::optional<std::string> sandboxProblem(const SandboxOptions& options, const RunAs& probe_as) {
  const std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                                  {"LANG", "C.UTF-8"}};
  BuildLimits limits;
  limits.timeout = std::chrono::seconds(20);
  limits.max_log_bytes = 4096;
  CommandRun run = runBuildCommand(sandboxedArgv(options, SandboxMounts{}, {"true"}), "/", env,
                                   probe_as, limits);
  if (run.ok) return std::nullopt;
  if (run.error.find("no such program") != std::string::npos)
    return "no " + options.bwrap + " program on PATH (install bubblewrap)";
  // bwrap says why on its last line ("bwrap: No permissions to create a new namespace ...").
  std::string last;
  std::size_t end = run.log.size();
  while (end > 0 && (run.log[end - 1] == '\n' || run.log[end - 1] == ' ')) --end;
  const std::size_t start = run.log.rfind('\n', end == 0 ? 0 : end - 1);
  last = run.log.substr(start == std::string::npos ? 0 : start + 1,
                        end - (start == std::string::npos ? 0 : start + 1));
  if (last.empty()) {
    // "the build step bwrap ... true exited with code 1": what it says after the command.
    const auto tail = run.error.rfind(" true ");
    return options.bwrap + " " +
           (tail == std::string::npos ? run.error : run.error.substr(tail + 6));
  }
  return last;
}

std::optional<std::string> giveTreeTo(const fs::path& dir, const RunAs& owner) {
  const std::string who = std::to_string(owner.uid);
  std::error_code ec;
  auto give = [&](const fs::path& p) { return ::lchown(p.c_str(), owner.uid, owner.gid); };
  if (give(dir) != 0) return "cannot give " + dir.string() + " to uid " + who;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (give(it->path()) != 0) return "cannot give " + it->path().string() + " to uid " + who;
  }
  if (ec) return "cannot give " + dir.string() + " to uid " + who + ": " + ec.message();
  return std::nullopt;
}

namespace {

// One folder of sealRelease, by descriptor: nothing below `dir_fd` is ever reached through a
// link, even if a process of the build were still changing the tree.
std::optional<std::string> sealFolder(int dir_fd, const std::string& rel,
                                      const std::optional<RunAs>& owner,
                                      std::vector<std::string>& links) {
  if (owner && ::fchown(dir_fd, owner->uid, owner->gid) != 0)
    return "cannot take back " + (rel.empty() ? std::string(".") : rel) + ": " +
           std::error_code(errno, std::generic_category()).message();
  ::fchmod(dir_fd, 0755);
  const int list_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  DIR* dir = list_fd >= 0 ? ::fdopendir(list_fd) : nullptr;
  if (!dir) {
    if (list_fd >= 0) ::close(list_fd);
    return "cannot read " + (rel.empty() ? std::string(".") : rel);
  }
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  for (const auto& name : names) {
    const std::string path = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      if (owner) ::fchownat(dir_fd, name.c_str(), owner->uid, owner->gid, AT_SYMLINK_NOFOLLOW);
      links.push_back(path);
      continue;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
      return "the build step left " + path +
             ", a device file, fifo or socket, which is not allowed";
    const int flags =
        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0);
    const int fd = ::openat(dir_fd, name.c_str(), flags);
    if (fd < 0) return "cannot take back " + path;
    struct stat now {};
    if (::fstat(fd, &now) != 0 || (now.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) {
      ::close(fd);
      return "cannot take back " + path + ": it changed meanwhile";
    }
    std::optional<std::string> problem;
    if (S_ISDIR(now.st_mode)) {
      problem = sealFolder(fd, path, owner, links);
    } else {
      if (owner && ::fchown(fd, owner->uid, owner->gid) != 0) problem = "cannot take back " + path;
      ::fchmod(fd, (now.st_mode & 0111) ? 0755 : 0644);
    }
    ::close(fd);
    if (problem) return problem;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> sealRelease(const fs::path& dir, const std::optional<RunAs>& owner) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "cannot take back " + dir.string();
  std::vector<std::string> links;
  auto problem = sealFolder(fd, "", owner, links);
  ::close(fd);
  if (problem) return problem;
  if (auto link = linkLeadingOutside(dir, links))
    return "the build step left " + *link +
           ", a link pointing outside the release, which is not allowed";
  return std::nullopt;
}

PreparedRelease prepareRelease(const ReleaseInput& input) {
  PreparedRelease out;
  const auto fail = [&](std::string error) {
    std::error_code ignored;
    fs::remove_all(input.release_dir, ignored);
    out.error = std::move(error);
    out.plan.reset();
    return out;
  };
  // Never remove a folder this call did not make.
  if (fs::exists(fs::symlink_status(input.release_dir))) {
    out.error = "the release folder " + input.release_dir.string() + " already exists";
    return out;
  }
  auto unpacked = unpackRelease(input.archive, input.release_dir, input.unpack);
  if (!unpacked.ok()) {
    out.error = unpacked.error;
    return out;
  }
  out.files = unpacked.files;
  out.bytes = unpacked.bytes;
  auto choice = chooseStartCommand(input.header, input.project_cmd, input.release_dir, input.tools);
  if (!choice.plan) return fail(*choice.error);
  out.plan = std::move(choice.plan);
  if (!out.plan->build.empty()) {
    // The build alone writes in the release (npm ci makes node_modules there), as the project.
    const bool root = ::geteuid() == 0;
    if (root) {
      if (!input.run_as) return fail("no user to run the build step as");
      if (auto problem = giveTreeTo(input.release_dir, *input.run_as)) return fail(*problem);
    }
    std::map<std::string, std::string> env = input.build_secrets;
    const std::string home = input.home.empty() ? input.release_dir.string() : input.home;
    env["HOME"] = home;
    if (!input.home.empty()) env["TMPDIR"] = input.home + "/tmp";
    env["PATH"] = input.release_dir.string() + "/node_modules/.bin:/usr/local/bin:/usr/bin:/bin";
    env["LANG"] = "C.UTF-8";
    // npm: no audit, fund or update notices (network round trips and noise in the log).
    env["npm_config_audit"] = "false";
    env["npm_config_fund"] = "false";
    env["npm_config_update_notifier"] = "false";
    auto run = runBuildCommand(out.plan->build, input.release_dir.string(), env, input.run_as,
                               input.build, input.sandbox, input.home);
    out.build_log = std::move(run.log);
    // Taken back whatever the outcome: the folder is removed as berthd's below on failure.
    std::optional<std::string> sealed =
        sealRelease(input.release_dir,
                    root ? std::optional<RunAs>(RunAs{::geteuid(), ::getegid()}) : std::nullopt);
    if (!run.ok || sealed) {
      std::string log = std::move(out.build_log);
      auto failed = fail(run.ok ? *sealed : run.error);
      failed.build_log = std::move(log);
      return failed;
    }
  }
  return out;
}

}  // namespace berth::runtime
