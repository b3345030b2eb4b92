// Starter-app installers registered by plugins, and the installs the core mediates: the body
// checked against the installer's fields, a context made for the project, and every service
// call the installer makes checked against what it declared and bound to that project.
#pragma once
#include <string>
#include <vector>

#include <berth/abi.h>

#include "http/router.hpp"
#include "plugin/plugin_manager.hpp"

namespace berth::core {

class ServiceRegistry;

struct AppInstaller {
  std::string owner, slug, name, description, version;
  std::vector<std::string> services;  // the services it may call
  std::vector<FieldRule> fields;
  berth_app_install_fn fn = nullptr;
  void* user = nullptr;
};

class InstallerRegistry {
 public:
  // Only during registration (main thread). A slug registered twice is refused.
  // ABI 1.0 installers (fn(request) -> answer) are listed for the plugins built against them;
  // the core runs only ABI 1.3 ones.
  void add(const std::string& owner, const berth_installer& installer);
  void addApp(const std::string& owner, const berth_app_installer& installer);

  void visit(berth_installer_visit_fn visit_fn, void* ctx) const;
  // With the first required service `services` does not offer (empty when none).
  void visitApps(const ServiceRegistry& services, berth_app_installer_visit_fn visit_fn,
                 void* ctx) const;
  const AppInstaller* findApp(std::string_view slug) const;
  std::vector<InstallerDecl> list() const;

 private:
  struct LegacyEntry {
    std::string owner, slug, name, description;
    berth_install_fn fn;
    void* user;
  };
  void refuseTaken(const std::string& slug, const std::string& owner) const;
  std::vector<LegacyEntry> legacy_;
  std::vector<AppInstaller> apps_;
};

}  // namespace berth::core
