// SPDX-License-Identifier: MIT
/** @file
 *  projects.directory.v1: what other plugins may ask the projects plugin about projects.
 *  Header-only, no ABI: the requests and answers as types, their JSON written and read once
 *  (the projects plugin reads requests and writes answers with it, consumers the other way
 *  round), the access rule `find` and `can_manage` answer with, and a typed client:
 *
 *      berth::ProjectsDirectory directory(services());
 *      berth::projects_directory::Project p = directory.find(caller_account_id, name);  // or 404
 *
 *  Methods (request -> answer; the JSON names are the fields of the structs below):
 *  - `find` {account_id, name} -> Project, if the account reaches the project (see reaches()).
 *  - `get` {id} or {name} -> Project.
 *  - `by_host` {host} -> Project: `<name>.<apps_domain>`, or a verified custom domain.
 *  - `database` {id} or {name} -> Database: the project's own role, never a superuser.
 *  - `secrets` {id or name, scope} -> {vars: {NAME: value}} (scope "runtime" or "build"; a
 *    secret of scope "both" is in either).
 *  - `can_manage` {account_id, id or name} -> {allowed}: owner, or admin of the project's team.
 *  - `account_projects` {account_id} -> {ids}: every project of the account, in any state
 *    (one being made or removed too), by id.
 *  - `public_url` {id} or {name} -> {url}: the address people reach the project at: its first
 *    verified custom domain (in the order they were verified), with the scheme and port of its
 *    own `url`, else its own `url`. What an app gets as BERTH_URL.
 *  - `view` {project_id, account_id?} -> ProjectView: the Project exactly as
 *    GET /projects/{name} answers it, written by the route's own code (state and live from the
 *    runtime plugin, files from storage, owner, team, runtime, ...). With account_id, as that
 *    account sees it: a project the account cannot reach is a 404 like a missing one. Without,
 *    any ready project (the caller acts for it: an installer, whose project the core set).
 *  - `set_cache` {project_id, cache_enabled, cache_ttl?} -> ProjectView (as `view`, after the
 *    change): the edge cache settings, set by the code of PATCH /projects/{name} with its rules
 *    and texts (400 "cache_ttl must be between 0 and 31536000") and effects (project.updated:
 *    the runtime moves its cache rules at once). An installer of an app whose GET answers must
 *    never be kept (n8n's webhooks run a workflow on every call) turns it off.
 *  - `set_cmd` {project_id, cmd} -> ProjectView (as `view`, after the change): the start command
 *    set by the code of PATCH /projects/{name}, with its rules and texts (400 "the start command
 *    must be one line", "... cannot contain <c>", "... cannot begin with an assignment like
 *    NAME=value; set a secret instead") and its effects: the project.updated hook, which the
 *    runtime follows; as with PATCH nothing is restarted, the command is used from the app's
 *    next start. `cmd` must be given: a string, or null to clear it (as "" does). Installers
 *    call it through their context (the core sets project_id); there is no membership check.
 *
 *  Invariants:
 *  - Only ready projects are answered; anything else is 404, with the texts of notFound()
 *    ("no project called <name or id>") and notAt() ("no project at <host>"). find answers a
 *    project the account cannot reach exactly like a missing one, so a handler passes the
 *    404 on as its own and says nothing about other accounts' projects.
 *  - A Project has every field of the struct, always (answers without one are refused with
 *    Error 500 by the parser); id, name and account_id never change while the project lives.
 *  - In a request, a field left out reads as empty (which names no project: 404); a field of
 *    the wrong type is refused with 400 "<field> must be a string". `view` and `set_cmd` take
 *    the project as project_id (the field the core sets in an installer's requests), which
 *    they require: 400 "project_id is required and must be a string".
 *  - The wire format is version 1's: new fields may be added to answers, never removed.
 */
#ifndef BERTH_SERVICES_PROJECTS_DIRECTORY_HPP
#define BERTH_SERVICES_PROJECTS_DIRECTORY_HPP

