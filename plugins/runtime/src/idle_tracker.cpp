#include "idle_tracker.hpp"

namespace berth::runtime {

void IdleTracker::touch(const std::string& project, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto& last = last_request_[project];
  if (now > last) last = now;
}

std::vector<std::string> IdleTracker::takeIdle(Clock::time_point now) {
  std::vector<std::string> idle;
  std::lock_guard lock(mutex_);
  for (auto it = last_request_.begin(); it != last_request_.end();) {
    if (now - it->second >= idle_stop_) {
      idle.push_back(it->first);
      it = last_request_.erase(it);
    } else {
      ++it;
    }
  }
  return idle;
}

void IdleTracker::forget(const std::string& project) {
  std::lock_guard lock(mutex_);
  last_request_.erase(project);
}

}  // namespace berth::runtime
