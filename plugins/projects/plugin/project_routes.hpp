// The routes of api.md's Projects section (and contract.md's GET /projects/{name}).
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::projects {

void registerProjectRoutes(berth::Registrar& registrar, const Context& context);

}  // namespace berth::projects
