// One project's app process: started on demand on a free loopback port, held until it accepts
// connections (or its readiness path answers), stopped with SIGTERM then SIGKILL, restarted
// with back-off after a crash, its output kept in a bounded ring of lines.
//
// Each AppProcess has one supervisor thread that does every fork: PR_SET_PDEATHSIG fires when
// the spawning thread ends, so the child must come from a thread that lives as long as it.
// Callers never block on a start unless they ask to (startAndWait): start() takes a callback,
// and every caller arriving during one start shares it.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "app_environment.hpp"
#include "child_process.hpp"
#include "line_ring.hpp"
#include "sandbox.hpp"

namespace berth::runtime {

struct RestartPolicy {
  std::chrono::milliseconds first_delay{1000};
  std::chrono::milliseconds max_delay{30000};
  // A process that ran this long before crashing counts as healthy: the delay starts over.
  std::chrono::milliseconds stable_after{60000};
};

// Delay before restart number `consecutive_crashes` (1 = first crash): first_delay doubled
// each time, at most max_delay.
std::chrono::milliseconds restartDelay(const RestartPolicy& policy, int consecutive_crashes);

struct AppSpec {
  std::string project;                    // names the project in events
  std::vector<std::string> argv;          // "$PORT" / "${PORT}" expanded at each start
  std::string release_dir;                // working folder (read-only in the sandbox)
  std::string home;                       // the project's writable folder: HOME, TMPDIR
  AppEnvironmentInput environment;        // release_dir, home and port are filled in at start
  std::optional<RunAs> run_as;            // the project's uid/gid; required when root
  std::optional<SandboxOptions> sandbox;  // bubblewrap when set
  // Folders shown read-only at their own path in the sandbox (the project's start options;
  // checked to be under the runtime's shared folder).
  std::vector<std::string> read_only_paths;
  // runtime.unsafe_run_without_sandbox let it run without bubblewrap: every start says so.
  bool warn_unsandboxed = false;
  std::optional<std::string> readiness_path;
  std::chrono::milliseconds start_timeout{30000};
  std::chrono::milliseconds stop_grace{5000};
  // Before a running app is signalled: requests already handed to it (its port given out, a
  // connection to it open) get this long to finish.
  std::chrono::milliseconds drain_timeout{5000};
  RestartPolicy restart;
  std::size_t ring_lines = 200;
};

struct StartOutcome {
  bool ready = false;
  std::uint16_t port = 0;
  std::string error;                    // why it did not start (for the 503)
  std::vector<std::string> last_lines;  // the app's last output lines when it did not
  // Not ready because it was stopped (a restart, or retire() and destruction) rather than
  // because it failed: the caller may ask what is live now instead of failing the request.
  bool superseded = false;
};

enum class AppState { Stopped, Starting, Running, Restarting };
std::string_view stateName(AppState state);  // "stopped", "starting", "running", "restarting"

class AppProcess {
 public:
  using LineSink = std::function<void(std::string_view line)>;      // every line it prints
  using EventSink = std::function<void(std::string_view message)>;  // start, stop, crash
  using Done = std::function<void(const StartOutcome&)>;

  AppProcess(AppSpec spec, LineSink on_line = {}, EventSink on_event = {});
  ~AppProcess();  // stops the process (with the grace period) and the thread
  AppProcess(const AppProcess&) = delete;
  AppProcess& operator=(const AppProcess&) = delete;

  // Starts it unless running; `done` is called once (from the supervisor thread, or at once
  // when already running) with the outcome shared by every caller of the same start.
  void start(Done done);
  StartOutcome startAndWait();
  // SIGTERM, grace period, SIGKILL; returns once it is stopped.
  void stop();
  // A secret changed: the new environment is used from the next start, and an app that is
  // running (or starting) is restarted now. Returns once the new start has been asked for.
  void setEnvironment(AppEnvironmentInput environment);
  // What the next start uses (what the running process got, unless setEnvironment since).
  AppEnvironmentInput environment() const;
  // It is being replaced (another release, a deletion): callers still waiting for its start
  // when it goes hear superseded, and its requests in flight are drained first. Without it
  // the destructor (berthd stopping) stops at once.
  void retire();

  AppState state() const;
  std::uint16_t port() const;             // 0 unless running
  int starts() const { return starts_; }  // processes started so far (restarts included)
  int crashes() const { return crashes_total_; }
  std::vector<std::string> lastLines(std::size_t count) const { return lines_.last(count); }

 private:
  void run();
  StartOutcome launch();
  bool waitForStopOrFor(std::chrono::milliseconds delay);  // true when a stop came
  void drain(std::uint16_t port);
  void finishWaiters(const StartOutcome& outcome);
  void readOutput(int fd);
  void event(const std::string& message);
  void wakeSupervisor();

  AppSpec spec_;
  LineSink on_line_;
  EventSink on_event_;
  LineRing lines_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool want_running_ = false;
  bool shutdown_ = false;
  bool retired_ = false;
  bool draining_ = false;  // stopping: running still, but its port is given out no more
  // When its port was last given out: nginx connects a moment later.
  std::chrono::steady_clock::time_point handed_out_{};
  AppState state_ = AppState::Stopped;
  // stop() waits for the next stop, not for the Stopped state: a start() right after the
  // supervisor stopped may turn Stopped into Starting before the waiter looks, and a start()
  // before it stopped keeps it running. Counted here: stop() and start() calls (a later one
  // replaces the stop waited for), and the supervisor's stops.
  std::uint64_t wishes_ = 0;
  std::uint64_t stops_ = 0;
  std::uint16_t port_ = 0;
  std::vector<Done> waiters_;

  int wake_fd_ = -1;  // eventfd: interrupts the supervisor's waits on stop and shutdown
  pid_t pid_ = -1;    // only the supervisor thread reads and writes it
  std::atomic<int> starts_{0};
  std::atomic<int> crashes_total_{0};
  std::atomic<bool> reader_stop_{false};
  std::thread reader_;
  std::thread supervisor_;
};

}  // namespace berth::runtime
