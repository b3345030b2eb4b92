#include "schedule_writes.hpp"

#include <utility>

#include "schedule_rules.hpp"

namespace berth::scheduler {

namespace {

NewSchedule newSchedule(const Project& project, const std::string& account_id,
                        const ScheduleFields& fields, int64_t now) {
  NewSchedule s;
  s.project_id = project.id;
  s.project_name = project.name;
  s.project_account_id = project.account_id;
  s.account_id = account_id;
  s.name = fields.name;
  s.spec = fields.spec;
  s.path = fields.path;
  s.created_at = now;
  s.next_run_at = fields.firstRunAfter(now);
  return s;
}

// Runs write(s) with a fresh id in s.id. 192 random bits do not collide; a second draw costs
// nothing if they ever do.
template <class Write>
auto withFreshId(NewSchedule& s, Write write) {
  for (int attempt = 0;; ++attempt) {
    s.id = newScheduleId();
    try {
      return write(s);
    } catch (const berth::DbError& e) {
      if (!e.isUniqueViolation() || attempt > 0) throw;
    }
  }
}

}  // namespace

Schedule createSchedule(const Context& c, const Project& project, const std::string& account_id,
                        const ScheduleFields& fields) {
  const int64_t now = c.settings.clock.nowSeconds();
  NewSchedule s = newSchedule(project, account_id, fields, now);
  const int64_t limit = c.settings.max_schedules_per_project;
  std::optional<Schedule> created = withFreshId(
      s, [&](const NewSchedule& fresh) { return ScheduleStore(c.db()).insert(fresh, limit); });
  if (!created) throw scheduleLimitReached(limit);
  if (c.wake_runner) c.wake_runner();
  return std::move(*created);
}

ScheduleStore::Ensured ensureSchedule(const Context& c, const Project& project,
                                      const std::string& account_id, const ScheduleFields& fields) {
  const int64_t now = c.settings.clock.nowSeconds();
  NewSchedule s = newSchedule(project, account_id, fields, now);
  const int64_t limit = c.settings.max_schedules_per_project;
  ScheduleStore::Ensured ensured = withFreshId(
      s, [&](const NewSchedule& fresh) { return ScheduleStore(c.db()).ensure(fresh, limit, now); });
  if (!ensured.schedule) throw scheduleLimitReached(limit);
  if ((ensured.created || ensured.updated) && c.wake_runner) c.wake_runner();
  return ensured;
}

}  // namespace berth::scheduler
