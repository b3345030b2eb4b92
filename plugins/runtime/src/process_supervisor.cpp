#include "process_supervisor.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "child_process.hpp"
#include "readiness.hpp"

namespace berth::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::size_t kLinesInOutcome = 20;
constexpr milliseconds kProbeInterval{10};
// How long after its port was given out a request may still be on its way to the app: berthd's
// X-Accel answer reaches nginx, which then connects. On a loaded machine (the soak's load
// average of 14 on two cores) that took longer than 300 ms, and the request met a closed port.
constexpr milliseconds kHandOff{1000};

// Established TCP connections to the loopback port (both families), from /proc/net.
int openConnections(std::uint16_t port) {
  int count = 0;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the heading
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      if (!(fields >> slot >> local >> remote >> state)) continue;
      const auto colon = local.rfind(':');
      if (colon == std::string::npos || state != "01") continue;  // 01: ESTABLISHED
      if (std::stoul(local.substr(colon + 1), nullptr, 16) == port) ++count;
    }
  }
  return count;
}

milliseconds until(Clock::time_point deadline) {
  return std::max(milliseconds(0),
                  std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

// Exited, not yet reaped (so its group id stays reserved until the group is killed).
bool hasExited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
         info.si_pid == pid;
}

std::string seconds(milliseconds ms) {
  if (ms < milliseconds(1000)) return std::to_string(ms.count()) + " ms";
  const auto whole = ms.count() / 1000;
  const auto tenths = (ms.count() % 1000) / 100;
  return std::to_string(whole) + (tenths ? "." + std::to_string(tenths) : "") + " s";
}

}  // namespace

milliseconds restartDelay(const RestartPolicy& policy, int consecutive_crashes) {
  milliseconds delay = policy.first_delay;
  for (int i = 1; i < consecutive_crashes && delay < policy.max_delay; ++i) delay *= 2;
  return std::min(delay, policy.max_delay);
}

std::string_view stateName(AppState state) {
  switch (state) {
    case AppState::Stopped:
      return "stopped";
    case AppState::Starting:
      return "starting";
    case AppState::Running:
      return "running";
    case AppState::Restarting:
      return "restarting";
  }
  return "stopped";
}

AppProcess::AppProcess(AppSpec spec, LineSink on_line, EventSink on_event)
    : spec_(std::move(spec)),
      on_line_(std::move(on_line)),
      on_event_(std::move(on_event)),
      lines_(spec_.ring_lines) {
  if (spec_.argv.empty()) throw std::invalid_argument("AppProcess: empty command");
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::runtime_error("AppProcess: eventfd failed");
  supervisor_ = std::thread([this] { run(); });
}

AppProcess::~AppProcess() {
  {
    std::lock_guard lock(mutex_);
    shutdown_ = true;
    want_running_ = false;
  }
  changed_.notify_all();
  wakeSupervisor();
  supervisor_.join();
  ::close(wake_fd_);
}

void AppProcess::wakeSupervisor() {
  const std::uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
  (void)ignored;
}

void AppProcess::event(const std::string& message) {
  if (on_event_) on_event_(message);
}

AppState AppProcess::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::uint16_t AppProcess::port() const {
  std::lock_guard lock(mutex_);
  return state_ == AppState::Running && !draining_ ? port_ : 0;
}

void AppProcess::start(Done done) {
  StartOutcome now;
  {
    std::lock_guard lock(mutex_);
    if (shutdown_) {
      now.error = "the server is shutting down";
      now.superseded = retired_;
    } else if (state_ == AppState::Running && want_running_ && !draining_) {
      now.ready = true;
      now.port = port_;
      handed_out_ = Clock::now();
    } else {
      waiters_.push_back(std::move(done));
      want_running_ = true;
      ++wishes_;
      if (state_ == AppState::Stopped) state_ = AppState::Starting;
      changed_.notify_all();
      return;
    }
  }
  done(now);
}

StartOutcome AppProcess::startAndWait() {
  std::mutex m;
  std::condition_variable cv;
  std::optional<StartOutcome> result;
  start([&](const StartOutcome& outcome) {
    std::lock_guard lock(m);
    result = outcome;
    cv.notify_all();
  });
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return result.has_value(); });
  return *result;
}

