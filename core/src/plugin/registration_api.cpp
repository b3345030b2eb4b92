// The registration half of berth_host_api: what a plugin declares inside
// berth_plugin_register_v1, checked and recorded against its host.
#include <berth/pg_notify_events.hpp>

#include <algorithm>
#include <stdexcept>

#include "plugin/abi_views.hpp"
#include "plugin/declarations.hpp"
#include "plugin/host_api.hpp"
#include "plugin/host_call.hpp"

namespace berth::core {
namespace {

template <class T>
const T& required(const T* declaration, const char* what) {
  if (declaration == nullptr) throw std::invalid_argument(std::string("no ") + what + " given");
  return *declaration;
}

}  // namespace

int32_t declareConfig(berth_host* host, const berth_config_key* key) noexcept {
  return registrationCall(host, "declare_config", [&] {
    PluginKey declared = makePluginKey(required(key, "config key"));
    for (const PluginKey& existing : host->config_keys)
      if (existing.name == declared.name)
        throw std::invalid_argument("config key " + declared.name + " is declared twice");
    host->config_keys.push_back(std::move(declared));
  });
}

int32_t addRoute(berth_host* host, const berth_route* route) noexcept {
  return registrationCall(host, "add_route", [&] {
    Route core = makeRoute(host->id, required(route, "route"), host->manager.dataDir());
    if (host->manager.router == nullptr) throw std::logic_error("no router to add routes to");
    // The router refuses a method and pattern that is taken, naming both owners.
    host->manager.router->add(std::move(core));
  });
}

int32_t addMigration(berth_host* host, uint32_t version, berth_str name, berth_str sql) noexcept {
  return registrationCall(host, "add_migration", [&] {
    Migration migration = makeMigration(host->id, version, name, sql);
    for (const Migration& existing : host->migrations)
      if (existing.version == migration.version)
        throw std::invalid_argument("migration " + std::to_string(version) + " is added twice");
    host->migrations.push_back(std::move(migration));
  });
}

int32_t addJob(berth_host* host, const berth_job* job) noexcept {
  return registrationCall(host, "add_job", [&] {
    JobDecl declared = makeJob(host->id, required(job, "job"));
    for (const JobDecl& existing : host->jobs)
      if (existing.id == declared.id)
        throw std::invalid_argument("job " + declared.id + " is added twice");
    host->jobs.push_back(std::move(declared));
  });
}

namespace {

// The core fires the events under "pg." (<berth/pg_notify_events.hpp>): a hook on one it never
// fires, or on a channel it cannot LISTEN on, would wait for nothing.
void checkCoreEvent(std::string_view event) {
  if (!event.starts_with(berth::kPgEventPrefix)) return;
  if (event == berth::kPgListeningEvent || event == berth::kPgNotListeningEvent) return;
  if (event.starts_with(berth::kPgNotifyPrefix)) {
    if (berth::isPgChannel(event.substr(berth::kPgNotifyPrefix.size()))) return;
    throw std::invalid_argument("hook on " + std::string(event) +
                                ": a channel is a lower-case identifier of up to 63 characters");
  }
  throw std::invalid_argument("the core fires no event " + std::string(event) +
                              " (pg.notify:<channel>, pg.listening and pg.not_listening)");
}

}  // namespace

int32_t addHook(berth_host* host, berth_str event, berth_hook_fn fn, void* user) noexcept {
  return registrationCall(host, "add_hook", [&] {
    checkCoreEvent(view(event));
    host->manager.hooks.add(copy(event), host->id, fn, user);
  });
}

int32_t offerService(berth_host* host, berth_str name, berth_service_fn fn, void* user) noexcept {
  return registrationCall(host, "offer_service",
                          [&] { host->manager.services.offer(copy(name), host->id, fn, user); });
}

int32_t addInstaller(berth_host* host, const berth_installer* installer) noexcept {
  return registrationCall(host, "add_installer", [&] {
    host->manager.installers.add(host->id, required(installer, "installer"));
  });
}

int32_t addAppInstaller(berth_host* host, const berth_app_installer* installer) noexcept {
  return registrationCall(host, "add_app_installer", [&] {
    host->manager.installers.addApp(host->id, required(installer, "installer"));
  });
}

void setInstance(berth_host* host, void* instance, void (*destroy)(void*)) noexcept {
  registrationCall(host, "set_instance", [&] {
    if (host->instance != nullptr) throw std::invalid_argument("the instance is already set");
    host->instance = instance;
    host->destroy_instance = destroy;
  });
}

}  // namespace berth::core
