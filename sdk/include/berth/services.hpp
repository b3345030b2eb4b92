// SPDX-License-Identifier: MIT
/** @file
 *  berth::Services: what the core offers a plugin once it runs. Handed to Plugin::start() and
 *  reachable afterwards through Plugin::services().
 *
 *  THREADING: every method may be called from any thread, concurrently.
 */
#ifndef BERTH_SERVICES_HPP
#define BERTH_SERVICES_HPP

#include <berth/accounts.hpp>
#include <berth/db.hpp>
#include <berth/error.hpp>
#include <berth/host_ref.hpp>
#include <berth/installer.hpp>
#include <berth/logger.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

namespace detail {
struct PluginAccess;
}

/** One host whose answers the edge may cache (see Services::setEdgeCache). */
struct EdgeCacheRule {
  std::string host;          ///< a plain DNS name (letters, digits, '-', '.')
  std::string key;           ///< [A-Za-z0-9._-]{1,100}; a new key starts a fresh cache (a purge)
  uint32_t ttl_seconds = 0;  ///< lifetime of answers that do not say; 0: only those that do
};

/** A file tree the edge serves from on project hosts (see Services::setEdgeFiles). */
struct EdgeFilesRule {
  std::string prefix;      ///< "/" or "/<segment>/", e.g. "/_files/"
  std::string root;        ///< absolute, below data_dir; holds one entry per host
  std::string index;       ///< tried for a path ending in '/' (e.g. "index.html"); may be empty
  std::string types_file;  ///< an nginx `types { }` file; empty: the edge's own table
};

/** A running app the edge proxies a host to directly (see Services::setEdgeApps). */
struct EdgeAppRule {
  std::string host;  ///< a plain DNS name
  int port = 0;      ///< 127.0.0.1:port
};

namespace detail {
/** Why the core would refuse a rule, in its words; empty when it would not. The core checks
 *  again: this only gives the plugin a clear message without reading the core's log. */
inline std::string edgeCacheRuleProblem(const EdgeCacheRule& rule) {
  const std::string& h = rule.host;
  bool host_ok = !h.empty() && h.size() <= 253 && h.front() != '.' && h.front() != '-' &&
                 h.find("..") == std::string::npos;
  for (char c : h)
    host_ok = host_ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '.');
  if (!host_ok) return "edge cache host is not a valid host name: '" + h + "'";
  bool key_ok = !rule.key.empty() && rule.key.size() <= 100;
  for (char c : rule.key)
    key_ok = key_ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
  if (!key_ok)
    return "edge cache key for '" + h + "' must be 1 to 100 of A-Z a-z 0-9 . _ -: '" + rule.key +
           "'";
  if (rule.ttl_seconds > 365u * 24 * 3600)
    return "edge cache ttl for '" + h + "' is " + std::to_string(rule.ttl_seconds) +
           " s, above the limit of 31536000 s (1 year)";
  return {};
}

/** Host names compare without case and without a final '.'. */
inline bool sameHost(std::string_view a, std::string_view b) {
  if (!a.empty() && a.back() == '.') a.remove_suffix(1);
  if (!b.empty() && b.back() == '.') b.remove_suffix(1);
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
}  // namespace detail

class Services {
 public:
  Services() = default;
  explicit Services(HostRef host) : host_(host) {}

  /** The plugin's own configuration section (<id>: in berth.yaml) with the declared defaults
   *  filled in. Read from start() on; an empty object before. */
  const nlohmann::json& config() const noexcept { return config_; }

  /** One declared key of config(), typed: berth.yaml's value, else the default declared in
   *  registerAll (the core fills it in), so a default is written once, where its key is
   *  declared. T as declared: bool, an integer type, std::string, std::vector<std::string>, or
   *  nlohmann::json (an int map).
   *  @throw Error 500 naming the key when it was not declared (or start() has not been called)
   *  or its value is not a T. */
  template <class T>
  T configValue(std::string_view key) const {
    auto found = config_.find(std::string(key));
    if (found == config_.end())
      throw Error(500, "config key " + std::string(key) + " was not declared");
    try {
      return found->get<T>();
    } catch (const nlohmann::json::exception&) {
      throw Error(500, "config key " + std::string(key) + " does not hold the declared type");
    }
  }

