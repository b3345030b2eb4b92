// scheduler.schedules.v1 (<berth/services/scheduler_schedules.hpp>): a project's schedules for
// installers, through the core, and for other plugins.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::scheduler {

void registerSchedulesService(berth::Registrar& r, const Context& context);

}  // namespace berth::scheduler
