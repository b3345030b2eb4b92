#include "runner_store.hpp"

#include <map>

#include "schedule_store.hpp"

namespace berth::scheduler {

const CronSpec* SpecCache::get(const std::string& text) {
  auto it = specs_.find(text);
  if (it == specs_.end()) {
    if (specs_.size() > 10000) specs_.clear();  // bounded: specs are few in practice
    it = specs_.emplace(text, CronSpec::parse(text).spec).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::vector<ClaimedRun> RunnerStore::claimDue(int64_t now, int limit, size_t& seen) {
  auto due = db_.exec(
      "SELECT id, spec, next_run_at FROM scheduler.schedules "
      "WHERE enabled AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2",
      now, limit);
  seen = static_cast<size_t>(due.rows());
  if (due.rows() == 0) return {};

  nlohmann::json claims = nlohmann::json::array();
  for (int64_t row = 0; row < due.rows(); ++row) {
    int64_t old = due.get<int64_t>(row, 2);
    bool run = now - old < kMissedAfterSeconds;
    const CronSpec* spec = specs_.get(due.get<std::string>(row, 1));
    // Late past its minute: skip to the first run whose minute is not over yet.
    std::optional<int64_t> next =
        spec ? spec->nextAfter(run ? old : now - kMissedAfterSeconds) : std::nullopt;
    claims.push_back({{"id", due.get<std::string>(row, 0)},
                      {"old", old},
                      {"next", next ? nlohmann::json(*next) : nlohmann::json(nullptr)},
                      {"run", run}});
  }
  // A spec that never runs again (none is accepted, but a row could be edited by hand) pauses
  // its schedule rather than being read again on every pass.
  auto claimed = db_.exec(
      "WITH c AS (SELECT * FROM jsonb_to_recordset($1::jsonb) "
      "           AS c(id text, old bigint, next bigint, run boolean)), "
      "locked AS (SELECT s.id FROM scheduler.schedules s JOIN c ON s.id = c.id "
      "           WHERE s.enabled AND s.next_run_at = c.old "
      "           ORDER BY s.id FOR UPDATE OF s SKIP LOCKED) "
      "UPDATE scheduler.schedules s SET next_run_at = c.next, enabled = c.next IS NOT NULL "
      "FROM c, locked WHERE s.id = c.id AND s.id = locked.id "
      "RETURNING s.id, s.project_name, s.path, c.old, c.run",
      claims);
  std::vector<ClaimedRun> runs;
  for (int64_t row = 0; row < claimed.rows(); ++row) {
    if (!claimed.get<bool>(row, 4)) continue;
    runs.push_back({claimed.get<std::string>(row, 0), claimed.get<std::string>(row, 1),
                    claimed.get<std::string>(row, 2), claimed.get<int64_t>(row, 3)});
  }
  return runs;
}

std::optional<int64_t> RunnerStore::earliestNextRun() const {
  return db_.exec("SELECT min(next_run_at) FROM scheduler.schedules WHERE enabled")
      .get<std::optional<int64_t>>(0, 0);
}

void RunnerStore::record(const std::vector<FinishedRun>& runs) const {
  if (runs.empty()) return;
  nlohmann::json all = nlohmann::json::array();
  std::map<std::string, const FinishedRun*> latest;  // ordered: rows are locked by id
  for (const auto& run : runs) {
    all.push_back({{"id", run.schedule_id},
                   {"due", run.due_at},
                   {"at", run.started_at},
                   {"status", run.status ? nlohmann::json(*run.status) : nlohmann::json(nullptr)},
                   {"ms", run.ms},
                   {"error", run.error ? nlohmann::json(*run.error) : nlohmann::json(nullptr)}});
    auto& slot = latest[run.schedule_id];
    if (slot == nullptr || slot->started_at <= run.started_at) slot = &run;
  }
  nlohmann::json last = nlohmann::json::array();
  for (const auto& [id, run] : latest)
    last.push_back(
        {{"id", id},
         {"at", run->started_at},
         {"status", run->status ? nlohmann::json(*run->status) : nlohmann::json(nullptr)},
         {"ms", run->ms},
         {"error", run->error ? nlohmann::json(*run->error) : nlohmann::json(nullptr)}});

  db_.transaction([&](berth::Transaction& tx) {
    // Lock in id order, so two nodes writing runs of the same schedules never deadlock.
    tx.exec(
        "SELECT id FROM scheduler.schedules WHERE id IN "
        "(SELECT x.id FROM jsonb_to_recordset($1::jsonb) AS x(id text)) ORDER BY id FOR UPDATE",
        last);
    tx.exec(
        "UPDATE scheduler.schedules s SET last_run_at = r.at, last_status = r.status, "
        "last_ms = r.ms, last_error = r.error "
        "FROM jsonb_to_recordset($1::jsonb) AS r(id text, at bigint, status int, ms bigint, "
        "error text) WHERE s.id = r.id AND (s.last_run_at IS NULL OR s.last_run_at <= r.at)",
        last);
    tx.exec(
        "INSERT INTO scheduler.runs (schedule_id, due_at, started_at, status, ms, error) "
        "SELECT r.id, r.due, r.at, r.status, r.ms, r.error "
        "FROM jsonb_to_recordset($1::jsonb) AS r(id text, due bigint, at bigint, status int, "
        "ms bigint, error text) "
        "WHERE EXISTS (SELECT 1 FROM scheduler.schedules s WHERE s.id = r.id) ORDER BY r.at",
        all);
    tx.exec(
        "DELETE FROM scheduler.runs x USING "
        "(SELECT y.id FROM jsonb_to_recordset($1::jsonb) AS y(id text)) d "
        "WHERE x.schedule_id = d.id AND x.seq < (SELECT z.seq FROM scheduler.runs z "
        "WHERE z.schedule_id = d.id ORDER BY z.seq DESC OFFSET 49 LIMIT 1)",
        last);
  });
}

}  // namespace berth::scheduler
