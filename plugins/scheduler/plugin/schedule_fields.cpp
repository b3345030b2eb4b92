#include "schedule_fields.hpp"

#include <utility>

#include <berth/common/text.hpp>
#include "schedule_rules.hpp"

namespace berth::scheduler {

ScheduleFields checkScheduleFields(std::string_view name, std::string_view spec, std::string path) {
  std::string clean_name = common::trimmed(name);
  if (auto problem = nameProblem(clean_name)) throw berth::Error::badRequest(*problem);
  std::string clean_spec = common::trimmed(spec);
  CronParse parsed = CronSpec::parse(clean_spec);
  if (!parsed.spec) throw berth::Error::badRequest(parsed.error);
  if (auto problem = pathProblem(path)) throw berth::Error::badRequest(*problem);
  return {std::move(clean_name), std::move(clean_spec), std::move(path), *parsed.spec};
}

int64_t ScheduleFields::firstRunAfter(int64_t now) const {
  auto next = cron.nextAfter(now);
  // CronSpec::parse refuses every spec that never runs.
  if (!next) throw berth::Error::badRequest("the spec never runs");
  return *next;
}

berth::Error scheduleLimitReached(int64_t limit) {
  return berth::Error::forbidden("this project has " + std::to_string(limit) +
                                 " schedules, the limit (scheduler.max_schedules_per_project); "
                                 "delete one first");
}

}  // namespace berth::scheduler
