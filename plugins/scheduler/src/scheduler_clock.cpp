#include "scheduler_clock.hpp"

#include <chrono>

#include "civil_time.hpp"

namespace berth::scheduler {

SchedulerClock::SchedulerClock(int64_t minute_ms)
    : minute_ms_(minute_ms > 0 ? minute_ms : kRealMinuteMs) {}

int64_t SchedulerClock::toSchedulerMs(int64_t real_ms) const {
  if (isWallClock()) return real_ms;
  return kAnchorMs + floorDiv((real_ms - kAnchorMs) * kRealMinuteMs, minute_ms_);
}

int64_t SchedulerClock::toRealMs(int64_t scheduler_ms) const {
  if (isWallClock()) return scheduler_ms;
  int64_t scaled = (scheduler_ms - kAnchorMs) * minute_ms_;
  return kAnchorMs + floorDiv(scaled + kRealMinuteMs - 1, kRealMinuteMs);
}

int64_t SchedulerClock::realNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t SchedulerClock::nowSeconds() const {
  return floorDiv(nowMs(), 1000);
}

}  // namespace berth::scheduler
