// nginx as berthd's supervised edge: started, reloaded when routing changes, restarted when it
// dies, stopped on exit.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include <berth/util/access_line.hpp>

#include "edge/nginx_config.hpp"
#include "util/process.hpp"

namespace berth::core {

class EdgePins;

class Edge {
 public:
  Edge(std::string nginx_binary, EdgeLayout layout);
  ~Edge();  // stop()

  // Writes the config, checks it with `nginx -t`, starts nginx in the foreground as a child
  // (daemon off, master process on) and a supervisor thread that restarts it if it exits.
  // Waits until it accepts connections on layout.listen. Throws std::runtime_error with
  // nginx's own output when the config is refused or the port is taken.
  void start();
  // Routing changes. Each is checked at once (a host or rule that cannot be rendered is logged
  // and changes nothing); the new config is then written, checked with `nginx -t` and loaded
  // with SIGHUP by a reloader thread that coalesces bursts: a change waits for 100 ms of
  // quiet (at most 1 s), so many changes in a moment cost one reload.
  void setCustomHosts(std::vector<std::string> hosts);
  void setCacheRules(std::vector<EdgeCacheRule> rules);
  void setFilesRules(std::vector<EdgeFilesRule> rules);
  void setAppRules(std::vector<EdgeAppRule> rules);
  // Waits until every change made before the call has been loaded or refused; false on
  // timeout. For tests, and for callers that need the edge to reflect what they set.
  bool settle(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  void stop();        // SIGQUIT (graceful), then SIGKILL after a few seconds
  void reopenLogs();  // SIGUSR1: nginx reopens its log files (AccessLogTail rotates)
  pid_t pid() const;
  int restarts() const { return restarts_.load(); }
  int reloads() const { return reloads_.load(); }  // SIGHUPs sent for routing changes
  const std::string& configPath() const { return config_path_; }

 private:
  void writeConfig();
  void supervise();
  void change(const std::function<void(EdgeLayout&)>& edit, const char* what);
  void reloadLoop();
  void reload(std::unique_lock<std::mutex>& lock);  // called with mutex_ held

  std::string binary_;
  EdgeLayout layout_;
  std::string config_path_;
  mutable std::mutex mutex_;
  Child child_;
  std::thread supervisor_;
  std::thread reloader_;
  std::condition_variable changed_;  // with mutex_: a change, a reload done, or stopping
  uint64_t wanted_generation_ = 0;   // bumped by each accepted change
  uint64_t loaded_generation_ = 0;   // the change the config file reflects
  std::chrono::steady_clock::time_point first_pending_, last_change_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> restarts_{0};
  std::atomic<int> reloads_{0};
  // Set when this nginx needs its workers pinned through reloads (edge_pins.hpp).
  std::unique_ptr<EdgePins> pins_;
};

// One line of nginx's access log, parsed (berthd itself passes lines on unparsed; this is the
// format's reference, which the edge tests check nginx's real lines against).
// The form of a line of the access log lives in the SDK (edge.access payloads).
using AccessEntry = berth::AccessLine;

// nginx's access log is a file it writes in buffered batches, one JSON object per line in
// the form of the edge.access event's payload; berthd follows it on a thread, calling back
// for each finished line as it is (so a line costs berthd no JSON work of its own). Batches cost
// nginx one write per buffer instead of a syslog datagram per request, and unlike datagrams (the
// kernel queues about ten per socket) no line is dropped while berthd is busy or stalled.
//
// The file is rotated at `rotate_bytes`: renamed to "<path>.1", nginx told to reopen its logs
// (`reopen`, SIGUSR1), and the old file read to its end until nginx has moved to the new one
// (it exists) and its workers have flushed; then removed. A "<path>.1" left by an earlier
// run is read first.
class AccessLogTail {
 public:
  using Callback = std::function<void(std::string_view line)>;
  static constexpr uint64_t kRotateBytes = 64ull * 1024 * 1024;
  AccessLogTail(std::string path, Callback callback, uint64_t rotate_bytes = kRotateBytes);
  ~AccessLogTail();
  void setReopen(std::function<void()> reopen);  // before start()
  void start();  // reads what the file already holds (an earlier run's last lines), then follows
  void stop();   // reads what is there, once more

 private:
  struct Source;
  void run();
  bool drain(Source& source);  // true when it read anything

  std::string path_;
  Callback callback_;
  uint64_t rotate_bytes_;
  std::function<void()> reopen_;
  std::atomic<bool> stopping_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

// A line of ours, by its shape: {"request_id":"...", ...}.
bool isAccessLine(std::string_view line);
using berth::parseAccessLine;  // false when a line is not ours

}  // namespace berth::core
