#include "start_commands_service.hpp"

#include <berth/services/runtime_start_commands.hpp>

#include <string>
#include <utility>
#include <vector>

#include "start_commands.hpp"

namespace berth::runtime {

void registerStartCommandsService(berth::Registrar& r) {
  namespace contract = berth::runtime_start_commands;
  berth::ServiceMethods methods;
  methods[std::string(contract::kCheck)] = [](const nlohmann::json& request) {
    std::vector<contract::Checked> checked;
    for (const std::string& cmd : contract::parseCheckRequest(request))
      checked.push_back({commandProblem(cmd), runtimeOfCommand(cmd)});
    return contract::toJson(checked);
  };
  r.service(std::string(contract::kService), std::move(methods));
}

}  // namespace berth::runtime
