// Start commands (docs/openapi.yaml, PATCH /projects/{name}, the start-command rules) and the
// runtime guessed from one. The rule and the table live in the SDK (berth/start_commands.hpp),
// shared with the runtime plugin.
#pragma once
#include <berth/start_commands.hpp>

namespace berth::projects {

using berth::commandProblem;

// From the first word of cmd: Node, Static, Python, Ruby, Go, PHP, Java, Rust; nullopt when
// not recognised (or cmd empty).
inline std::optional<std::string> guessRuntime(std::string_view cmd) {
  return berth::runtimeOfCommand(cmd);
}

}  // namespace berth::projects
