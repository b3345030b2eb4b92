// Loads plugin libraries (Boost.DLL), checks their magic, lets them register, and implements the
// berth_host_api table over the core's parts.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <berth/abi.h>

#include "auth/accounts.hpp"
#include "config/settings.hpp"
#include "db/migrator.hpp"
#include "db/pool.hpp"
#include "edge/nginx_config.hpp"
#include "http/router.hpp"
#include "plugin/service_registry.hpp"

namespace berth::core {

// What the host table reaches in the core. Pointers may be null until set: pool and accounts
// exist only once the database is up, which is after registration (see attachDatabase).
struct CoreParts {
  const Settings* settings = nullptr;
  Pool* pool = nullptr;
  Accounts* accounts = nullptr;
  // Called when a plugin replaces its custom hosts; the argument is the union over plugins.
  std::function<void(const std::vector<std::string>&)> on_custom_hosts;
  // Called when a plugin replaces its edge cache rules; the argument is the merge over plugins
  // (one rule per host, the first plugin in load order wins).
  // (The initializer keeps brace-initialised CoreParts{...} of older code warning-free.)
  std::function<void(const std::vector<EdgeCacheRule>&)> on_edge_cache = {};
  // The same for edge file trees (one per prefix) and app routes (one per host).
  std::function<void(const std::vector<EdgeFilesRule>&)> on_edge_files = {};
  std::function<void(const std::vector<EdgeAppRule>&)> on_edge_apps = {};
};

struct JobDecl {
  std::string id;  // <plugin>.<name>
  std::chrono::milliseconds period{0};
  bool run_on_start = false;
  // Runs one tick; stop_requested is polled by the job through the ABI.
  std::function<void(const std::atomic<bool>& stop_requested)> run;
};

// What a hook event came back with: ok, or the first refusing subscriber's answer
// ({"status": N, "error": "..."}).
struct HookResult {
  bool ok = true;
  std::string error_json;
};

struct InstallerDecl {
  std::string owner, slug, name, description;
  bool installable = false;
};

class PluginManager {
 public:
  explicit PluginManager(CoreParts parts);
  // Destroys the instances of plugins not running (never started, or stopped); never unloads a
  // library.
  ~PluginManager();
  PluginManager(const PluginManager&) = delete;
  PluginManager& operator=(const PluginManager&) = delete;

  // For each id: dir/libberth_<id>.so must exist; dlopen (rtld_now | rtld_local); check
  // berth_plugin_info_v1 (struct size, ABI major equal, minor not newer than ours, id equal);
  // order by depends_on (a missing dependency or a cycle is refused); call register. Any
  // failure throws std::runtime_error("plugin <id>: <why>"), with expected and found versions
  // for a version mismatch. Routes go into `router` (two plugins claiming one route fail).
  // A plugin that reports failure from register fails with "plugin <id> failed to register:
  // <why>". Registration closes when loadAll returns.
  void loadAll(const std::string& dir, const std::vector<std::string>& ids, Router& router);

  // The core's own services (core.tenant_databases.v1): `offer` puts them in the registry
  // plugins call through. Before loadAll, so that a plugin offering one of their names is
  // refused at registration, naming the core. What they use must outlive the manager.
  void offerCoreServices(const std::function<void(ServiceRegistry&)>& offer);

  // The database is up after registration: from now on the host table reaches it.
  void attachDatabase(Pool* pool, Accounts* accounts);

  // Validates each plugin's config section (applyPluginKeys) and unclaimed sections.
  void applyConfig();
  std::vector<Migration> migrations() const;
  // start in dependency order; a failing start throws "plugin <id> failed to start: <why>" and
  // leaves the plugins before it running (stopAll stops them).
  void startAll();
  // stop in reverse order (only those started), then destroy their instances. Jobs must have
  // been stopped and joined before.
  void stopAll();

  std::vector<JobDecl> jobs() const;
  std::vector<InstallerDecl> installers() const;
  std::vector<std::string> loadedIds() const;
  // Fires a hook event to every subscriber in load order (core events such as "edge.access"),
  // stopping at the first that refuses. THREADING: any thread, once loadAll returned.
  HookResult fireHook(const std::string& event, const std::string& payload_json);
  // Tells every subscriber of the event, whatever one of them answers (the core's "pg." events).
  void tellHook(const std::string& event, const std::string& payload_json);
  // The channels plugins hook "pg.notify:<channel>" for (<berth/pg_notify_events.hpp>), which
  // the core's listener LISTENs on. Once loadAll returned.
  std::vector<std::string> notifyChannels() const;
  // Calls a service a plugin offers (the core's own contracts, such as "accounts.usage.v1"):
  // its JSON answer, or nullopt when no plugin offers it or it refused.
  // THREADING: any thread, once loadAll returned.
  std::optional<std::string> callService(const std::string& name, const std::string& method,
                                         const std::string& request_json);

  // Implementation detail shared with the C trampolines.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Converts a berth_response into the core's HttpResponse (X-Accel for FILE/PROXY, JSON errors).
HttpResponse toHttpResponse(const berth_response& response, const HttpRequest& request,
                            const std::string& data_dir);

}  // namespace berth::core
