// The Schedules routes of api.md, and the run history beside them.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::scheduler {

void registerScheduleRoutes(berth::Registrar& r, const Context& context);

}  // namespace berth::scheduler
