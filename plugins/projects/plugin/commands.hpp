// Start commands (docs/openapi.yaml, PATCH /projects/{name}, the start-command rules) and the
// runtime guessed from one. The rule and the runtime table are the runtime plugin's, which runs
// the commands; they are asked for through runtime.start_commands.v1
// (<berth/services/runtime_start_commands.hpp>). Without the runtime plugin nothing runs a
// command: any is stored (the runtime checks it again before running it) and none shows a
// runtime.
#pragma once
#include <berth/services/runtime_start_commands.hpp>

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "context.hpp"

namespace berth::projects {

// Why the runtime refuses cmd; std::nullopt when it may be stored (or no runtime is loaded).
inline std::optional<std::string> commandProblem(const Context& c, std::string_view cmd) {
  auto checked = berth::RuntimeStartCommands(*c.services).check({std::string(cmd)});
  if (!checked) return std::nullopt;
  return checked->front().problem;
}

// From the first word of cmd: Node, Static, Python, Ruby, Go, PHP, Java, Rust; std::nullopt
// when not recognised, cmd empty, or no runtime loaded. A failed answer is logged and shows
// none, as the other parts of a Project that other plugins own.
inline std::optional<std::string> guessRuntime(const Context& c, std::string_view cmd) {
  if (cmd.empty()) return std::nullopt;  // the contract: the empty command names no runtime
  try {
    auto checked = berth::RuntimeStartCommands(*c.services).check({std::string(cmd)});
    if (!checked) return std::nullopt;
    return checked->front().runtime;
  } catch (const std::exception& e) {
    c.logger().warn(std::string("the runtime of a start command is not known: ") + e.what());
    return std::nullopt;
  }
}

}  // namespace berth::projects
