#include "plugin/plugin_state.hpp"

#include "log/logging.hpp"

berth_host::berth_host(berth::core::PluginManager::Impl& manager_impl, std::string plugin_id)
    : manager(manager_impl),
      id(std::move(plugin_id)),
      logger(berth::core::getLogger("plugin." + id)) {}

void berth_host::report(std::string message) {
  std::lock_guard lock(reported_mutex);
  reported_error = std::move(message);
}

std::string berth_host::takeReported() {
  std::lock_guard lock(reported_mutex);
  return std::exchange(reported_error, {});
}

namespace berth::core {

berth_host& PluginManager::Impl::adopt(PluginLibrary library) {
  auto host = std::make_unique<berth_host>(*this, library.id);
  if (library.info != nullptr) host->kind = library.info->kind;
  berth_host& handle = *host;
  plugins.push_back(LoadedPlugin{std::move(library), std::move(host), false});
  return handle;
}

berth_str PluginManager::Impl::intern(std::string value) {
  std::lock_guard lock(interned_mutex_);
  const std::string& kept = *interned_.insert(std::move(value)).first;
  return berth_str{kept.data(), kept.size()};
}

}  // namespace berth::core
