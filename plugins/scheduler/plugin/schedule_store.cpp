#include "schedule_store.hpp"

#include <optional>

#include "cron_spec.hpp"

namespace berth::scheduler {

namespace {

constexpr const char* kColumns =
    "id, project_name, account_id, name, spec, path, enabled, created_at, next_run_at, "
    "last_run_at, last_status, last_ms, last_error";

// A row as stored (next_run_at included).
Schedule scheduleFrom(const berth::DbResult& r, int64_t row) {
  Schedule s;
  s.id = r.get<std::string>(row, "id");
  s.project = r.get<std::string>(row, "project_name");
  s.account_id = r.get<std::string>(row, "account_id");
  s.name = r.get<std::string>(row, "name");
  s.spec = r.get<std::string>(row, "spec");
  s.path = r.get<std::string>(row, "path");
  s.enabled = r.get<bool>(row, "enabled");
  s.created_at = r.get<int64_t>(row, "created_at");
  s.next_run_at = r.get<std::optional<int64_t>>(row, "next_run_at");
  s.last_run_at = r.get<std::optional<int64_t>>(row, "last_run_at");
  s.last_status = r.get<std::optional<int64_t>>(row, "last_status");
  s.last_ms = r.get<std::optional<int64_t>>(row, "last_ms");
  s.last_error = r.get<std::optional<std::string>>(row, "last_error");
  return s;
}

// The stored next run, unless no node has claimed it for longer than a run may be late (every
// node was down): then the run it will really make next.
std::optional<int64_t> shownNextRun(const Schedule& s, int64_t now) {
  if (!s.next_run_at || !s.enabled) return std::nullopt;
  if (now - *s.next_run_at < kMissedAfterSeconds) return s.next_run_at;
  CronParse parsed = CronSpec::parse(s.spec);
  if (!parsed.spec) return s.next_run_at;
  return parsed.spec->nextAfter(now - kMissedAfterSeconds);
}

// As the lists show it.
Schedule listedFrom(const berth::DbResult& r, int64_t row, int64_t now) {
  Schedule s = scheduleFrom(r, row);
  s.next_run_at = shownNextRun(s, now);
  return s;
}

nlohmann::json orNull(const std::optional<int64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// One lock per project around a count and an insert, so two creations (or ensures) at once
// cannot both take the last place, nor make the same name twice (a plain INSERT ... SELECT
// count(*) would not see each other).
void lockProject(berth::Transaction& tx, const std::string& project_id) {
  tx.exec("SELECT pg_advisory_xact_lock(hashtext('scheduler:create:' || $1))", project_id);
}

// Inserts under the project's lock (held by the caller); std::nullopt at the limit.
std::optional<Schedule> insertLocked(berth::Transaction& tx, const NewSchedule& s, int64_t limit) {
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
  return scheduleFrom(r, 0);
}

}  // namespace

std::optional<Schedule> ScheduleStore::insert(const NewSchedule& s, int64_t limit) const {
  return db_.transaction([&](berth::Transaction& tx) {
    lockProject(tx, s.project_id);
    return insertLocked(tx, s, limit);
  });
}

ScheduleStore::Ensured ScheduleStore::ensure(const NewSchedule& s, int64_t limit,
                                             int64_t now) const {
  return db_.transaction([&](berth::Transaction& tx) {
    lockProject(tx, s.project_id);
    Ensured out;
    auto found = tx.exec(std::string("SELECT ") + kColumns +
                             " FROM scheduler.schedules WHERE project_id = $1 AND name = $2 "
                             "ORDER BY seq LIMIT 1",
                         s.project_id, s.name);
    if (found.rows() == 0) {
      out.schedule = insertLocked(tx, s, limit);
      out.created = out.schedule.has_value();
      return out;
    }
    Schedule there = scheduleFrom(found, 0);
    if (there.spec == s.spec && there.path == s.path) {
      out.schedule = listedFrom(found, 0, now);
      return out;
    }
    // A new spec moves the next run (a paused schedule stays paused); a new path alone keeps it.
    auto changed = tx.exec(std::string("UPDATE scheduler.schedules SET spec = $2, path = $3, "
                                       "next_run_at = CASE WHEN NOT enabled THEN NULL "
                                       "WHEN spec = $2 THEN next_run_at ELSE $4 END "
                                       "WHERE id = $1 RETURNING ") +
                               kColumns,
                           there.id, s.spec, s.path, s.next_run_at);
    out.schedule = listedFrom(changed, 0, now);
    out.updated = true;
    return out;
  });
}

std::vector<Schedule> ScheduleStore::list(const berth::DbResult& r, int64_t now) const {
  std::vector<Schedule> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int64_t row = 0; row < r.rows(); ++row) out.push_back(listedFrom(r, row, now));
  return out;
}

std::vector<Schedule> ScheduleStore::listForProject(const std::string& project_id,
                                                    int64_t now) const {
  return list(db_.exec(std::string("SELECT ") + kColumns +
                           " FROM scheduler.schedules WHERE project_id = $1 ORDER BY seq",
                       project_id),
              now);
}

std::vector<Schedule> ScheduleStore::listForAccounts(const std::vector<std::string>& account_ids,
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

int64_t ScheduleStore::removeNamed(const std::string& project_id, const std::string& name) const {
  return db_.transaction([&](berth::Transaction& tx) {
    auto r =
        tx.exec("DELETE FROM scheduler.schedules WHERE project_id = $1 AND name = $2 RETURNING id",
                project_id, name);
    for (int64_t row = 0; row < r.rows(); ++row)
      tx.exec("DELETE FROM scheduler.runs WHERE schedule_id = $1", r.get<std::string>(row, 0));
    return r.rows();
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
