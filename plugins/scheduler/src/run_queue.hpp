// Claimed runs waiting for a free slot on this node. At most `max_running` run at once, and at
// most `max_running_per_project` for one project, taken round-robin across projects, so a
// project whose requests hang (or that has thousands of schedules) cannot hold back the runs
// of the others. A run that waits longer than the run time limit is given up (expire()), so
// the queue stays bounded however slow a project is.
//
// THREADING: not thread-safe; the runner's HTTP thread owns it.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace berth::scheduler {

struct PendingRun {
  std::string schedule_id;
  std::string project;  // the project's name
  std::string path;
  int64_t due_at = 0;          // the minute it runs for, scheduler seconds
  int64_t queued_real_ms = 0;  // when it was claimed, wall clock
};

class RunQueue {
 public:
  RunQueue(size_t max_running, size_t max_running_per_project);

  void push(PendingRun run);
  // The next run allowed to start now, counted as running; nothing when every slot is taken
  // or every waiting project is at its own limit.
  std::optional<PendingRun> startNext();
  // A run of `project` ended (successfully or not).
  void finished(const std::string& project);
  // Removes and returns the runs that have waited `limit_ms` or longer.
  std::vector<PendingRun> expire(int64_t now_real_ms, int64_t limit_ms);

  size_t waiting() const { return waiting_; }
  size_t running() const { return running_; }

 private:
  struct Lane {
    std::deque<PendingRun> waiting;
    size_t running = 0;
    bool ready = false;  // listed in ready_
  };
  void markReady(const std::string& project, Lane& lane);
  void dropIfIdle(const std::string& project);

  size_t max_running_;
  size_t max_per_project_;
  size_t waiting_ = 0;
  size_t running_ = 0;
  std::unordered_map<std::string, Lane> lanes_;
  std::deque<std::string> ready_;  // projects with waiting runs and a free slot of their own
};

}  // namespace berth::scheduler
