// Making a schedule and ensuring one, shared by POST /projects/{name}/schedules and
// scheduler.schedules.v1 `ensure`: the checked fields (schedule_fields.hpp), a fresh id, the
// project's limit (scheduler.max_schedules_per_project, 403), and this node's runner told
// when a run may now be due sooner.
#pragma once
#include <berth/services/projects_directory.hpp>

#include <string>

#include "context.hpp"
#include "schedule_fields.hpp"
#include "schedule_store.hpp"

namespace berth::scheduler {

using Project = berth::projects_directory::Project;

// A new enabled schedule of `project` made by `account_id`, as stored.
// @throw berth::Error 403 at the limit; nothing is stored then.
Schedule createSchedule(const Context& context, const Project& project,
                        const std::string& account_id, const ScheduleFields& fields);

// ScheduleStore::ensure with these fields. @throw berth::Error 403 when it would make one over
// the limit.
ScheduleStore::Ensured ensureSchedule(const Context& context, const Project& project,
                                      const std::string& account_id, const ScheduleFields& fields);

}  // namespace berth::scheduler
