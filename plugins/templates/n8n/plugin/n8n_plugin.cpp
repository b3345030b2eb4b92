// The n8n template plugin: it offers one installer and has no other power (a template plugin
// acts on projects only through the install context the core gives each install).
#include <berth/plugin.hpp>

#include "n8n_installer.hpp"

namespace {

class N8nPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.installer(std::make_shared<berth::n8n::N8nInstaller>());
  }
};

}  // namespace

BERTH_PLUGIN(N8nPlugin, "n8n", "1.0.0", "installs n8n, workflow automation, into a project",
             BERTH_KIND_TEMPLATE)