void AppProcess::stop() {
  std::unique_lock lock(mutex_);
  want_running_ = false;
  const std::uint64_t wish = ++wishes_, stops = stops_;
  changed_.notify_all();
  lock.unlock();
  wakeSupervisor();
  lock.lock();
  // Done when it stopped, or when a start() came after this stop: that start is what is
  // wanted now, and the stop waited for may never come (waiting on would hang this thread,
  // a request's or the idle job's, for good).
  changed_.wait(lock, [&] {
    return state_ == AppState::Stopped || shutdown_ || stops_ != stops || wishes_ != wish;
  });
}

void AppProcess::setEnvironment(AppEnvironmentInput environment) {
  bool was_active;
  {
    std::lock_guard lock(mutex_);
    spec_.environment = std::move(environment);
    was_active = want_running_;
  }
  if (!was_active) return;
  stop();
  start([](const StartOutcome&) {});
}

AppEnvironmentInput AppProcess::environment() const {
  std::lock_guard lock(mutex_);
  return spec_.environment;
}

void AppProcess::retire() {
  std::lock_guard lock(mutex_);
  retired_ = true;
}

void AppProcess::finishWaiters(const StartOutcome& outcome) {
  std::vector<Done> waiters;
  {
    std::lock_guard lock(mutex_);
    waiters.swap(waiters_);
    if (outcome.ready) handed_out_ = Clock::now();
  }
  for (auto& done : waiters) done(outcome);
}

bool AppProcess::waitForStopOrFor(milliseconds delay) {
  const auto deadline = Clock::now() + delay;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (!want_running_ || shutdown_) return true;
    }
    const auto left = until(deadline);
    if (left.count() == 0) return false;
    struct pollfd p {
      wake_fd_, POLLIN, 0
    };
    if (::poll(&p, 1, static_cast<int>(left.count())) > 0) {
      std::uint64_t count = 0;
      ssize_t ignored = ::read(wake_fd_, &count, sizeof count);
      (void)ignored;
    }
  }
}

void AppProcess::drain(std::uint16_t port) {
  Clock::time_point handed_out;
  {
    std::lock_guard lock(mutex_);
    if (shutdown_ && !retired_) return;  // berthd stopping: its requests end with it anyway
    handed_out = handed_out_;
    draining_ = true;
  }
  // A port given out a moment ago may not have its connection yet; after that, a connection
  // still open is a request being answered (the edge's proxying to apps closes each one, and
  // its idle keep-alive ones to direct apps close within seconds).
  const auto deadline = Clock::now() + spec_.drain_timeout;
  while (Clock::now() < deadline &&
         (Clock::now() - handed_out < kHandOff || openConnections(port) > 0)) {
    std::this_thread::sleep_for(kProbeInterval * 2);
  }
}

void AppProcess::readOutput(int fd) {
  LineSplitter splitter;
  auto sink = [this](std::string_view line) {
    lines_.push(line);
    if (on_line_) on_line_(line);
  };
  char buffer[4096];
  // After the process is gone what is left in the pipe is read, but a helper that escaped its
  // group (setsid) could hold the pipe open and keep writing: then reading ends soon anyway.
  int reads_after_stop = 0;
  for (;;) {
    if (reader_stop_ && ++reads_after_stop > 64) break;
    struct pollfd p {
      fd, POLLIN, 0
    };
    const int ready = ::poll(&p, 1, 50);
    if (ready == 0) {
      if (reader_stop_) break;
      continue;
    }
    if (ready < 0 && errno == EINTR) continue;
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    splitter.feed(std::string_view(buffer, static_cast<std::size_t>(got)), sink);
  }
  splitter.finish(sink);
}

