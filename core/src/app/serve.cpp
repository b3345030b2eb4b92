#include "app/serve.hpp"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/change_listener.hpp"
#include "app/control_plane.hpp"
#include "app/core_routes.hpp"
#include "auth/accounts.hpp"
#include "auth/sessions.hpp"
#include "cluster/live_nodes.hpp"
#include "config/install_layout.hpp"
#include "db/migrator.hpp"
#include "edge/edge.hpp"
#include "http/backend_server.hpp"
#include "http/dispatcher.hpp"
#include "http/edge_trust.hpp"
#include "http/host_routing.hpp"
#include "jobs/job_runner.hpp"
#include "log/logging.hpp"
#include "plugin/plugin_manager.hpp"
#include "tenants/tenant_databases_service.hpp"

namespace berth::core {

namespace {

std::string edgeWorkerUser() {
  if (geteuid() != 0) return "";
  for (const char* name : {"www-data", "nobody"})
    if (lookupUser(name)) return name;
  return "";
}

// The literal beginnings ("/_files/") of berthd's own project-host routes, shortest first and
// none inside another; a catch-all ("/", "/*path") has none.
std::vector<std::string> projectRoutePrefixes(const Router& router) {
  std::set<std::string> literal;
  for (const auto& route : router.routes()) {
    if (!route->project_host) continue;
    const std::string& pattern = route->pattern;
    size_t variable = pattern.find_first_of(":*");
    std::string prefix = pattern.substr(0, variable);
    if (variable != std::string::npos) prefix = prefix.substr(0, prefix.rfind('/') + 1);
    if (prefix.size() > 1) literal.insert(prefix);
  }
  std::vector<std::string> prefixes;
  for (const auto& prefix : literal) {
    bool inside = std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& shorter) {
      return shorter.back() == '/' && prefix.compare(0, shorter.size(), shorter) == 0;
    });
    if (!inside) prefixes.push_back(prefix);
  }
  return prefixes;
}

EdgeLayout edgeLayout(const Settings& settings, const Router& router, uint16_t backend_port,
                      const std::vector<std::string>& custom_hosts) {
  EdgeLayout layout;
  layout.listen = settings.listen;
  if (settings.project_listen) layout.project_listens.push_back(*settings.project_listen);
  layout.apps_domain = settings.apps_domain;
  layout.custom_hosts = custom_hosts;
  layout.backend_port = backend_port;
  layout.data_dir = settings.data_dir;
  layout.runtime_dir = settings.data_dir + "/edge";
  layout.access_log_file = layout.runtime_dir + "/access.log";
  layout.json_body_limit =
      parseByteSize(settings.edge.json_body_limit, "edge.json_body_limit", settings.file);
  layout.worker_processes = settings.edge.worker_processes;
  layout.cache_max_bytes =
      parseByteSize(settings.edge.cache_max_size, "edge.cache_max_size", settings.file);
  layout.worker_user = edgeWorkerUser();
  for (const auto& route : router.routes())
    if (route->body == BodyKind::Raw && !route->project_host)
      layout.spooled_routes.push_back({route->method, route->pattern, route->max_body_bytes});
  layout.project_route_prefixes = projectRoutePrefixes(router);
  layout.edge_proof = edgeProof();
  layout.forward_proof = clusterSecret();
  layout.console_dir = defaultShareDir() + "/console";
  return layout;
}

// The config names the database and may hold secrets: only its owner should read it.
void warnIfConfigIsReadable(const Settings& settings) {
  struct stat st {};
  if (settings.file.empty() || ::stat(settings.file.c_str(), &st) != 0) return;
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) == 0) return;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  logLine(*getLogger("core"), spdlog::level::warn, "", "",
          "the config file " + settings.file + " is readable by others than its owner (mode " +
              mode + "); make it 0600");
}

int waitForStopSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

}  // namespace

