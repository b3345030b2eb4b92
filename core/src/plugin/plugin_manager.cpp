// The plugin lifecycle: load and register, configure, start, stop.
#include "plugin/plugin_manager.hpp"

#include <berth/pg_notify_events.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "log/logging.hpp"
#include "plugin/host_api.hpp"
#include "plugin/plugin_state.hpp"

namespace berth::core {
namespace {

std::string reasonOr(std::string reason, const std::string& fallback) {
  return reason.empty() ? fallback : reason;
}

void registerPlugin(berth_host& host, const PluginLibrary& library) {
  host.registering = true;
  const int32_t status = library.register_fn(&host, &hostApi());
  host.registering = false;
  std::string reported = host.takeReported();
  // The core's own refusal names the root cause (both owners of a route, say), so it wins over
  // whatever the plugin made of it. A refusal the plugin ignored fails it too: starting without
  // a route or job it asked for would only hide the mistake.
  if (!host.first_refusal.empty())
    throw std::runtime_error("plugin " + host.id + " failed to register: " + host.first_refusal);
  if (status != BERTH_OK)
    throw std::runtime_error(
        "plugin " + host.id + " failed to register: " +
        reasonOr(reported, "berth_plugin_register_v1 returned " + std::to_string(status)));
}

void destroyInstance(berth_host& host) {
  if (host.instance != nullptr && host.destroy_instance != nullptr)
    host.destroy_instance(host.instance);
  host.instance = nullptr;
  host.destroy_instance = nullptr;
}

}  // namespace

PluginManager::PluginManager(CoreParts parts) : impl_(std::make_unique<Impl>(std::move(parts))) {}

PluginManager::~PluginManager() {
  for (auto it = impl_->plugins.rbegin(); it != impl_->plugins.rend(); ++it) {
    if (!it->started) {
      destroyInstance(*it->host);
      continue;
    }
    // Its threads may still use the instance; leaking it is the safe choice at this point.
    logLine(*getLogger("core"), spdlog::level::warn, "", "",
            "plugin " + it->host->id + " was never stopped; its instance is not destroyed");
  }
  // The libraries themselves stay loaded: loader.cpp pins them for the process's life.
}

void PluginManager::loadAll(const std::string& dir, const std::vector<std::string>& ids,
                            Router& router) {
  if (!impl_->plugins.empty()) throw std::logic_error("plugins are already loaded");
  std::set<std::string> seen;
  for (const std::string& id : ids)
    if (!seen.insert(id).second) throw std::runtime_error("plugin " + id + " is enabled twice");

  std::vector<PluginLibrary> libraries;
  for (const std::string& id : ids) libraries.push_back(openPluginLibrary(dir, id));
  std::vector<DependencyNode> nodes;
  for (const PluginLibrary& library : libraries)
    nodes.push_back(DependencyNode{library.id, library.depends_on});

  impl_->router = &router;
  try {
    for (size_t index : dependencyOrder(nodes)) {
      berth_host& host = impl_->adopt(std::move(libraries[index]));
      const PluginLibrary& library = impl_->plugins.back().library;
      registerPlugin(host, library);
      const char* version = library.info->version;
      logLine(*getLogger("core"), spdlog::level::info, "", "",
              "plugin " + host.id + " " + (version ? version : "(no version)") + " registered");
    }
  } catch (...) {
    impl_->router = nullptr;
    throw;
  }
  impl_->router = nullptr;
}

void PluginManager::offerCoreServices(const std::function<void(ServiceRegistry&)>& offer) {
  if (!impl_->plugins.empty())
    throw std::logic_error("the core offers its services before plugins register");
  offer(impl_->services);
}

void PluginManager::attachDatabase(Pool* pool, Accounts* accounts) {
  impl_->parts.pool = pool;
  impl_->parts.accounts = accounts;
}

void PluginManager::applyConfig() {
  if (impl_->parts.settings == nullptr) throw std::logic_error("applyConfig needs the settings");
  const Settings& settings = *impl_->parts.settings;
  for (LoadedPlugin& plugin : impl_->plugins) {
    berth_host& host = *plugin.host;
    host.config_versions.push_back(applyPluginKeys(settings, host.id, host.config_keys).dump());
  }
  checkUnclaimedSections(settings, loadedIds());
}

std::vector<Migration> PluginManager::migrations() const {
  std::vector<Migration> all;
  for (const LoadedPlugin& plugin : impl_->plugins) {
    std::vector<Migration> own = plugin.host->migrations;
    std::sort(own.begin(), own.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    all.insert(all.end(), own.begin(), own.end());
  }
  return all;
}

void PluginManager::startAll() {
  for (LoadedPlugin& plugin : impl_->plugins) {
    if (plugin.started) continue;
    berth_host& host = *plugin.host;
    host.takeReported();  // a message left from registration is not a reason to fail start
    const int32_t status = plugin.library.start_fn(&host, host.instance);
    if (status != BERTH_OK)
      throw std::runtime_error("plugin " + host.id + " failed to start: " +
                               reasonOr(host.takeReported(), "berth_plugin_start_v1 returned " +
                                                                 std::to_string(status)));
    plugin.started = true;
  }
}

void PluginManager::stopAll() {
  for (auto it = impl_->plugins.rbegin(); it != impl_->plugins.rend(); ++it) {
    if (!it->started) continue;
    it->library.stop_fn(it->host.get(), it->host->instance);
    it->started = false;
  }
  // Only after every stop: a plugin stopping later may still call into one stopped earlier
  // (a hook, a service), whose instance must then still exist.
  for (auto it = impl_->plugins.rbegin(); it != impl_->plugins.rend(); ++it)
    destroyInstance(*it->host);
}

std::vector<JobDecl> PluginManager::jobs() const {
  std::vector<JobDecl> all;
  for (const LoadedPlugin& plugin : impl_->plugins)
    all.insert(all.end(), plugin.host->jobs.begin(), plugin.host->jobs.end());
  return all;
}

std::vector<InstallerDecl> PluginManager::installers() const {
  return impl_->installers.list();
}

std::vector<std::string> PluginManager::loadedIds() const {
  std::vector<std::string> ids;
  for (const LoadedPlugin& plugin : impl_->plugins) ids.push_back(plugin.host->id);
  return ids;
}

HookResult PluginManager::fireHook(const std::string& event, const std::string& payload_json) {
  berth_buffer answer;
  if (impl_->hooks.fire(event, payload_json, &answer) == BERTH_OK) return {};
  return HookResult{false, std::move(answer.bytes)};
}

void PluginManager::tellHook(const std::string& event, const std::string& payload_json) {
  impl_->hooks.tell(event, payload_json);
}

std::vector<std::string> PluginManager::notifyChannels() const {
  std::vector<std::string> channels;
  for (const std::string& event : impl_->hooks.eventsStartingWith(berth::kPgNotifyPrefix))
    channels.push_back(event.substr(berth::kPgNotifyPrefix.size()));
  return channels;
}

std::optional<std::string> PluginManager::callService(const std::string& name,
                                                      const std::string& method,
                                                      const std::string& request_json) {
  berth_buffer answer;
  if (impl_->services.call(ServiceCaller::Core, name, method, request_json, &answer) != BERTH_OK)
    return std::nullopt;
  return std::move(answer.bytes);
}

}  // namespace berth::core
