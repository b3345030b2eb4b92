// The scheduler's time. In production it is the wall clock. For tests, `scheduler.minute_ms`
// makes a scheduler minute last that many real milliseconds: scheduler time then runs
// 60000 / minute_ms times faster than the wall clock, counted from a fixed anchor (so every
// node with the same setting agrees on it), and a `* * * * *` schedule fires every minute_ms.
// Every time the scheduler stores or shows (next_run_at, last_run_at, run history) is
// scheduler time; durations (last_ms, the run timeout) stay real.
#pragma once
#include <cstdint>

namespace berth::scheduler {

class SchedulerClock {
 public:
  static constexpr int64_t kRealMinuteMs = 60000;
  // 2026-01-01T00:00:00Z: where a fast clock and the wall clock agree.
  static constexpr int64_t kAnchorMs = 1767225600000;

  explicit SchedulerClock(int64_t minute_ms = kRealMinuteMs);

  int64_t minuteMs() const { return minute_ms_; }
  bool isWallClock() const { return minute_ms_ == kRealMinuteMs; }

  // Scheduler time for a wall-clock time, both in Unix milliseconds, and back (rounded up,
  // so waiting until toRealMs(t) reaches scheduler time t).
  int64_t toSchedulerMs(int64_t real_ms) const;
  int64_t toRealMs(int64_t scheduler_ms) const;

  static int64_t realNowMs();
  int64_t nowMs() const { return toSchedulerMs(realNowMs()); }
  int64_t nowSeconds() const;

 private:
  int64_t minute_ms_;
};

}  // namespace berth::scheduler