#include <berth/accounts.hpp>
#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/projects_view.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {
namespace projects_directory {

inline constexpr std::string_view kService = "projects.directory.v1";

inline constexpr std::string_view kFind = "find";
inline constexpr std::string_view kGet = "get";
inline constexpr std::string_view kByHost = "by_host";
inline constexpr std::string_view kDatabase = "database";
inline constexpr std::string_view kSecrets = "secrets";
inline constexpr std::string_view kCanManage = "can_manage";
inline constexpr std::string_view kAccountProjects = "account_projects";
inline constexpr std::string_view kPublicUrl = "public_url";
inline constexpr std::string_view kView = "view";
inline constexpr std::string_view kSetCmd = "set_cmd";
inline constexpr std::string_view kSetCache = "set_cache";

/** The scopes `secrets` is asked for. */
inline constexpr std::string_view kRuntimeScope = "runtime";  ///< what the running app gets
inline constexpr std::string_view kBuildScope = "build";      ///< what a release's build gets

/** The longest cache_ttl a project may have (one year, in seconds). */
inline constexpr uint32_t kMaxCacheTtl = 31536000;

// ---- answers ------------------------------------------------------------------------------

/** A project, as find, get and by_host answer it. */
struct Project {
  std::string id;          ///< what other plugins key their rows by
  std::string name;        ///< unique on the platform; also the first label of `host`
  std::string label;       ///< the name a person gave it
  std::string account_id;  ///< the account (a user's own, or a team) it belongs to
  std::string host;        ///< `<name>.<apps_domain>`: its own host (never a custom domain)
  std::string url;         ///< `http://<host>[:port]`
  std::string region;
  std::string cmd;  ///< the start command set on the project; may be empty
  bool ignore_dockerfile = false;
  bool cache_enabled = true;  ///< may the edge cache its answers
  uint32_t cache_ttl = 60;    ///< seconds, 0 to kMaxCacheTtl

  bool operator==(const Project&) const = default;
};

inline nlohmann::json toJson(const Project& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"label", p.label},
          {"account_id", p.account_id},
          {"host", p.host},
          {"url", p.url},
          {"region", p.region},
          {"cmd", p.cmd},
          {"ignore_dockerfile", p.ignore_dockerfile},
          {"cache_enabled", p.cache_enabled},
          {"cache_ttl", p.cache_ttl}};
}

/** @param method the method that answered (for the message of a refusal).
 *  @throw Error 500 naming the field when one is missing or of the wrong type. */
inline Project parseProject(const nlohmann::json& answer, std::string_view method = kGet) {
  service_json::Answer a(answer, kService, method);
  Project p;
  p.id = a.text("id");
  p.name = a.text("name");
  p.label = a.text("label");
  p.account_id = a.text("account_id");
  p.host = a.text("host");
  p.url = a.text("url");
  p.region = a.text("region");
  p.cmd = a.text("cmd");
  p.ignore_dockerfile = a.flag("ignore_dockerfile");
  p.cache_enabled = a.flag("cache_enabled");
  const int64_t ttl = a.integer("cache_ttl");
  if (ttl < 0 || ttl > kMaxCacheTtl) throw a.refusal("cache_ttl", "0 to 31536000 seconds");
  p.cache_ttl = static_cast<uint32_t>(ttl);
  return p;
}

/** The project's own database, reached as the project's own login role. */
struct Database {
  std::string url;       ///< a libpq URL with the role's password
  std::string database;  ///< the database's name
  std::string role;      ///< the login role's name

  bool operator==(const Database&) const = default;
};

inline nlohmann::json toJson(const Database& d) {
  return {{"url", d.url}, {"database", d.database}, {"role", d.role}};
}

inline Database parseDatabase(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kDatabase);
  return {a.text("url"), a.text("database"), a.text("role")};
}

/** The answer of `secrets`: every secret of the scope, by name, opened. */
using SecretValues = std::map<std::string, std::string>;

inline nlohmann::json secretsJson(const SecretValues& vars) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : vars) out[name] = value;
  return {{"vars", std::move(out)}};
}