  /** A core setting by dotted name: "server.apps_domain", "data_dir", "server.listen",
   *  "plugins.dir", "edge.body_dir", "server.node_proof". std::nullopt when the core has no
   *  such setting, and for "database.url" and "database.tenants_url", which carry a
   *  superuser's password and are handed to no plugin (project databases: the core's service
   *  core.tenant_databases.v1, <berth/services/core_tenant_databases.hpp>). */
  std::optional<std::string> coreSetting(std::string_view key) const {
    return detail::toOptional(api()->core_setting(host_.host, detail::toStr(key)));
  }

  /** Log lines named plugin.<id>. */
  Logger logger() const { return Logger(host_); }

  /** The control-plane database. */
  Db db() const { return Db(host_); }

  /** Calls a method of a service another plugin offers (names carry a version:
   *  "storage.blobs.v1"). The plugin should list the offering plugin in its dependencies.
   *  @return the answer, or std::nullopt when no loaded plugin offers the service.
   *  @throw Error with the status and message the service answered with. */
  std::optional<nlohmann::json> tryCall(std::string_view service, std::string_view method,
                                        const nlohmann::json& request) const {
    detail::Buffer out(api());
    std::string request_json = detail::dumpJson(request);
    int32_t status = api()->call_service(host_.host, detail::toStr(service), detail::toStr(method),
                                         detail::toStr(request_json), out.get());
    if (status == BERTH_ERR_NOT_FOUND) return std::nullopt;
    std::string what = "service " + std::string(service) + " (" + std::string(method) + ")";
    if (status != BERTH_OK) throw detail::errorFromAnswer(out.view(), what + " failed");
    if (out.view().empty()) return nlohmann::json();
    nlohmann::json answer = nlohmann::json::parse(out.view(), nullptr, false);
    if (answer.is_discarded()) throw Error(500, what + " answered non-JSON");
    return answer;
  }

  /** As tryCall, but a missing service is an Error 500 "service X is not available". */
  nlohmann::json call(std::string_view service, std::string_view method,
                      const nlohmann::json& request) const {
    std::optional<nlohmann::json> answer = tryCall(service, method, request);
    if (!answer) throw Error(500, "service " + std::string(service) + " is not available");
    return std::move(*answer);
  }

  /** Fires an event to every plugin's hook on it, in load order ("project.deleting" ...).
   *  @throw Error with the status and message of the first hook that refused. */
  void fire(std::string_view event, const nlohmann::json& payload) const {
    detail::Buffer out(api());
    std::string payload_json = detail::dumpJson(payload);
    int32_t status =
        api()->fire_hook(host_.host, detail::toStr(event), detail::toStr(payload_json), out.get());
    if (status == BERTH_OK || status == BERTH_ERR_NOT_FOUND) return;
    throw detail::errorFromAnswer(out.view(), "a hook on " + std::string(event) + " failed");
  }

  /** Fires an event whose hooks answer (Registrar::hookAnswer): the answers of the hooks that
   *  gave one, in load order; none when nobody subscribed. The core hands them over as one
   *  JSON array (a berthd older than answering hooks hands over none).
   *  @throw Error as fire(); Error 500 when the answers are not a JSON array. */
  std::vector<nlohmann::json> fireForAnswers(std::string_view event,
                                             const nlohmann::json& payload) const {
    detail::Buffer out(api());
    std::string payload_json = detail::dumpJson(payload);
    int32_t status =
        api()->fire_hook(host_.host, detail::toStr(event), detail::toStr(payload_json), out.get());
    if (status == BERTH_ERR_NOT_FOUND) return {};
    if (status != BERTH_OK)
      throw detail::errorFromAnswer(out.view(), "a hook on " + std::string(event) + " failed");
    if (out.view().empty()) return {};
    nlohmann::json answers = nlohmann::json::parse(out.view(), nullptr, false);
    if (!answers.is_array())
      throw Error(500, "the hooks on " + std::string(event) + " did not answer a JSON array");
    std::vector<nlohmann::json> list;
    list.reserve(answers.size());
    for (nlohmann::json& answer : answers) list.push_back(std::move(answer));
    return list;
  }

