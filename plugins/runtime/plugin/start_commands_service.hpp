// runtime.start_commands.v1 (<berth/services/runtime_start_commands.hpp>): the start-command
// rules (src/start_commands.hpp) for the plugins that store a command without running it.
#pragma once
#include <berth/registrar.hpp>

namespace berth::runtime {

void registerStartCommandsService(berth::Registrar& r);

}  // namespace berth::runtime