inline SecretValues parseSecrets(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kSecrets);
  service_json::Answer vars = a.object("vars");
  SecretValues out;
  for (const auto& item : vars.json().items()) out[item.key()] = vars.text(item.key());
  return out;
}

inline nlohmann::json allowedJson(bool allowed) {
  return {{"allowed", allowed}};
}
inline bool parseAllowed(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kCanManage).flag("allowed");
}

inline nlohmann::json idsJson(const std::vector<std::string>& ids) {
  return {{"ids", ids}};
}
inline std::vector<std::string> parseIds(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kAccountProjects).texts("ids");
}

/** Who a project belongs to, as the Project of GET /projects/{name} shows it. */
struct Owner {
  std::string id;
  std::string slug;
  std::optional<std::string> email;  ///< null for a team

  bool operator==(const Owner&) const = default;
};

/** A project as GET /projects/{name} answers it (docs/openapi.yaml, the Project schema): what
 *  `view` and `set_cmd` answer. The projects plugin writes it with the route's own code, so
 *  only its reading is here. */
struct ProjectView {
  std::string name;
  std::string label;
  std::string host;
  std::string url;
  std::string state;  ///< "running" or "stopped" (from the runtime plugin)
  std::optional<projects_view::LiveRelease> live;  ///< null before the first release
  std::string region;
  std::string cmd;
  std::optional<std::string> runtime;  ///< from the first word of cmd; null when unknown
  bool ignore_dockerfile = false;
  bool cache_enabled = true;
  uint32_t cache_ttl = 60;
  int64_t db_bytes = 0;
  int64_t files_count = 0;
  int64_t files_bytes = 0;
  std::optional<Owner> owner;
  std::optional<std::string> team;  ///< the team's slug, for a team's project
  int64_t created_at = 0;

  bool operator==(const ProjectView&) const = default;
};

/** @param method the method that answered (for the message of a refusal). */
inline ProjectView parseProjectView(const nlohmann::json& answer, std::string_view method = kView) {
  service_json::Answer a(answer, kService, method);
  ProjectView v;
  v.name = a.text("name");
  v.label = a.text("label");
  v.host = a.text("host");
  v.url = a.text("url");
  v.state = a.text("state");
  if (std::optional<service_json::Answer> live = a.objectOrNull("live"))
    v.live = projects_view::LiveRelease{live->text("id"), live->integer("created_at"),
                                        live->count("files"), live->count("bytes")};
  v.region = a.text("region");
  v.cmd = a.text("cmd");
  v.runtime = a.textOrNull("runtime");
  v.ignore_dockerfile = a.flag("ignore_dockerfile");
  v.cache_enabled = a.flag("cache_enabled");
  const int64_t ttl = a.integer("cache_ttl");
  if (ttl < 0 || ttl > kMaxCacheTtl) throw a.refusal("cache_ttl", "0 to 31536000 seconds");
  v.cache_ttl = static_cast<uint32_t>(ttl);
  v.db_bytes = a.integer("db_bytes");
  v.files_count = a.integer("files_count");
  v.files_bytes = a.integer("files_bytes");
  if (std::optional<service_json::Answer> owner = a.objectOrNull("owner"))
    v.owner = Owner{owner->text("id"), owner->text("slug"), owner->textOrNull("email")};
  v.team = a.textOrNull("team");
  v.created_at = a.integer("created_at");
  return v;
}

// ---- requests -----------------------------------------------------------------------------

/** One project, by id or by name (get, database, secrets, can_manage). With both, the id
 *  decides. */
struct ProjectKey {
  std::optional<std::string> id;
  std::optional<std::string> name;

  static ProjectKey byId(std::string id) { return {std::move(id), std::nullopt}; }
  static ProjectKey byName(std::string name) { return {std::nullopt, std::move(name)}; }
  /** What a 404 names: the name when the request gave one, else the id. */
  std::string shown() const { return name ? *name : id.value_or(""); }

  bool operator==(const ProjectKey&) const = default;
};