  /** An account or team by id or slug. @throw Error 503 when it could not be read. */
  std::optional<Account> account(std::string_view id_or_slug) const {
    AccountSink sink;
    int32_t status =
        api()->account_get(host_.host, detail::toStr(id_or_slug), &AccountSink::visit, &sink);
    if (status == BERTH_ERR_NOT_FOUND) return std::nullopt;
    sink.check(status);
    if (sink.accounts.empty()) return std::nullopt;
    return std::move(sink.accounts.front());
  }

  /** The user's own account (role Owner) and every team it belongs to, with its role there.
   *  @throw Error 503 when they could not be read. */
  std::vector<Account> memberships(std::string_view user_account_id) const {
    AccountSink sink;
    int32_t status = api()->account_memberships(host_.host, detail::toStr(user_account_id),
                                                &AccountSink::visit, &sink);
    if (status == BERTH_ERR_NOT_FOUND) return {};
    sink.check(status);
    return std::move(sink.accounts);
  }

  /** How many projects a plan allows; std::nullopt when it sets no limit.
   *  @throw Error 422 for a plan the configuration does not know. */
  std::optional<int64_t> planProjectLimit(std::string_view plan) const {
    int64_t limit = api()->plan_project_limit(host_.host, detail::toStr(plan));
    if (limit == -1) return std::nullopt;
    if (limit < 0) throw Error(422, "unknown plan \"" + std::string(plan) + "\"");
    return limit;
  }

  /** Replaces this plugin's list of custom hosts (verified domains) that the edge sends to
   *  the project gateway; the core reloads the edge. */
  void setCustomHosts(const std::vector<std::string>& hosts) const {
    std::vector<berth_str> raw;
    raw.reserve(hosts.size());
    for (const auto& host : hosts) raw.push_back(detail::toStr(host));
    if (api()->set_custom_hosts(host_.host, raw.empty() ? nullptr : raw.data(), raw.size()) !=
        BERTH_OK)
      throw Error(500, "the edge did not take the custom hosts");
  }

  /** Replaces this plugin's edge cache rules (an empty list clears them); the core reloads
   *  the edge. A host with a rule has its GET/HEAD answers given with
   *  Responder::proxyCached() kept by the edge, keyed by rule key, host, path and query:
   *  a repeat is answered by nginx without asking berthd or the app (x-berth-cache: HIT).
   *  Never cached: requests with Authorization or a cookie, answers that set a cookie or say
   *  Cache-Control no-store, no-cache or private. The answer's own max-age/s-maxage/Expires
   *  win over ttl_seconds.
   *  @throw Error 500 naming the bad rule (host, key, ttl above 1 year, a host twice), or
   *  when the core did not take the rules; nothing changes then. */
  void setEdgeCache(const std::vector<EdgeCacheRule>& rules) const {
    const berth_host_api* table = api();
    if (table->struct_size < offsetof(berth_host_api, set_edge_cache) + sizeof(void*) ||
        table->set_edge_cache == nullptr)
      throw Error(500, "this berthd has no edge cache (it needs Berth ABI 1.1)");
    std::vector<berth_edge_cache_rule> raw;
    raw.reserve(rules.size());
    for (size_t i = 0; i < rules.size(); ++i) {
      const EdgeCacheRule& rule = rules[i];
      std::string problem = detail::edgeCacheRuleProblem(rule);
      for (size_t j = 0; problem.empty() && j < i; ++j)
        if (detail::sameHost(rules[j].host, rule.host))
          problem = "edge cache host '" + rule.host + "' is given twice";
      if (!problem.empty()) throw Error(500, problem);
      berth_edge_cache_rule entry{};
      entry.struct_size = sizeof(berth_edge_cache_rule);
      entry.host = detail::toStr(rule.host);
      entry.key = detail::toStr(rule.key);
      entry.ttl_seconds = rule.ttl_seconds;
      raw.push_back(entry);
    }
    if (table->set_edge_cache(host_.host, raw.empty() ? nullptr : raw.data(), raw.size()) !=
        BERTH_OK)
      throw Error(500, "the edge did not take the edge cache rules");
  }

