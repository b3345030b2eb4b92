// The Schedules routes of docs/openapi.yaml, the run history beside them included.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::scheduler {

void registerScheduleRoutes(berth::Registrar& r, const Context& context);

}  // namespace berth::scheduler
