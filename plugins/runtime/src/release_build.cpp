#include "release_build.hpp"

#include <poll.h>
#include <pwd.h>
#include <signal.h>
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

CommandRun runBuildCommand(const std::vector<std::string>& argv, const std::string& dir,
                           const std::map<std::string, std::string>& env,
                           const std::optional<std::string>& run_as, const BuildLimits& limits) {
  CommandRun run;
  StartedChild child;
  try {
    child = spawnChild(ChildSpec{argv, env, dir, run_as});
  } catch (const std::exception& e) {
    run.error = e.what();
    return run;
  }
  const auto deadline = Clock::now() + limits.timeout;
  bool cut = false;
  bool timed_out = false;
  bool cancelled = false;
  const auto cancelRequested = [&] {
    return limits.cancel != nullptr && limits.cancel->load(std::memory_order_relaxed);
  };
  char buffer[8192];
  for (;;) {
    if (cancelRequested()) {
      cancelled = true;
      break;
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p {
      child.output_fd, POLLIN, 0
    };
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 200)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t got = ::read(child.output_fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // every writer closed the pipe: it has ended
    appendBounded(run.log, std::string_view(buffer, static_cast<std::size_t>(got)),
                  limits.max_log_bytes, cut);
  }
  ::close(child.output_fd);
  // Its output ended; it may still be finishing (closing stdout is not exiting).
  while (!timed_out && !cancelled) {
    if (cancelRequested()) {
      cancelled = true;
      break;
    }
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid == child.pid)
      break;
    if (Clock::now() >= deadline)
      timed_out = true;
    else
      ::usleep(10000);
  }
  // SIGTERM reaches an exited leader's group only as leftovers; the status is the leader's.
  const ChildExit exit = stopChild(child.pid, milliseconds(2000));
  if (cut) run.log = "(earlier output cut)\n" + run.log;
  if (cancelled) {
    run.error = "the build step " + joined(argv) + " was stopped because berthd is stopping";
    return run;
  }
  if (timed_out) {
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

std::optional<std::string> giveTreeTo(const fs::path& dir, const std::string& user) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwnam_r(user.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 || !found)
    return "no user called " + user;
  std::error_code ec;
  auto give = [&](const fs::path& p) { return ::lchown(p.c_str(), found->pw_uid, found->pw_gid); };
  if (give(dir) != 0) return "cannot give " + dir.string() + " to " + user;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (give(it->path()) != 0) return "cannot give " + it->path().string() + " to " + user;
  }
  if (ec) return "cannot give " + dir.string() + " to " + user + ": " + ec.message();
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
  // The app (and its build) may write in its own release: npm ci makes node_modules there.
  if (::geteuid() == 0 && input.run_as) {
    if (auto problem = giveTreeTo(input.release_dir, *input.run_as)) return fail(*problem);
  }
  auto choice = chooseStartCommand(input.header, input.project_cmd, input.release_dir, input.tools);
  if (!choice.plan) return fail(*choice.error);
  out.plan = std::move(choice.plan);
  if (!out.plan->build.empty()) {
    std::map<std::string, std::string> env = input.build_secrets;
    env["HOME"] = input.release_dir.string();
    env["PATH"] = input.release_dir.string() + "/node_modules/.bin:/usr/local/bin:/usr/bin:/bin";
    env["LANG"] = "C.UTF-8";
    // npm: no audit, fund or update notices (network round trips and noise in the log).
    env["npm_config_audit"] = "false";
    env["npm_config_fund"] = "false";
    env["npm_config_update_notifier"] = "false";
    auto run = runBuildCommand(out.plan->build, input.release_dir.string(), env, input.run_as,
                               input.build);
    out.build_log = std::move(run.log);
    if (!run.ok) {
      std::string log = std::move(out.build_log);
      auto failed = fail(run.error);
      failed.build_log = std::move(log);
      return failed;
    }
  }
  return out;
}

}  // namespace berth::runtime