  /** Has the edge answer GET/HEAD requests under `prefix` on project hosts from files it finds
   *  at <root>/<host>/<path after prefix>, before asking berthd: a hit costs berthd nothing; a
   *  miss, another method, or a path with "//", "/." or an encoded '/', '.' or '\\' reaches
   *  the plugin's routes as before. The tree is the plugin's cache of its own answers: it must
   *  hold only what the plugin would serve, for the host named (a symbolic link per host to a
   *  project's folder is the usual shape), and the plugin removes entries before they stop
   *  being true. Replaces the plugin's previous rules.
   *  @throw Error 500 naming the bad rule (prefix, root outside data_dir, a prefix twice or
   *  another plugin's), or when the core did not take them; nothing changes then. */
  void setEdgeFiles(const std::vector<EdgeFilesRule>& rules) const {
    const berth_host_api* table = api();
    if (table->struct_size < offsetof(berth_host_api, set_edge_files) + sizeof(void*) ||
        table->set_edge_files == nullptr)
      throw Error(500, "this berthd has no edge file trees (it needs Berth ABI 1.2)");
    std::vector<berth_edge_files_rule> raw;
    raw.reserve(rules.size());
    for (const EdgeFilesRule& rule : rules) {
      berth_edge_files_rule entry{};
      entry.struct_size = sizeof(berth_edge_files_rule);
      entry.prefix = detail::toStr(rule.prefix);
      entry.root = detail::toStr(rule.root);
      entry.index = detail::toStr(rule.index);
      entry.types_file = detail::toStr(rule.types_file);
      raw.push_back(entry);
    }
    if (table->set_edge_files(host_.host, raw.empty() ? nullptr : raw.data(), raw.size()) !=
        BERTH_OK)
      throw Error(500, "the edge did not take the edge file rules (see berthd's log)");
  }

  /** Has the edge proxy every request for each rule's host straight to 127.0.0.1:port over
   *  kept-alive connections, without asking berthd (through the edge cache when the host has
   *  a cache rule, see setEdgeCache). If the app does not answer (502), the request reaches
   *  the plugin's routes as before, so a rule left for a stopped app costs a detour, not an
   *  error. The edge reloads to apply a change (coalesced, within about a second): remove a
   *  rule and wait that long before stopping its app. Replaces the plugin's previous rules.
   *  @throw Error 500 naming the bad rule (host, port, a host twice), or when the core did
   *  not take them; nothing changes then. */
  void setEdgeApps(const std::vector<EdgeAppRule>& rules) const {
    const berth_host_api* table = api();
    if (table->struct_size < offsetof(berth_host_api, set_edge_apps) + sizeof(void*) ||
        table->set_edge_apps == nullptr)
      throw Error(500, "this berthd cannot route apps at the edge (it needs Berth ABI 1.2)");
    std::vector<berth_edge_app_rule> raw;
    raw.reserve(rules.size());
    for (const EdgeAppRule& rule : rules) {
      if (rule.port < 1024 || rule.port > 65535)
        throw Error(500, "edge app port for '" + rule.host + "' must be 1024 to 65535");
      berth_edge_app_rule entry{};
      entry.struct_size = sizeof(berth_edge_app_rule);
      entry.host = detail::toStr(rule.host);
      entry.port = static_cast<uint32_t>(rule.port);
      raw.push_back(entry);
    }
    if (table->set_edge_apps(host_.host, raw.empty() ? nullptr : raw.data(), raw.size()) !=
        BERTH_OK)
      throw Error(500, "the edge did not take the edge app rules (see berthd's log)");
  }