int runServe(const Settings& settings) {
  auto log = getLogger("core");
  std::filesystem::create_directories(settings.data_dir);
  warnIfConfigIsReadable(settings);

  ControlPlane cp = ControlPlane::open(settings);
  // What this node registers for the others (its heartbeat writes it) and the secret that
  // marks a request another node's edge forwarded here (cluster/live_nodes.hpp).
  setThisNode(nodeAddress(settings), settings.cluster.labels);
  if (thisNodeAddress().empty())
    logLine(*log, spdlog::level::warn, "", "",
            "the edge listens on a wildcard address: other "
            "nodes cannot proxy project traffic to this one until cluster.node_address is set");
  loadClusterSecret(*cp.pool);
  // Declared before the accounts that use it, so it outlives them.
  AuthCache auth_cache(cp.pool->url(), std::chrono::seconds(60));
  auth_cache.start();
  Accounts accounts(*cp.pool, settings);
  accounts.useCache(&auth_cache);
  Sessions sessions(*cp.pool, settings);
  sessions.useCache(&auth_cache);
  // Failed sign-ins per client address: 10 at once, then one more a minute.
  SignInThrottle sign_in_throttle(10, 60);
  HostRouting hosts(settings.apps_domain);
  std::unique_ptr<Edge> edge;
  std::mutex edge_mutex;
  // Guarded by edge_mutex; rules plugins set before the edge exists seed its layout.
  std::vector<EdgeCacheRule> cache_rules;
  std::vector<EdgeFilesRule> files_rules;
  std::vector<EdgeAppRule> app_rules;

  CoreParts parts;
  parts.settings = &settings;
  parts.pool = cp.pool.get();
  parts.accounts = &accounts;
  parts.on_custom_hosts = [&](const std::vector<std::string>& custom) {
    hosts.setCustomHosts(custom);
    std::lock_guard lock(edge_mutex);
    if (edge) edge->setCustomHosts(custom);
  };
  parts.on_edge_cache = [&](const std::vector<EdgeCacheRule>& rules) {
    std::lock_guard lock(edge_mutex);
    cache_rules = rules;
    if (edge) edge->setCacheRules(rules);
  };
  parts.on_edge_files = [&](const std::vector<EdgeFilesRule>& rules) {
    std::lock_guard lock(edge_mutex);
    files_rules = rules;
    if (edge) edge->setFilesRules(rules);
  };
  parts.on_edge_apps = [&](const std::vector<EdgeAppRule>& rules) {
    std::lock_guard lock(edge_mutex);
    app_rules = rules;
    if (edge) edge->setAppRules(rules);
  };

  // Project databases live on database.tenants_url's cluster, else on the control plane's (the
  // pool's URL is the embedded cluster's when database.url is empty). The core keeps the
  // superuser URL; plugins make and drop project databases through its service. Declared
  // before the plugins, so that it outlives them.
  TenantDatabases tenant_databases(
      settings.database.tenants_url.empty() ? cp.pool->url() : settings.database.tenants_url);
  Router router;
  PluginManager plugins(parts);
  plugins.offerCoreServices(
      [&](ServiceRegistry& registry) { offerTenantDatabases(registry, tenant_databases); });
  plugins.loadAll(settings.plugins.dir, settings.plugins.enabled, router);
  // What plugins count about an account (projects_used) comes from the service they offer
  // under the core's contract "accounts.usage.v1".
  CoreRouteParts core_routes;
  core_routes.sessions = &sessions;
  core_routes.accounts = &accounts;
  core_routes.sign_in_throttle = &sign_in_throttle;
  core_routes.share_dir = defaultShareDir();
  core_routes.usage = [&plugins](const std::string& account_id) {
    auto answer = plugins.callService("accounts.usage.v1", "get",
                                      nlohmann::json{{"account_id", account_id}}.dump());
    if (!answer) return nlohmann::json::object();
    return nlohmann::json::parse(*answer, nullptr, false);
  };
  addCoreRoutes(router, core_routes);
  plugins.applyConfig();
  int applied = applyMigrations(*cp.pool, plugins.migrations());
  if (applied > 0)
    logLine(*log, spdlog::level::info, "", "", std::to_string(applied) + " migrations applied");
  plugins.startAll();
  // One LISTEN connection for the auth cache and every channel a plugin hooks; from here on
  // the plugins' hooks may run, and until stop() below.
  ChangeListener changes(cp.pool->url(), auth_cache, plugins);
  changes.start();

  Dispatcher dispatcher(router, hosts,
                        [&](const std::string& token) { return accounts.checkToken(token); });
  dispatcher.useSessions([&](const std::string& value) { return sessions.check(value); },
                         publicUrl(settings));
  uint64_t json_limit =
      parseByteSize(settings.edge.json_body_limit, "edge.json_body_limit", settings.file);
  // Headers and a little slack on top of the largest body the edge lets through to us.
  BackendServer backend(dispatcher, settings.edge.backend_threads, json_limit + 1024 * 1024,
                        edgeProof(), edgeBodyDir(settings.data_dir));
  backend.start(static_cast<uint16_t>(settings.edge.backend_port));

  EdgeLayout layout = edgeLayout(settings, router, backend.port(), hosts.customHosts());
  // nginx writes each line in the event's own form: passed on as it is.
  AccessLogTail access(layout.access_log_file, [&](std::string_view line) {
    plugins.fireHook("edge.access", std::string(line));
  });
  access.setReopen([&] {
    std::lock_guard lock(edge_mutex);
    if (edge) edge->reopenLogs();
  });
  std::filesystem::create_directories(layout.runtime_dir);
  access.start();
  {
    std::lock_guard lock(edge_mutex);
    layout.cache_rules = cache_rules;  // rules plugins set while starting
    layout.files_rules = files_rules;
    layout.app_rules = app_rules;
    edge = std::make_unique<Edge>(settings.edge.nginx, layout);
    edge->start();
  }

  JobRunner jobs(settings.job_threads);
  jobs.start(plugins.jobs());

  logLine(*log, spdlog::level::info, "", "",
          "berthd " BERTH_VERSION " serving on http://" + settings.listen.str() +
              " (backend 127.0.0.1:" + std::to_string(backend.port()) + ", data in " +
              settings.data_dir + ")");
  std::cout << "berthd ready on http://" << settings.listen.str() << std::endl;

  int sig = waitForStopSignal();
  logLine(*log, spdlog::level::info, "", "",
          std::string("stopping (") + strsignal(sig) + "): draining requests");
  backend.beginDrain();
  if (!backend.waitIdle(std::chrono::seconds(settings.drain_seconds)))
    logLine(*log, spdlog::level::warn, "", "",
            std::to_string(backend.inFlight()) + " requests still running; stopping anyway");
  jobs.stop();
  // Before the plugins stop, as its lines go to them; what nginx writes after this is read at
  // the next start (the tail keeps its place in the file).
  access.stop();
  changes.stop();  // tells the plugins "pg.not_listening" while they still run
  plugins.stopAll();
  backend.stop();
  {
    std::lock_guard lock(edge_mutex);
    edge->stop();
  }
  cp.close();
  logLine(*log, spdlog::level::info, "", "", "stopped");
  return 0;
}

}  // namespace berth::core