StartOutcome AppProcess::launch() {
  StartOutcome outcome;
  const auto finishReader = [this] {
    reader_stop_ = true;
    if (reader_.joinable()) reader_.join();
  };
  const auto failed = [&](std::string error) {
    finishReader();
    outcome.ready = false;
    outcome.error = std::move(error);
    outcome.last_lines = lines_.last(kLinesInOutcome);
    return outcome;
  };
  const auto wantRunning = [this] {
    std::lock_guard lock(mutex_);
    return want_running_ && !shutdown_;
  };

  ChildSpec child;
  try {
    const std::uint16_t port = freeLoopbackPort();
    AppEnvironmentInput input;
    {
      std::lock_guard lock(mutex_);  // setEnvironment may change it meanwhile
      input = spec_.environment;
    }
    input.release_dir = spec_.release_dir;
    input.home = spec_.home;
    input.port = port;
    child.env = appEnvironment(input);
    child.argv = expandArguments(spec_.argv, child.env);
    if (spec_.sandbox)
      child.argv = sandboxedArgv(
          *spec_.sandbox,
          SandboxMounts{spec_.release_dir, false, spec_.home, spec_.read_only_paths}, child.argv);
    child.cwd = spec_.release_dir;
    child.run_as = spec_.run_as;
    child.ignore_term = spec_.sandbox.has_value();
    StartedChild started = spawnChild(child);
    pid_ = started.pid;
    outcome.port = port;
    ++starts_;
    reader_stop_ = false;
    // The thread owns the pipe's read end: it closes when the reader is done.
    reader_ = std::thread([this, fd = std::move(started.output)] { readOutput(fd.get()); });
  } catch (const std::exception& e) {
    return failed(e.what());
  }
  event("started " + spec_.argv.front() + " (pid " + std::to_string(pid_) + ", port " +
        std::to_string(outcome.port) + ")" +
        (spec_.warn_unsandboxed && !spec_.sandbox
             ? "; WARNING: outside the sandbox (runtime.unsafe_run_without_sandbox)"
             : ""));

  const auto began = Clock::now();
  const auto deadline = began + spec_.start_timeout;
  for (;;) {
    if (hasExited(pid_)) {
      ::kill(-pid_, SIGKILL);
      const ChildExit exit = reap(pid_);
      pid_ = -1;
      return failed("the app " + exit.describe() + " before it accepted connections");
    }
    if (!wantRunning()) {
      stopChild(pid_, spec_.stop_grace);
      pid_ = -1;
      outcome.superseded = true;  // run() decides whether a start came meanwhile
      return failed("the app was stopped before it was ready");
    }
    const bool ready = spec_.readiness_path ? httpStatus(outcome.port, *spec_.readiness_path,
                                                         std::max(until(deadline), milliseconds(1)))
                                                      .value_or(999) < 400
                                            : acceptsConnections(outcome.port);
    if (ready && !wantRunning()) {
      // Ready just as a stop came: its port is not handed out to be cut off a moment later.
      stopChild(pid_, spec_.stop_grace);
      pid_ = -1;
      outcome.superseded = true;
      return failed("the app was stopped before it was ready");
    }
    if (ready) {
      outcome.ready = true;
      event("ready in " +
            std::to_string(std::chrono::duration_cast<milliseconds>(Clock::now() - began).count()) +
            " ms");
      return outcome;
    }
    if (Clock::now() >= deadline) {
      stopChild(pid_, spec_.stop_grace);
      pid_ = -1;
      return failed(spec_.readiness_path
                        ? "the app's readiness path " + *spec_.readiness_path +
                              " did not answer within " + seconds(spec_.start_timeout)
                        : "the app did not accept connections on its port within " +
                              seconds(spec_.start_timeout));
    }
    struct pollfd p {
      wake_fd_, POLLIN, 0
    };
    if (::poll(&p, 1, static_cast<int>(std::min(kProbeInterval, until(deadline)).count())) > 0) {
      std::uint64_t count = 0;
      ssize_t ignored = ::read(wake_fd_, &count, sizeof count);
      (void)ignored;
    }
  }
}

