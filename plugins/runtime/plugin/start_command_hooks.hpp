// The runtime's start-command rules (src/start_commands.hpp) where the projects plugin asks
// without naming the runtime: projects.cmd_change.v1 (<berth/services/projects_cmd_change.hpp>)
// refuses a command the runtime would not run before it is stored, and projects.view.v1
// (<berth/services/projects_view.hpp>) answers a Project's `runtime` from its command.
#pragma once
#include <berth/registrar.hpp>

namespace berth::runtime {

void registerStartCommandHooks(berth::Registrar& r);

}  // namespace berth::runtime
