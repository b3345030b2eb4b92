// The Projects routes of docs/openapi.yaml (GET /projects/{name} among them).
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::projects {

void registerProjectRoutes(berth::Registrar& registrar, const Context& context);

}  // namespace berth::projects