  /** Every installer the loaded plugins declared (ABI 1.3), with what each lacks. */
  std::vector<InstallerListing> installers() const {
    const berth_host_api* table = api();
    std::vector<InstallerListing> listed;
    if (table->struct_size < offsetof(berth_host_api, list_app_installers) + sizeof(void*))
      return listed;
    table->list_app_installers(
        host_.host,
        [](void* sink, const berth_app_installer* installer, berth_str owner, berth_str missing) {
          try {
            InstallerListing listing{std::string(detail::toView(installer->slug)),
                                     std::string(detail::toView(installer->name)),
                                     std::string(detail::toView(installer->description)),
                                     std::string(detail::toView(installer->version)),
                                     std::string(detail::toView(owner)),
                                     std::string(detail::toView(missing)),
                                     {}};
            for (size_t i = 0; i < installer->field_count; ++i)
              listing.fields.push_back(Field{std::string(detail::toView(installer->fields[i].name)),
                                             static_cast<FieldType>(installer->fields[i].type),
                                             installer->fields[i].required != 0});
            static_cast<std::vector<InstallerListing>*>(sink)->push_back(std::move(listing));
          } catch (...) {
            // Out of memory: the listing comes back short.
          }
        },
        &listed);
    return listed;
  }

  /** Runs the installer `slug` for a project, through the core. `context` is
   *  {"project": {...the directory's record...}, "caller": account id, "request_id"}: the
   *  caller's access to the project is the calling plugin's to check.
   *  @return the installer's answer.
   *  @throw Error 404 for an unknown slug, 422 (plain text in a route) when the body does not
   *  have the installer's fields, 503 when a required service is missing, or what the
   *  installer refused with. */
  nlohmann::json runInstall(std::string_view slug, const nlohmann::json& context,
                            const nlohmann::json& body) const {
    const berth_host_api* table = api();
    if (table->struct_size < offsetof(berth_host_api, run_app_install) + sizeof(void*))
      throw Error(501, "this berthd runs no installers");
    detail::Buffer out(table);
    std::string context_json = detail::dumpJson(context), body_json = detail::dumpJson(body);
    int32_t status =
        table->run_app_install(host_.host, detail::toStr(slug), detail::toStr(context_json),
                               detail::toStr(body_json), out.get());
    std::string what = "the installer " + std::string(slug);
    if (status != BERTH_OK) throw detail::errorFromAnswer(out.view(), what + " failed");
    if (out.view().empty()) return nlohmann::json::object();
    nlohmann::json answer = nlohmann::json::parse(out.view(), nullptr, false);
    if (answer.is_discarded()) throw Error(500, what + " answered non-JSON");
    return answer;
  }

  /** The ABI handles, for what the C++ layer does not wrap. */
  const HostRef& host() const noexcept { return host_; }

 private:
  friend struct detail::PluginAccess;

  /** Services are bound when the plugin registers; a plugin's constructor is too early. */
  const berth_host_api* api() const {
    if (!host_.bound()) throw Error(500, "berth::Services used before the plugin was registered");
    return host_.api;
  }

  /** Visitors run inside the core's call: nothing may be thrown through it. */
  struct AccountSink {
    std::vector<Account> accounts;
    bool failed = false;

    static void visit(void* context, const berth_account* account) noexcept {
      auto* sink = static_cast<AccountSink*>(context);
      try {
        sink->accounts.push_back(detail::toAccount(*account));
      } catch (...) {
        sink->failed = true;
      }
    }
    void check(int32_t status) const {
      if (status != BERTH_OK || failed) throw Error(503, "could not read the accounts");
    }
  };

  /** Called by the SDK before start(): the section is final once registration closed. */
  void loadConfig() {
    std::string_view text = detail::toView(api()->config_json(host_.host));
    nlohmann::json parsed =
        text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_object()) throw Error(500, "the plugin's configuration is not a JSON object");
    config_ = std::move(parsed);
  }

  HostRef host_;
  nlohmann::json config_ = nlohmann::json::object();
};

}  // namespace berth

#endif  // BERTH_SERVICES_HPP
