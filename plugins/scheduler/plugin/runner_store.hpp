// The runner's SQL: claiming due runs so that each happens once across every node, and
// writing what the runs got (last_* of the schedule, the run history of 50 per schedule).
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cron_spec.hpp"

namespace berth::scheduler {

struct ClaimedRun {
  std::string schedule_id;
  std::string project;  // name
  std::string path;
  int64_t due_at = 0;  // scheduler seconds
};

struct FinishedRun {
  std::string schedule_id;
  int64_t due_at = 0;
  int64_t started_at = 0;  // scheduler seconds
  std::optional<int> status;
  int64_t ms = 0;
  std::optional<std::string> error;
};

// Parsed specs by text: thousands of schedules share a handful of specs.
class SpecCache {
 public:
  const CronSpec* get(const std::string& text);

 private:
  std::unordered_map<std::string, std::optional<CronSpec>> specs_;
};

class RunnerStore {
 public:
  explicit RunnerStore(berth::Db db) : db_(db) {}

  // Claims up to `limit` runs due at `now` (scheduler seconds) and moves each schedule's
  // next_run_at to its following run. A run more than kMissedAfterSeconds late is not made
  // (every node was down): only its next_run_at moves. A node claims a row only if its
  // next_run_at is still the value read (locked with SKIP LOCKED, so nodes never wait on each
  // other), so each run goes to exactly one node. `seen` says how many due rows were read:
  // fewer than `limit` means nothing more is due.
  std::vector<ClaimedRun> claimDue(int64_t now, int limit, size_t& seen);

  // The earliest next_run_at of an enabled schedule, if any.
  std::optional<int64_t> earliestNextRun() const;

  // Writes finished runs: a history row each (trimmed to the newest 50 per schedule) and the
  // schedule's last_* fields from its latest run. Runs of removed schedules are dropped.
  void record(const std::vector<FinishedRun>& runs) const;

 private:
  berth::Db db_;
  SpecCache specs_;
};

}  // namespace berth::scheduler
