// The berth_host_api table: C trampolines from plugins into the core. Each one is noexcept and
// reports failure as a status, never as an exception.
#include "plugin/host_api.hpp"

#include <berth/pg_notify_events.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/live_nodes.hpp"
#include "edge/nginx_config.hpp"
#include "http/edge_trust.hpp"
#include "log/logging.hpp"
#include "plugin/abi_views.hpp"
#include "plugin/db_bridge.hpp"
#include "plugin/declarations.hpp"
#include "plugin/host_call.hpp"
#include "plugin/request_bridge.hpp"
#include "util/ascii.hpp"

namespace berth::core {

void logCallFailure(berth_host& host, std::string_view call, std::string_view why) noexcept {
  try {
    logLine(*host.logger, spdlog::level::err, "", "",
            std::string(call) + " failed: " + std::string(why));
  } catch (...) {
    // Logging itself failed; the status code still carries the failure.
  }
}

spdlog::level::level_enum spdlogLevel(uint32_t level) {
  switch (level) {
    case BERTH_LOG_DEBUG:
      return spdlog::level::debug;
    case BERTH_LOG_WARN:
      return spdlog::level::warn;
    case BERTH_LOG_ERROR:
      return spdlog::level::err;
    default:
      return spdlog::level::info;
  }
}

namespace {

void logMessage(berth_host* host, uint32_t level, berth_str request_id, berth_str project,
                berth_str message) noexcept {
  guardedCall(host, "log", [&] {
    logLine(*host->logger, spdlogLevel(level), view(request_id), view(project), view(message));
    return BERTH_OK;
  });
}

void reportError(berth_host* host, berth_str message) noexcept {
  guardedCall(host, "report_error", [&] {
    host->report(copy(message));
    return BERTH_OK;
  });
}

// ---- configuration ---------------------------------------------------------------------------

berth_str configJson(berth_host* host) noexcept {
  if (host == nullptr) return kAbsent;
  // applyConfig runs on the main thread before any plugin starts, so this never races it.
  return borrow(host->config_versions.back());
}

std::optional<std::string> coreSettingValue(const CoreParts& parts, std::string_view key) {
  if (parts.settings == nullptr) return std::nullopt;
  const Settings& settings = *parts.settings;
  if (key == "server.apps_domain") return settings.apps_domain;
  if (key == "server.listen") return settings.listen.str();
  if (key == "data_dir") return settings.data_dir;
  if (key == "plugins.dir") return settings.plugins.dir;
  // Where the edge spools request bodies: the only folder a body file may be in
  // (berth/util/spooled_body.hpp).
  if (key == "edge.body_dir") return edgeBodyDir(settings.data_dir);
  // Proves berthd's own requests through the edge (scheduled runs); new at every start.
  if (key == "server.node_proof") return nodeProof();
  // Several nodes (cluster/live_nodes.hpp): this node's id in core.nodes (new at each start),
  // its registered project address, the live nodes as JSON, and the cluster secret that marks
  // a request another node's edge forwarded (X-Berth-Forwarded).
  if (key == "cluster.node_id") return thisNodeId();
  if (key == "cluster.node_address") return thisNodeAddress();
  if (key == "cluster.nodes") return liveNodesJson();
  if (key == "cluster.forward_proof") return clusterSecret();
  // Not database.url nor database.tenants_url: each carries a superuser's password, and no
  // plugin is handed one. A plugin reaches the control plane through db_session_open and
  // project databases through the core's service core.tenant_databases.v1.
  return std::nullopt;
}

berth_str coreSetting(berth_host* host, berth_str key) noexcept {
  berth_str answer = kAbsent;
  guardedCall(host, "core_setting", [&] {
    if (auto value = coreSettingValue(host->manager.parts, view(key)))
      answer = host->manager.intern(std::move(*value));
    return BERTH_OK;
  });
  return answer;
}

// ---- buffers ----------------------------------------------------------------------------------

berth_buffer* bufferNew() noexcept {
  try {
    return std::make_unique<berth_buffer>().release();  // freed by bufferFree
  } catch (...) {
    return nullptr;
  }
}

void bufferAppend(berth_buffer* buffer, berth_str bytes) noexcept {
  if (buffer == nullptr) return;
  try {
    buffer->bytes.append(view(bytes));
  } catch (...) {
    // Out of memory: the answer is cut short, which the reader sees as malformed JSON.
  }
}

berth_str bufferView(const berth_buffer* buffer) noexcept {
  return buffer == nullptr ? kAbsent : borrow(buffer->bytes);
}

void bufferFree(berth_buffer* buffer) noexcept {
  std::unique_ptr<berth_buffer> owned(buffer);
}

// ---- other plugins ---------------------------------------------------------------------------

// A template plugin's power is the install context its installers are handed; it has no
// other way to other plugins or the control plane (berth/installer.hpp).
int32_t refuseTemplate(berth_host* host, std::string_view call, berth_buffer* out) {
  std::string why = "a template plugin acts on projects only through its install context";
  logCallFailure(*host, call, why);
  if (out != nullptr) out->bytes = nlohmann::json{{"status", 403}, {"error", why}}.dump();
  return BERTH_ERR;
}

int32_t callService(berth_host* host, berth_str name, berth_str method, berth_str request_json,
                    berth_buffer* out) noexcept {
  return guardedCall(host, "call_service", [&] {
    if (host->kind == BERTH_KIND_TEMPLATE) return refuseTemplate(host, "call_service", out);
    return host->manager.services.call(ServiceCaller::FeaturePlugin, view(name), view(method),
                                       view(request_json), out);
  });
}

int32_t fireHook(berth_host* host, berth_str event, berth_str payload_json,
                 berth_buffer* out) noexcept {
  return guardedCall(host, "fire_hook", [&] {
    // Plugins trust "pg.listening" and the notifications to keep what they read: only the
    // core's listener, which heard them from the database, fires them.
    if (view(event).starts_with(berth::kPgEventPrefix)) {
      std::string why = "only the core fires " + std::string(view(event));
      logCallFailure(*host, "fire_hook", why);
      if (out != nullptr) out->bytes = nlohmann::json{{"status", 403}, {"error", why}}.dump();
      return int32_t{BERTH_ERR};
    }
    return host->manager.hooks.fire(view(event), view(payload_json), out);
  });
}

void listInstallers(berth_host* host, berth_installer_visit_fn visit, void* ctx) noexcept {
  guardedCall(host, "list_installers", [&] {
    if (visit != nullptr) host->manager.installers.visit(visit, ctx);
    return BERTH_OK;
  });
}

// ---- accounts --------------------------------------------------------------------------------

Accounts& accountsOf(berth_host& host) {
  if (host.manager.parts.accounts == nullptr)
    throw DbUnavailable("accounts are not available before the database is up");
  return *host.manager.parts.accounts;
}

void visitAccount(const Account& account, berth_account_visit_fn visit, void* ctx) {
  const berth_account view{borrow(account.id),
                           borrow(account.slug),
                           account.email.empty() ? kAbsent : borrow(account.email),
                           borrow(account.plan),
                           account.is_team ? 1u : 0u,
                           static_cast<uint32_t>(account.role),
                           account.created_at};
  visit(ctx, &view);
}

int32_t accountGet(berth_host* host, berth_str id_or_slug, berth_account_visit_fn visit,
                   void* ctx) noexcept {
  return guardedCall(host, "account_get", [&]() -> int32_t {
    if (visit == nullptr) throw std::invalid_argument("no visitor given");
    std::optional<Account> account = accountsOf(*host).find(copy(id_or_slug));
    if (!account) return BERTH_ERR_NOT_FOUND;
    visitAccount(*account, visit, ctx);
    return BERTH_OK;
  });
}

int32_t accountMemberships(berth_host* host, berth_str user_account_id,
                           berth_account_visit_fn visit, void* ctx) noexcept {
  return guardedCall(host, "account_memberships", [&] {
    if (visit == nullptr) throw std::invalid_argument("no visitor given");
    for (const Account& account : accountsOf(*host).memberships(copy(user_account_id)))
      visitAccount(account, visit, ctx);
    return BERTH_OK;
  });
}

int64_t planLimitFromSettings(const Settings* settings, const std::string& plan) {
  if (settings == nullptr) return -2;
  auto it = settings->plans.find(plan);
  if (it == settings->plans.end()) return -2;
  return it->second ? *it->second : -1;
}

int64_t planProjectLimit(berth_host* host, berth_str plan) noexcept {
  int64_t limit = -2;
  guardedCall(host, "plan_project_limit", [&] {
    const CoreParts& parts = host->manager.parts;
    limit = parts.accounts ? parts.accounts->planLimit(copy(plan))
                           : planLimitFromSettings(parts.settings, copy(plan));
    return BERTH_OK;
  });
  return limit;
}

// ---- database ---------------------------------------------------------------------------------

int32_t dbSessionOpen(berth_host* host, berth_db_session** out) noexcept {
  if (host == nullptr) return BERTH_ERR;
  if (host->kind == BERTH_KIND_TEMPLATE)
    return guardedCall(host, "db_session_open",
                       [&] { return refuseTemplate(host, "db_session_open", nullptr); });
  return openDbSession(host->manager.parts.pool, out);
}

berth_db_result* dbExec(berth_host* host, berth_db_session* session, berth_str sql,
                        const berth_str* params, size_t param_count) noexcept {
  // A template plugin's statements find no database (BERTH_DB_UNAVAILABLE).
  bool allowed = host != nullptr && host->kind != BERTH_KIND_TEMPLATE;
  return execDb(allowed ? host->manager.parts.pool : nullptr, session, sql, params, param_count);
}

// ---- jobs and the edge -----------------------------------------------------------------------

int32_t jobStopRequested(const berth_job_ctx* ctx) noexcept {
  // Without a context there is no job to keep running: tell it to stop.
  if (ctx == nullptr || ctx->stop_requested == nullptr) return 1;
  return ctx->stop_requested->load() ? 1 : 0;
}

// Hosts end up in nginx's configuration, so only plain host names pass.
std::string checkedHostName(berth_str raw) {
  std::string host = asciiLower(copy(raw));
  const bool plain = std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
  if (host.empty() || host.size() > 253 || !plain || host.front() == '.' || host.front() == '-' ||
      host.find("..") != host.npos)
    throw std::invalid_argument("\"" + copy(raw) + "\" is not a host name");
  return host;
}

int32_t setCustomHosts(berth_host* host, const berth_str* hosts, size_t count) noexcept {
  return guardedCall(host, "set_custom_hosts", [&] {
    if (count > 0 && hosts == nullptr) throw std::invalid_argument("count without hosts");
    std::vector<std::string> mine;
    for (size_t i = 0; i < count; ++i) mine.push_back(checkedHostName(hosts[i]));
    PluginManager::Impl& manager = host->manager;
    // Held through the callback so that the edge sees unions in the order they were made.
    std::lock_guard lock(manager.custom_hosts_mutex);
    host->custom_hosts = std::move(mine);
    std::set<std::string> all;
    for (const LoadedPlugin& plugin : manager.plugins)
      all.insert(plugin.host->custom_hosts.begin(), plugin.host->custom_hosts.end());
    if (manager.parts.on_custom_hosts)
      manager.parts.on_custom_hosts(std::vector<std::string>(all.begin(), all.end()));
    return BERTH_OK;
  });
}

// One rule of the plugin's array; the array's stride is the plugin's struct size, so a plugin
// built for a later minor (with a longer rule) is read correctly.
template <class Raw>
const Raw& ruleAt(const Raw* rules, size_t index, const char* what) {
  const uint32_t stride = rules[0].struct_size;
  if (stride < sizeof(Raw))
    throw std::invalid_argument(std::string(what) + " rule is smaller than its ABI's");
  const auto* rule =
      reinterpret_cast<const Raw*>(reinterpret_cast<const char*>(rules) + index * stride);
  if (rule->struct_size != stride)
    throw std::invalid_argument(std::string("the ") + what + " rules differ in struct_size");
  return *rule;
}

// Checks the plugin's rules of one kind (each with its key: host or prefix, given once), makes
// them the plugin's, and hands the merge over plugins to `publish`: one rule per key, the first
// plugin in load order wins.
template <class Raw, class Rule, class Check, class Key>
int32_t replaceEdgeRules(berth_host* host, const char* call, const char* what, const Raw* rules,
                         size_t count, std::vector<Rule> berth_host::*owned, Check check, Key key,
                         const std::function<void(const std::vector<Rule>&)>& publish) {
  return guardedCall(host, call, [&] {
    if (count > 0 && rules == nullptr) throw std::invalid_argument("count without rules");
    std::vector<Rule> mine;
    std::set<std::string> keys;
    for (size_t i = 0; i < count; ++i) {
      Rule rule = check(ruleAt(rules, i, what));
      if (!keys.insert(key(rule)).second)
        throw std::invalid_argument(std::string(what) + " '" + key(rule) + "' is given twice");
      mine.push_back(std::move(rule));
    }
    PluginManager::Impl& manager = host->manager;
    // Held through the callback so that the edge sees merges in the order they were made.
    std::lock_guard lock(manager.edge_rules_mutex);
    (*host).*owned = std::move(mine);
    std::vector<Rule> all;
    std::map<std::string, std::string> owners;  // key -> plugin id
    for (const LoadedPlugin& plugin : manager.plugins) {
      for (const Rule& rule : (*plugin.host).*owned) {
        auto [owner, fresh] = owners.emplace(key(rule), plugin.host->id);
        if (fresh) {
          all.push_back(rule);
        } else if (plugin.host.get() == host) {
          logLine(*host->logger, spdlog::level::warn, "", "",
                  std::string(what) + " rule for " + key(rule) + " ignored: plugin " +
                      owner->second + " has one");
        }
      }
    }
    if (publish) publish(all);
    return BERTH_OK;
  });
}

int32_t setEdgeCache(berth_host* host, const berth_edge_cache_rule* rules, size_t count) noexcept {
  return replaceEdgeRules(
      host, "set_edge_cache", "edge cache", rules, count, &berth_host::edge_cache_rules,
      [](const berth_edge_cache_rule& raw) {
        return checkedEdgeCacheRule({copy(raw.host), copy(raw.key), raw.ttl_seconds});
      },
      [](const EdgeCacheRule& rule) { return rule.host; }, host->manager.parts.on_edge_cache);
}

int32_t setEdgeFiles(berth_host* host, const berth_edge_files_rule* rules, size_t count) noexcept {
  const std::string data_dir = host->manager.dataDir();
  return replaceEdgeRules(
      host, "set_edge_files", "edge files", rules, count, &berth_host::edge_files_rules,
      [&](const berth_edge_files_rule& raw) {
        return checkedEdgeFilesRule(
            {copy(raw.prefix), copy(raw.root), copy(raw.index), copy(raw.types_file)}, data_dir);
      },
      [](const EdgeFilesRule& rule) { return rule.prefix; }, host->manager.parts.on_edge_files);
}

int32_t setEdgeApps(berth_host* host, const berth_edge_app_rule* rules, size_t count) noexcept {
  return replaceEdgeRules(
      host, "set_edge_apps", "edge app", rules, count, &berth_host::edge_app_rules,
      [](const berth_edge_app_rule& raw) {
        if (raw.port < 1024 || raw.port > 65535)
          throw std::invalid_argument("edge app port for '" + copy(raw.host) +
                                      "' must be 1024 to 65535");
        return checkedEdgeAppRule({copy(raw.host), static_cast<uint16_t>(raw.port)});
      },
      [](const EdgeAppRule& rule) { return rule.host; }, host->manager.parts.on_edge_apps);
}

berth_host_api makeTable() {
  berth_host_api api{};
  api.struct_size = sizeof(berth_host_api);
  api.abi_major = BERTH_ABI_MAJOR;
  api.abi_minor = BERTH_ABI_MINOR;
  api.log = logMessage;
  api.report_error = reportError;
  api.declare_config = declareConfig;
  api.add_route = addRoute;
  api.add_migration = addMigration;
  api.add_job = addJob;
  api.add_hook = addHook;
  api.offer_service = offerService;
  api.add_installer = addInstaller;
  api.set_instance = setInstance;
  api.config_json = configJson;
  api.core_setting = coreSetting;
  api.req_get = requestPart;
  api.respond = respond;
  api.buffer_new = bufferNew;
  api.buffer_append = bufferAppend;
  api.buffer_view = bufferView;
  api.buffer_free = bufferFree;
  api.call_service = callService;
  api.fire_hook = fireHook;
  api.list_installers = listInstallers;
  api.account_get = accountGet;
  api.account_memberships = accountMemberships;
  api.plan_project_limit = planProjectLimit;
  api.db_session_open = dbSessionOpen;
  api.db_session_close = closeDbSession;
  api.db_exec = dbExec;
  api.db_result_status = dbResultStatus;
  api.db_result_error = dbResultError;
  api.db_result_sqlstate = dbResultSqlstate;
  api.db_result_rows = dbResultRows;
  api.db_result_columns = dbResultColumns;
  api.db_result_column_name = dbResultColumnName;
  api.db_result_value = dbResultValue;
  api.db_result_affected = dbResultAffected;
  api.db_result_free = dbResultFree;
  api.job_stop_requested = jobStopRequested;
  api.set_custom_hosts = setCustomHosts;
  api.set_edge_cache = setEdgeCache;
  api.set_edge_files = setEdgeFiles;
  api.set_edge_apps = setEdgeApps;
  api.add_app_installer = addAppInstaller;
  api.list_app_installers = listAppInstallers;
  api.run_app_install = runAppInstall;
  api.install_context = installContext;
  api.install_call = installCall;
  api.install_log = installLog;
  return api;
}

}  // namespace

const berth_host_api& hostApi() {
  static const berth_host_api table = makeTable();
  return table;
}

}  // namespace berth::core
