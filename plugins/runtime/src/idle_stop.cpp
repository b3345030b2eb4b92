#include "idle_stop.hpp"

namespace berth::runtime {

void IdleStop::touch(const std::string& project_id, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  Activity& activity = projects_[project_id];
  if (now > activity.last) activity.last = now;
}

void IdleStop::forget(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  projects_.erase(project_id);
}

IdleStop::Round IdleStop::round(const std::set<std::string>& published,
                                std::chrono::seconds idle_stop, Clock::time_point now) {
  Round out;
  std::lock_guard lock(mutex_);
  const std::optional<Clock::time_point> previous = last_round_;
  last_round_ = now;
  if (previous && now - *previous > kStallAfter) {
    const auto stalled = now - *previous - kRoundPeriod;
    for (auto& [id, activity] : projects_) {
      activity.last += stalled;
      if (activity.unpublished_at) *activity.unpublished_at += stalled;
    }
    return out;
  }
  for (auto it = projects_.begin(); it != projects_.end();) {
    const std::string& id = it->first;
    Activity& activity = it->second;
    if (activity.unpublished_at) {
      if (activity.last > *activity.unpublished_at) {
        // Someone came while the rule was going: the app stays, its traffic direct again.
        activity.unpublished_at.reset();
        out.republish.push_back(id);
      } else if (now - *activity.unpublished_at >= kEdgeReload) {
        out.stop.push_back(id);
        it = projects_.erase(it);  // touched again by its next request
        continue;
      }
    } else if (now - activity.last >= idle_stop) {
      if (published.contains(id)) {
        activity.unpublished_at = now;
        out.unpublish.push_back(id);
      } else {
        out.stop.push_back(id);
        it = projects_.erase(it);
        continue;
      }
    }
    ++it;
  }
  return out;
}

}  // namespace berth::runtime