/** Adds the key's fields to a request object. */
inline void addTo(nlohmann::json& request, const ProjectKey& key) {
  if (key.id) request["id"] = *key.id;
  if (key.name) request["name"] = *key.name;
}
inline nlohmann::json toJson(const ProjectKey& key) {
  nlohmann::json request = nlohmann::json::object();
  addTo(request, key);
  return request;
}
/** @throw Error 400 "id must be a string" (or name). */
inline ProjectKey parseProjectKey(const nlohmann::json& request) {
  return {service_json::optionalText(request, "id"), service_json::optionalText(request, "name")};
}

struct FindRequest {
  std::string account_id;  ///< whose reach decides (usually the caller's account)
  std::string name;
};
inline nlohmann::json toJson(const FindRequest& r) {
  return {{"account_id", r.account_id}, {"name", r.name}};
}
inline FindRequest parseFindRequest(const nlohmann::json& request) {
  return {service_json::optionalText(request, "account_id").value_or(""),
          service_json::optionalText(request, "name").value_or("")};
}

inline nlohmann::json byHostJson(std::string_view host) {
  return {{"host", host}};
}
inline std::string parseByHostRequest(const nlohmann::json& request) {
  return service_json::optionalText(request, "host").value_or("");
}

struct SecretsRequest {
  ProjectKey project;
  std::string scope = std::string(kRuntimeScope);
};
inline nlohmann::json toJson(const SecretsRequest& r) {
  nlohmann::json request = {{"scope", r.scope}};
  addTo(request, r.project);
  return request;
}
/** A request without scope asks for "runtime". */
inline SecretsRequest parseSecretsRequest(const nlohmann::json& request) {
  return {parseProjectKey(request),
          service_json::optionalText(request, "scope").value_or(std::string(kRuntimeScope))};
}

struct CanManageRequest {
  std::string account_id;
  ProjectKey project;
};
inline nlohmann::json toJson(const CanManageRequest& r) {
  nlohmann::json request = {{"account_id", r.account_id}};
  addTo(request, r.project);
  return request;
}
inline CanManageRequest parseCanManageRequest(const nlohmann::json& request) {
  return {service_json::optionalText(request, "account_id").value_or(""), parseProjectKey(request)};
}

inline nlohmann::json accountJson(std::string_view account_id) {
  return {{"account_id", account_id}};
}
/** The account_id of account_projects' request. */
inline std::string parseAccountRequest(const nlohmann::json& request) {
  return service_json::optionalText(request, "account_id").value_or("");
}

struct ViewRequest {
  std::string project_id;
  std::string account_id;  ///< empty: no account's reach is checked
};
inline nlohmann::json toJson(const ViewRequest& r) {
  nlohmann::json request = {{"project_id", r.project_id}};
  if (!r.account_id.empty()) request["account_id"] = r.account_id;
  return request;
}
/** @throw Error 400 "project_id is required and must be a string", "account_id must be a
 *  string". */
inline ViewRequest parseViewRequest(const nlohmann::json& request) {
  return {service_json::requiredText(request, "project_id"),
          service_json::optionalText(request, "account_id").value_or("")};
}

struct SetCmdRequest {
  std::string project_id;
  std::optional<std::string> cmd;  ///< std::nullopt clears it
};
inline nlohmann::json toJson(const SetCmdRequest& r) {
  return {{"project_id", r.project_id},
          {"cmd", r.cmd ? nlohmann::json(*r.cmd) : nlohmann::json(nullptr)}};
}
/** @throw Error 400 "project_id is required and must be a string", "cmd is required: a string,
 *  or null to clear it". */
inline SetCmdRequest parseSetCmdRequest(const nlohmann::json& request) {
  SetCmdRequest r{service_json::requiredText(request, "project_id"), std::nullopt};
  auto cmd = request.find("cmd");
  if (cmd == request.end() || !(cmd->is_string() || cmd->is_null()))
    throw Error::badRequest("cmd is required: a string, or null to clear it");
  if (cmd->is_string()) r.cmd = cmd->get<std::string>();
  return r;
}

