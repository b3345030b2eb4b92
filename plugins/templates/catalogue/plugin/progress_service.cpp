// templates.installs.v1 (<berth/services/templates_installs.hpp>): an installer's progress,
// kept on its running install (shown by the install's status) and written to the project's log.
#include <berth/services/runtime_logs.hpp>
#include <berth/services/templates_installs.hpp>

#include "install_runs.hpp"
#include "template_routes.hpp"

namespace berth::templates {

void registerProgressService(berth::Registrar& r, Context& c) {
  berth::ServiceMethods methods;
  methods[std::string(berth::templates_installs::kProgress)] = [&c](const nlohmann::json& request) {
    berth::runtime_logs::PlatformLine line = berth::templates_installs::parseProgress(request);
    bool noted = InstallRuns(c.services->db()).noteProgress(line.project_id, line.message);
    try {
      berth::RuntimeLogs(*c.services).platform(line.project_id, line.message);
    } catch (const berth::Error&) {
      // The install's status has the line; the project's log is a courtesy.
    }
    return nlohmann::json{{"noted", noted}};
  };
  r.service(std::string(berth::templates_installs::kService), std::move(methods));
}

}  // namespace berth::templates
