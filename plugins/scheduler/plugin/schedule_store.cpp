#include "schedule_store.hpp"

#include <optional>

#include "cron_spec.hpp"

namespace berth::scheduler {

namespace {

constexpr const char* kColumns =
    "id, project_name, account_id, name, spec, path, enabled, created_at, next_run_at, "
    "last_run_at, last_status, last_ms, last_error";

nlohmann::json orNull(const std::optional<int64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json scheduleJson(const berth::DbResult& r, int64_t row) {
  auto error = r.get<std::optional<std::string>>(row, "last_error");
  return {{"id", r.get<std::string>(row, "id")},
          {"project", r.get<std::string>(row, "project_name")},
          {"account_id", r.get<std::string>(row, "account_id")},
          {"name", r.get<std::string>(row, "name")},
          {"spec", r.get<std::string>(row, "spec")},
          {"path", r.get<std::string>(row, "path")},
          {"enabled", r.get<bool>(row, "enabled")},
          {"created_at", r.get<int64_t>(row, "created_at")},
          {"last_run_at", orNull(r.get<std::optional<int64_t>>(row, "last_run_at"))},
          {"last_status", orNull(r.get<std::optional<int64_t>>(row, "last_status"))},
          {"last_ms", orNull(r.get<std::optional<int64_t>>(row, "last_ms"))},
          {"last_error", error ? nlohmann::json(*error) : nlohmann::json(nullptr)}};
}

// The stored next run, unless no node has claimed it for longer than a run may be late (every
// node was down): then the run it will really make next.
nlohmann::json shownNextRun(const berth::DbResult& r, int64_t row, int64_t now) {
  auto stored = r.get<std::optional<int64_t>>(row, "next_run_at");
  if (!stored || !r.get<bool>(row, "enabled")) return nullptr;
  if (now - *stored < kMissedAfterSeconds) return *stored;
  CronParse parsed = CronSpec::parse(r.get<std::string>(row, "spec"));
  if (!parsed.spec) return *stored;
  return orNull(parsed.spec->nextAfter(now - kMissedAfterSeconds));
}

}  // namespace

std::optional<nlohmann::json> ScheduleStore::insert(const NewSchedule& s, int64_t limit) const {
  // One lock per project around the count and the insert, so two creations at once cannot
  // both take the last place (a plain INSERT ... SELECT count(*) would not see each other).
  return db_.transaction([&](berth::Transaction& tx) -> std::optional<nlohmann::json> {
    tx.exec("SELECT pg_advisory_xact_lock(hashtext('scheduler:create:' || $1))", s.project_id);
    int64_t count =
        tx.exec("SELECT count(*) FROM scheduler.schedules WHERE project_id = $1", s.project_id)
            .get<int64_t>(0, 0);
    if (count >= limit) return std::nullopt;
    auto r = tx.exec(std::string("INSERT INTO scheduler.schedules (id, project_id, project_name, "
                                 "project_account_id, account_id, name, spec, path, created_at, "
                                 "next_run_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                                 "RETURNING ") +
                         kColumns,
                     s.id, s.project_id, s.project_name, s.project_account_id, s.account_id, s.name,
                     s.spec, s.path, s.created_at, s.next_run_at);
    return scheduleJson(r, 0);
  });
}

nlohmann::json ScheduleStore::list(const berth::DbResult& r, int64_t now) const {
  nlohmann::json out = nlohmann::json::array();
  for (int64_t row = 0; row < r.rows(); ++row) {
    nlohmann::json schedule = scheduleJson(r, row);
    schedule["next_run_at"] = shownNextRun(r, row, now);
    out.push_back(std::move(schedule));
  }
  return out;
}

nlohmann::json ScheduleStore::listForProject(const std::string& project_id, int64_t now) const {
  return list(db_.exec(std::string("SELECT ") + kColumns +
                           " FROM scheduler.schedules WHERE project_id = $1 ORDER BY seq",
                       project_id),
              now);
}

nlohmann::json ScheduleStore::listForAccounts(const std::vector<std::string>& account_ids,
                                              int64_t now) const {
  return list(db_.exec(std::string("SELECT ") + kColumns +
                           " FROM scheduler.schedules WHERE project_account_id IN "
                           "(SELECT jsonb_array_elements_text($1::jsonb)) "
                           "ORDER BY project_name, seq",
                       nlohmann::json(account_ids)),
              now);
}

bool ScheduleStore::setEnabled(const std::string& project_id, const std::string& id, bool enabled,
                               int64_t next_run_at) const {
  auto r = enabled
               ? db_.exec(
                     "UPDATE scheduler.schedules SET next_run_at = CASE WHEN enabled THEN "
                     "next_run_at ELSE $3 END, enabled = true WHERE id = $1 AND project_id = $2",
                     id, project_id, next_run_at)
               : db_.exec(
                     "UPDATE scheduler.schedules SET enabled = false, next_run_at = NULL "
                     "WHERE id = $1 AND project_id = $2",
                     id, project_id);
  return r.affected() > 0;
}

bool ScheduleStore::remove(const std::string& project_id, const std::string& id) const {
  return db_.transaction([&](berth::Transaction& tx) {
    auto r = tx.exec("DELETE FROM scheduler.schedules WHERE id = $1 AND project_id = $2", id,
                     project_id);
    if (r.affected() == 0) return false;
    tx.exec("DELETE FROM scheduler.runs WHERE schedule_id = $1", id);
    return true;
  });
}

bool ScheduleStore::exists(const std::string& project_id, const std::string& id) const {
  return db_.exec("SELECT 1 FROM scheduler.schedules WHERE id = $1 AND project_id = $2", id,
                  project_id)
             .rows() > 0;
}

nlohmann::json ScheduleStore::runs(const std::string& id) const {
  auto r = db_.exec(
      "SELECT due_at, started_at, status, ms, error FROM scheduler.runs WHERE schedule_id = $1 "
      "ORDER BY seq DESC LIMIT 50",
      id);
  nlohmann::json out = nlohmann::json::array();
  for (int64_t row = 0; row < r.rows(); ++row) {
    auto error = r.get<std::optional<std::string>>(row, "error");
    out.push_back({{"due_at", r.get<int64_t>(row, "due_at")},
                   {"at", r.get<int64_t>(row, "started_at")},
                   {"status", orNull(r.get<std::optional<int64_t>>(row, "status"))},
                   {"ms", r.get<int64_t>(row, "ms")},
                   {"error", error ? nlohmann::json(*error) : nlohmann::json(nullptr)}});
  }
  return out;
}

int64_t ScheduleStore::removeProject(const std::string& project_id) const {
  return db_.transaction([&](berth::Transaction& tx) {
    tx.exec(
        "DELETE FROM scheduler.runs WHERE schedule_id IN "
        "(SELECT id FROM scheduler.schedules WHERE project_id = $1)",
        project_id);
    return tx.exec("DELETE FROM scheduler.schedules WHERE project_id = $1", project_id).affected();
  });
}

std::vector<std::pair<std::string, std::string>> ScheduleStore::projects() const {
  auto r = db_.exec("SELECT DISTINCT project_id, project_name FROM scheduler.schedules");
  std::vector<std::pair<std::string, std::string>> out;
  for (int64_t row = 0; row < r.rows(); ++row)
    out.emplace_back(r.get<std::string>(row, 0), r.get<std::string>(row, 1));
  return out;
}

int64_t ScheduleStore::sweepOrphanRuns() const {
  return db_
      .exec(
          "DELETE FROM scheduler.runs r WHERE NOT EXISTS "
          "(SELECT 1 FROM scheduler.schedules s WHERE s.id = r.schedule_id)")
      .affected();
}

}  // namespace berth::scheduler
