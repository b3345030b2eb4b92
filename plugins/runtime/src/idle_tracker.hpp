// Scale to zero: when each project last had a request, and which have been idle for longer
// than runtime.idle_stop_seconds (their processes are stopped; the next request starts them).
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace berth::runtime {

class IdleTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit IdleTracker(std::chrono::seconds idle_stop) : idle_stop_(idle_stop) {}

  // A request reached the project (called for every request, so it only takes a lock).
  void touch(const std::string& project, Clock::time_point now = Clock::now());
  // Projects idle for at least idle_stop at `now`; they are forgotten until touched again, so
  // each is reported once per idle period.
  std::vector<std::string> takeIdle(Clock::time_point now = Clock::now());
  void forget(const std::string& project);  // stopped or deleted for another reason

 private:
  std::chrono::seconds idle_stop_;
  std::mutex mutex_;
  std::map<std::string, Clock::time_point> last_request_;
};

}  // namespace berth::runtime
