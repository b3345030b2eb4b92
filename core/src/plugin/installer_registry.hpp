// Template installers registered by plugins: a catalogue other plugins list and call.
#pragma once
#include <string>
#include <vector>

#include <berth/abi.h>

#include "plugin/plugin_manager.hpp"

namespace berth::core {

class InstallerRegistry {
 public:
  // Only during registration (main thread). A slug registered twice is refused.
  void add(const std::string& owner, const berth_installer& installer);
  // Visits every installer with views valid during the call, in registration order.
  void visit(berth_installer_visit_fn visit_fn, void* ctx) const;
  std::vector<InstallerDecl> list() const;

 private:
  struct Entry {
    std::string owner, slug, name, description;
    berth_install_fn fn;
    void* user;
  };
  std::vector<Entry> entries_;
};

}  // namespace berth::core
