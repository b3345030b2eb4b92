#include "start_command_hooks.hpp"

#include <berth/services/projects_cmd_change.hpp>
#include <berth/services/projects_view.hpp>

#include <optional>
#include <string>
#include <vector>

#include "start_commands.hpp"

namespace berth::runtime {

void registerStartCommandHooks(berth::Registrar& r) {
  // Before a cmd is stored: the texts of PATCH /projects/{name}. The rules need no state, so
  // this answers before start() too and never fails.
  r.hookAnswer(std::string(berth::projects_cmd_change::kEvent), [](const nlohmann::json& payload) {
    berth::projects_cmd_change::Change change = berth::projects_cmd_change::parseChange(payload);
    if (std::optional<std::string> problem = commandProblem(change.cmd))
      return berth::projects_cmd_change::refusalJson(*problem);
    return nlohmann::json();
  });

  // The Project's runtime, from the command the projects plugin sent with each id; an id
  // without one is left to the default (null).
  r.hookAnswer(std::string(berth::projects_view::kEvent), [](const nlohmann::json& payload) {
    std::vector<std::string> ids = berth::projects_view::parseIds(payload);
    berth::projects_view::Commands cmds = berth::projects_view::parseCmds(payload);
    nlohmann::json answer = nlohmann::json::object();
    for (const std::string& id : ids)
      if (auto cmd = cmds.find(id); cmd != cmds.end())
        answer[id] = berth::projects_view::runtimeJson(runtimeOfCommand(cmd->second));
    return answer.empty() ? nlohmann::json() : answer;
  });
}

}  // namespace berth::runtime