struct SetCacheRequest {
  std::string project_id;
  bool cache_enabled = true;
  std::optional<int64_t> cache_ttl;  ///< std::nullopt keeps it
};
inline nlohmann::json toJson(const SetCacheRequest& r) {
  nlohmann::json out = {{"project_id", r.project_id}, {"cache_enabled", r.cache_enabled}};
  if (r.cache_ttl) out["cache_ttl"] = *r.cache_ttl;
  return out;
}
/** @throw Error 400 "project_id is required and must be a string", "cache_enabled is required
 *  and must be a boolean", "cache_ttl must be a whole number". */
inline SetCacheRequest parseSetCacheRequest(const nlohmann::json& request) {
  SetCacheRequest r{service_json::requiredText(request, "project_id"), true, std::nullopt};
  auto enabled = request.find("cache_enabled");
  if (enabled == request.end() || !enabled->is_boolean())
    throw Error::badRequest("cache_enabled is required and must be a boolean");
  r.cache_enabled = enabled->get<bool>();
  if (auto ttl = request.find("cache_ttl"); ttl != request.end() && !ttl->is_null()) {
    if (!ttl->is_number_integer()) throw Error::badRequest("cache_ttl must be a whole number");
    r.cache_ttl = ttl->get<int64_t>();
  }
  return r;
}

// ---- the rule and the refusals --------------------------------------------------------------

/** How far an account must reach a project. */
enum class Reach {
  See,     ///< find: read and change it (any member of its account)
  Manage,  ///< can_manage: delete it, import a database (the owner, or an admin of its team)
};

/** The access rule, written once: an account reaches a project when the project's account is
 *  among the account's memberships (Services::memberships(): its own account, as owner, and
 *  every team it belongs to, with its role there); to manage it, its role there must be owner
 *  or admin. The projects plugin answers find and can_manage with it. A consumer asks find or
 *  can_manage; only one that must decide from a Project it kept, without a service call (on a
 *  core thread), calls this itself. */
inline bool reaches(const std::vector<Account>& memberships, std::string_view project_account_id,
                    Reach reach) {
  for (const Account& account : memberships)
    if (account.id == project_account_id) return reach == Reach::See || account.canManage();
  return false;
}

/** The same with the account's memberships read from the core (which keeps them).
 *  @throw Error 503 when they could not be read. */
inline bool reaches(const Services& services, std::string_view account_id,
                    std::string_view project_account_id, Reach reach) {
  return reaches(services.memberships(account_id), project_account_id, reach);
}

/** The 404 of find, get, database, secrets and can_manage. */
inline Error notFound(std::string_view name_or_id) {
  return Error::notFound("no project called " + std::string(name_or_id));
}
/** `url` with its host replaced: "http://blog-ann1.localhost:8080" on "www.example.com" is
 *  "http://www.example.com:8080" (a custom domain reaches the same listener). */
inline std::string addressOn(std::string_view url, std::string_view host) {
  size_t scheme_end = url.find("://");
  size_t host_start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  size_t host_end = url.find_first_of(":/", host_start);
  std::string_view rest =
      host_end == std::string_view::npos ? std::string_view() : url.substr(host_end);
  return std::string(url.substr(0, host_start)) + std::string(host) + std::string(rest);
}

inline nlohmann::json publicUrlJson(std::string_view url) {
  return {{"url", url}};
}
inline std::string parsePublicUrl(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kPublicUrl).text("url");
}

/** The 404 of by_host. */
inline Error notAt(std::string_view host) {
  return Error::notFound("no project at " + std::string(host));
}

}  // namespace projects_directory

/** The typed client of projects.directory.v1: each method asks the service once and parses its
 *  answer. Errors pass through as the service answered them (a 404 stays a 404 with the
 *  directory's text); a missing projects plugin is Error 500 "service projects.directory.v1 is
 *  not available"; an answer that breaks the contract is Error 500 naming the field.
 *  Cheap to make: it holds a pointer to the Services. */
class ProjectsDirectory {
 public:
  using Project = projects_directory::Project;
  using ProjectKey = projects_directory::ProjectKey;

  explicit ProjectsDirectory(const Services& services) : services_(&services) {}

