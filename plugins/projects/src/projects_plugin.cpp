// The projects plugin: projects, regions, names, plans, teams and roles, secrets, domains and
// one database per project. This first cut serves the region list.
#include <berth/plugin.hpp>

#include "regions.hpp"

namespace berth::projects {

class ProjectsPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    berth::RouteOptions open;
    open.publicRoute = true;
    r.get(
        "/regions",
        [](berth::Request, berth::Responder responder) { responder.json(200, regionsJson()); },
        open);
  }
};

}  // namespace berth::projects

BERTH_PLUGIN(berth::projects::ProjectsPlugin, "projects", "0.1.0",
             "projects, regions, plans, teams, secrets, domains, one database per project",
             BERTH_KIND_FEATURE)
