// SPDX-License-Identifier: MIT
/** @file
 *  runtime.start_commands.v1: the runtime's rules for a start command (docs/openapi.yaml,
 *  PATCH /projects/{name}, the start-command rules), for a plugin that stores one without
 *  running it and wants the rules, or the runtime of many commands, at once. The projects
 *  plugin does not call it: the runtime gives it the same rules through the hooks
 *  projects.cmd_change.v1 (<berth/services/projects_cmd_change.hpp>) and projects.view.v1, so
 *  that projects never calls into the runtime. The rules themselves are the runtime's
 *  (plugins/runtime/src/start_commands.hpp), which runs the commands. Header-only, no ABI: the
 *  request and answer, their JSON written and read once, and a typed client.
 *
 *  Methods:
 *  - `check` {commands: [string]} -> {checked: [{problem, runtime}]}, one per command, in
 *    order. `problem`: why the command is refused, null when it may be stored and run (the
 *    texts: "the start command must be one line", "the start command is run directly, not
 *    through a shell, so it cannot contain <c>" for any of | & ; < > ` ( ) ' " *, "the start
 *    command is run directly, so it cannot begin with an assignment like NAME=value; set a
 *    secret instead"). `runtime`:
 *    the runtime its first word names (Node, Static, Python, Ruby, Go, PHP, Java, Rust), null
 *    when it names none (or the command is empty). The empty command has neither.
 *
 *  Refusals: 400 "commands is required and must be an array of strings", "commands may hold at
 *  most 10000 commands".
 */
#ifndef BERTH_SERVICES_RUNTIME_START_COMMANDS_HPP
#define BERTH_SERVICES_RUNTIME_START_COMMANDS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace runtime_start_commands {

inline constexpr std::string_view kService = "runtime.start_commands.v1";
inline constexpr std::string_view kCheck = "check";
inline constexpr size_t kMaxCommands = 10000;

/** What the runtime says of one start command. */
struct Checked {
  std::optional<std::string> problem;  ///< why it is refused; nullopt: it may be stored and run
  std::optional<std::string> runtime;  ///< from its first word; nullopt: none recognised
};

inline nlohmann::json checkRequestJson(const std::vector<std::string>& commands) {
  return {{"commands", commands}};
}

inline std::vector<std::string> parseCheckRequest(const nlohmann::json& request) {
  std::vector<std::string> commands = service_json::requiredTexts(
      request, "commands", "commands is required and must be an array of strings");
  if (commands.size() > kMaxCommands)
    throw Error::badRequest("commands may hold at most " + std::to_string(kMaxCommands) +
                            " commands");
  return commands;
}

inline nlohmann::json toJson(const std::vector<Checked>& checked) {
  nlohmann::json list = nlohmann::json::array();
  for (const Checked& c : checked)
    list.push_back({{"problem", c.problem ? nlohmann::json(*c.problem) : nlohmann::json()},
                    {"runtime", c.runtime ? nlohmann::json(*c.runtime) : nlohmann::json()}});
  return {{"checked", list}};
}

/** @throw Error 500 when the answer breaks the contract (not one entry per command). */
inline std::vector<Checked> parseChecked(const nlohmann::json& answer, size_t commands) {
  service_json::Answer read(answer, kService, kCheck);
  const nlohmann::json& list = read.array("checked");
  if (list.size() != commands) throw read.refusal("checked", "one entry per command");
  std::vector<Checked> out;
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    service_json::Answer entry(list[i], kService, kCheck, "checked/" + std::to_string(i));
    out.push_back({entry.textOrNull("problem"), entry.textOrNull("runtime")});
  }
  return out;
}

}  // namespace runtime_start_commands

/** runtime.start_commands.v1 through Services::tryCall. */
class RuntimeStartCommands {
 public:
  explicit RuntimeStartCommands(const Services& services) : services_(&services) {}

  /** One Checked per command, in order; std::nullopt when no loaded plugin offers the service
   *  (the runtime is not enabled). */
  std::optional<std::vector<runtime_start_commands::Checked>> check(
      const std::vector<std::string>& commands) const {
    std::optional<nlohmann::json> answer =
        services_->tryCall(runtime_start_commands::kService, runtime_start_commands::kCheck,
                           runtime_start_commands::checkRequestJson(commands));
    if (!answer) return std::nullopt;
    return runtime_start_commands::parseChecked(*answer, commands.size());
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_START_COMMANDS_HPP
