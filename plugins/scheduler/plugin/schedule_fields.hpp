// A schedule's own fields (name, spec, path) as POST /projects/{name}/schedules and
// scheduler.schedules.v1 `ensure` take them, checked here once for both with the route's texts
// (docs/openapi.yaml: 400 with the reason), and what both write with them.
#pragma once
#include <berth/error.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "cron_spec.hpp"

namespace berth::scheduler {

struct ScheduleFields {
  std::string name;  // surrounding white space removed
  std::string spec;  // surrounding white space removed
  std::string path;  // as sent
  CronSpec cron;

  // The first run after `now` (scheduler seconds): an accepted spec always has one.
  int64_t firstRunAfter(int64_t now) const;
};

// @throw berth::Error 400 with the first problem: the name's, the cron parser's, the path's.
ScheduleFields checkScheduleFields(std::string_view name, std::string_view spec, std::string path);

// The 403 of a project at scheduler.max_schedules_per_project.
berth::Error scheduleLimitReached(int64_t limit);

}  // namespace berth::scheduler
