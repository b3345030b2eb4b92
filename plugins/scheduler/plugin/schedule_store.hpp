// The schedules the API and scheduler.schedules.v1 read and change, in the control-plane table
// scheduler.schedules. A schedule comes out as the contract's Schedule
// (<berth/services/scheduler_schedules.hpp>), whose toJson is the Schedule of docs/openapi.yaml.
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/scheduler_schedules.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace berth::scheduler {

// Runs that waited this long past their minute are missed, not run (docs/openapi.yaml,
// POST /projects/{name}/schedules: runs missed while the platform was down are not replayed).
// In scheduler seconds.
inline constexpr int64_t kMissedAfterSeconds = 60;

using Schedule = berth::scheduler_schedules::Schedule;

struct NewSchedule {
  std::string id, project_id, project_name, project_account_id, account_id, name, spec, path;
  int64_t created_at = 0;
  int64_t next_run_at = 0;
};

class ScheduleStore {
 public:
  explicit ScheduleStore(berth::Db db) : db_(db) {}

  // Stores it enabled with last_* null and returns it as stored, unless the project already
  // has `limit` schedules: then nothing is stored (std::nullopt).
  std::optional<Schedule> insert(const NewSchedule& schedule, int64_t limit) const;

  // What ensure did: schedule is std::nullopt when it would have made one over the limit.
  struct Ensured {
    std::optional<Schedule> schedule;  // as the lists show it
    bool created = false;
    bool updated = false;
  };
  // The project's oldest schedule called schedule.name: made (as insert, under `limit`) when
  // there is none; its spec and path changed in place when either differs (next_run_at from
  // `schedule` when the spec changed and it is enabled); else left. Under insert's lock, so
  // two ensures at once make one schedule. `now` is scheduler seconds.
  Ensured ensure(const NewSchedule& schedule, int64_t limit, int64_t now) const;

  // Schedules with next_run_at (null while paused), in creation order; `now` is scheduler
  // seconds.
  std::vector<Schedule> listForProject(const std::string& project_id, int64_t now) const;
  // Every schedule of projects owned by these accounts, by project name then creation.
  std::vector<Schedule> listForAccounts(const std::vector<std::string>& account_ids,
                                        int64_t now) const;
  // Pauses, or resumes with `next_run_at`; false when the project has no such schedule.
  bool setEnabled(const std::string& project_id, const std::string& id, bool enabled,
                  int64_t next_run_at) const;
  bool remove(const std::string& project_id, const std::string& id) const;
  // Removes every schedule of the project with that name (and their runs); returns how many.
  int64_t removeNamed(const std::string& project_id, const std::string& name) const;
  bool exists(const std::string& project_id, const std::string& id) const;
  // The kept runs of a schedule, newest first.
  nlohmann::json runs(const std::string& id) const;
  // Removes every schedule of a project (and their runs); returns how many.
  int64_t removeProject(const std::string& project_id) const;
  // The projects that have schedules, id and name (for the sweep of projects deleted without
  // the hook).
  std::vector<std::pair<std::string, std::string>> projects() const;
  // Runs whose schedule is gone.
  int64_t sweepOrphanRuns() const;

 private:
  std::vector<Schedule> list(const berth::DbResult& rows, int64_t now) const;
  berth::Db db_;
};

}  // namespace berth::scheduler