  /** The project called `name` if `account_id` reaches it (projects_directory::reaches).
   *  @throw Error 404 "no project called <name>", for a missing project and another
   *  account's alike. */
  Project find(std::string_view account_id, std::string_view name) const {
    using namespace projects_directory;
    return parseProject(ask(kFind, toJson(FindRequest{std::string(account_id), std::string(name)})),
                        kFind);
  }

  /** @throw Error 404 "no project called <name or id>". */
  Project get(const ProjectKey& key) const {
    using namespace projects_directory;
    return parseProject(ask(kGet, toJson(key)), kGet);
  }
  Project getById(std::string_view id) const { return get(ProjectKey::byId(std::string(id))); }

  /** As getById, with std::nullopt for the 404 (a project removed, or still being made); any
   *  other error is thrown. */
  std::optional<Project> tryGetById(std::string_view id) const {
    try {
      return getById(id);
    } catch (const Error& e) {
      if (e.status() == 404) return std::nullopt;
      throw;
    }
  }

  /** The project at a host: its own `<name>.<apps_domain>` or a verified custom domain.
   *  @throw Error 404 "no project at <host>". */
  Project byHost(std::string_view host) const {
    using namespace projects_directory;
    return parseProject(ask(kByHost, byHostJson(host)), kByHost);
  }

  /** The project's public address (its first verified custom domain, else its own url).
   *  @throw Error 404 "no project called <id>". */
  std::string publicUrl(std::string_view project_id) const {
    using namespace projects_directory;
    return parsePublicUrl(ask(kPublicUrl, toJson(ProjectKey::byId(std::string(project_id)))));
  }

  /** @throw Error 404 "no project called <id>". */
  projects_directory::Database database(std::string_view project_id) const {
    using namespace projects_directory;
    return parseDatabase(ask(kDatabase, toJson(ProjectKey::byId(std::string(project_id)))));
  }

  /** The project's secrets of `scope` (kRuntimeScope or kBuildScope), opened. Empty when the
   *  server has no secrets key. @throw Error 404 "no project called <id>". */
  projects_directory::SecretValues secrets(std::string_view project_id,
                                           std::string_view scope) const {
    using namespace projects_directory;
    return parseSecrets(
        ask(kSecrets,
            toJson(SecretsRequest{ProjectKey::byId(std::string(project_id)), std::string(scope)})));
  }

  /** May `account_id` manage the project (the owner, or an admin of its team)?
   *  @throw Error 404 "no project called <id>". */
  bool canManage(std::string_view account_id, std::string_view project_id) const {
    using namespace projects_directory;
    return parseAllowed(
        ask(kCanManage, toJson(CanManageRequest{std::string(account_id),
                                                ProjectKey::byId(std::string(project_id))})));
  }

  /** The project as GET /projects/{name} answers it; with an account_id, as that account sees
   *  it. @throw Error 404 "no project called <id>" (also for a project the account cannot
   *  reach). */
  projects_directory::ProjectView view(std::string_view project_id,
                                       std::string_view account_id = {}) const {
    using namespace projects_directory;
    return parseProjectView(
        ask(kView, toJson(ViewRequest{std::string(project_id), std::string(account_id)})), kView);
  }

  /** Sets (std::nullopt: clears) the start command, as PATCH /projects/{name} does; answers the
   *  project as view() does. @throw Error 400 with PATCH's text for a refused command, 404
   *  "no project called <id>". */
  projects_directory::ProjectView setCmd(std::string_view project_id,
                                         std::optional<std::string> cmd) const {
    using namespace projects_directory;
    return parseProjectView(
        ask(kSetCmd, toJson(SetCmdRequest{std::string(project_id), std::move(cmd)})), kSetCmd);
  }

  /** The ids of every project of the account, in any state. */
  std::vector<std::string> accountProjects(std::string_view account_id) const {
    using namespace projects_directory;
    return parseIds(ask(kAccountProjects, accountJson(account_id)));
  }

 private:
  nlohmann::json ask(std::string_view method, const nlohmann::json& request) const {
    return services_->call(projects_directory::kService, method, request);
  }

  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_PROJECTS_DIRECTORY_HPP