void AppProcess::run() {
  int consecutive_crashes = 0;
  bool restarting = false;
  const auto setStopped = [this] {
    {
      std::lock_guard lock(mutex_);
      state_ = AppState::Stopped;
      draining_ = false;
      ++stops_;
      portQuarantine().hold(port_);
      port_ = 0;
    }
    changed_.notify_all();
  };
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      // Wakes for a start, for shutdown, and for a start taken back (stop() waits for Stopped).
      changed_.wait(lock,
                    [&] { return want_running_ || shutdown_ || state_ != AppState::Stopped; });
      if (shutdown_) break;
      if (!want_running_) {
        // A start asked for and taken back before this thread got to it.
        state_ = AppState::Stopped;
        ++stops_;
        restarting = false;
        lock.unlock();
        changed_.notify_all();
        finishWaiters({false, 0, "the app was stopped before it was ready", {}, true});
        continue;
      }
      if (!restarting) state_ = AppState::Starting;
    }
    const auto started_at = Clock::now();
    StartOutcome outcome = launch();
    if (!outcome.ready) {
      const bool stopped_while_starting = outcome.superseded;
      bool stop_asked;
      {
        std::lock_guard lock(mutex_);
        stop_asked = !want_running_ || shutdown_;
        // A stop() (a restart, an idle stop) or a retirement, not berthd stopping.
        outcome.superseded = (stop_asked || stopped_while_starting) && (!shutdown_ || retired_);
      }
      if (stopped_while_starting && !stop_asked) {
        // Stopped, then wanted again while the half-started process was being stopped (a
        // restart's start, a request): everyone waiting wants the app, so the next start is
        // theirs. Answering them "stopped" would fail requests that a restart should not touch.
        event("stopped before it was ready; starting again for the requests waiting");
        setStopped();
        continue;
      }
      if (restarting && !stop_asked) {
        // A crash loop keeps backing off; callers waiting meanwhile keep waiting.
        ++consecutive_crashes;
        ++crashes_total_;
        const auto delay = restartDelay(spec_.restart, consecutive_crashes);
        event("the restart failed (" + outcome.error + "); trying again in " + seconds(delay));
        if (!waitForStopOrFor(delay)) continue;
      }
      event("the start failed: " + outcome.error);
      {
        std::lock_guard lock(mutex_);
        want_running_ = false;
      }
      restarting = false;
      setStopped();
      finishWaiters(outcome);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      state_ = AppState::Running;
      port_ = outcome.port;
    }
    changed_.notify_all();
    restarting = false;
    finishWaiters(outcome);

    // Running: wait for it to exit or for a stop.
    const common::Fd pidfd = openPidFd(pid_);
    bool stop_asked = false;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        stop_asked = !want_running_ || shutdown_;
      }
      if (stop_asked || hasExited(pid_)) break;
      struct pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {pidfd.get(), POLLIN, 0}};
      if (::poll(fds, pidfd ? 2 : 1, pidfd ? -1 : 100) > 0 && (fds[0].revents & POLLIN)) {
        std::uint64_t count = 0;
        ssize_t ignored = ::read(wake_fd_, &count, sizeof count);
        (void)ignored;
      }
    }
    if (stop_asked) {
      drain(port_);
      const ChildExit exit = stopChild(pid_, spec_.stop_grace);
      pid_ = -1;
      reader_stop_ = true;
      if (reader_.joinable()) reader_.join();
      event("stopped (the app " + exit.describe() + ")");
      setStopped();
      continue;
    }
    ::kill(-pid_, SIGKILL);  // whatever it started goes with it
    const ChildExit exit = reap(pid_);
    pid_ = -1;
    reader_stop_ = true;
    if (reader_.joinable()) reader_.join();
    if (Clock::now() - started_at >= spec_.restart.stable_after) consecutive_crashes = 0;
    ++consecutive_crashes;
    ++crashes_total_;
    const auto delay = restartDelay(spec_.restart, consecutive_crashes);
    event("crashed (the app " + exit.describe() + "); restarting in " + seconds(delay));
    {
      std::lock_guard lock(mutex_);
      state_ = AppState::Restarting;
      portQuarantine().hold(port_);
      port_ = 0;
    }
    changed_.notify_all();
    if (waitForStopOrFor(delay)) {
      setStopped();
      continue;
    }
    restarting = true;
  }
  bool retired;
  {
    std::lock_guard lock(mutex_);
    retired = retired_;
  }
  finishWaiters({false, 0, "the server is shutting down", {}, retired});
  setStopped();
}

}  // namespace berth::runtime
