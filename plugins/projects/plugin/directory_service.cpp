#include "directory_service.hpp"

#include <berth/services/accounts_usage.hpp>
#include <berth/services/projects_directory.hpp>

#include "project_record.hpp"
#include "project_settings.hpp"
#include "project_view.hpp"
#include "secret_store.hpp"

namespace berth::projects {

namespace {

using berth::Error;
namespace directory = berth::projects_directory;

directory::Project summary(const Context& c, const ProjectRecord& p) {
  directory::Project out;
  out.id = p.id;
  out.name = p.name;
  out.label = p.label;
  out.account_id = p.account_id;
  out.host = c.hostOf(p.name);
  out.url = c.urlOf(p.name);
  out.region = p.region;
  out.cmd = p.cmd;
  out.ignore_dockerfile = p.ignore_dockerfile;
  out.cache_enabled = p.cache_enabled;
  out.cache_ttl = static_cast<uint32_t>(p.cache_ttl);  // 0..31536000: the table's CHECK
  return out;
}

ProjectRecord byKey(const Context& c, const directory::ProjectKey& key) {
  std::optional<ProjectRecord> p = key.id ? findReadyProjectById(c.db(), *key.id)
                                          : findReadyProject(c.db(), key.name.value_or(""));
  if (!p) throw directory::notFound(key.shown());
  return *p;
}

bool reaches(const Context& c, const std::string& account_id, const ProjectRecord& p,
             directory::Reach reach) {
  return directory::reaches(*c.services, account_id, p.account_id, reach);
}

// view and set_cmd: the Project of GET /projects/{name}, written by the route's own code. With
// an account, as the route answers it: a project the account does not reach is 404, and the
// owner shown is its membership of the project's account; without, any ready project, its
// owner the account as the core keeps it.
nlohmann::json viewJson(const Context& c, const ProjectRecord& p, const std::string& account_id) {
  std::optional<berth::Account> owner;
  if (!account_id.empty()) {
    std::vector<berth::Account> memberships = c.services->memberships(account_id);
    if (!directory::reaches(memberships, p.account_id, directory::Reach::See))
      throw directory::notFound(p.id);
    for (berth::Account& a : memberships)
      if (a.id == p.account_id) owner = std::move(a);
  } else {
    owner = c.services->account(p.account_id);
  }
  return nlohmann::json::parse(projectViewJson(c, p, owner ? &*owner : nullptr));
}

}  // namespace

void registerDirectoryService(berth::Registrar& r, const Context& context) {
  const Context* c = &context;
  r.service(std::string(directory::kService), [c](std::string_view method,
                                                  const nlohmann::json& request) {
    if (method == directory::kGet)
      return toJson(summary(*c, byKey(*c, directory::parseProjectKey(request))));
    if (method == directory::kFind) {
      directory::FindRequest find = directory::parseFindRequest(request);
      auto p = findReadyProject(c->db(), find.name);
      if (!p || !reaches(*c, find.account_id, *p, directory::Reach::See))
        throw directory::notFound(find.name);
      return toJson(summary(*c, *p));
    }
    if (method == directory::kCanManage) {
      directory::CanManageRequest asked = directory::parseCanManageRequest(request);
      auto p = byKey(*c, asked.project);
      return directory::allowedJson(reaches(*c, asked.account_id, p, directory::Reach::Manage));
    }
    if (method == directory::kByHost) {
      std::string host = directory::parseByHostRequest(request);
      std::string suffix = "." + c->settings.apps_domain;
      std::optional<ProjectRecord> p;
      if (host.size() > suffix.size() &&
          host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0) {
        p = findReadyProject(c->db(), host.substr(0, host.size() - suffix.size()));
      } else {
        auto d = c->db().exec(
            "SELECT project_id FROM projects.domains WHERE host = $1 AND verified", host);
        if (d.rows() > 0) p = findReadyProjectById(c->db(), d.get<std::string>(0, 0));
      }
      if (!p) throw directory::notAt(host);
      return toJson(summary(*c, *p));
    }
    // Every project of an account, whatever its state (one being made or removed still holds
    // what it stored): what the storage plugin sums for the account's disk quota.
    if (method == directory::kAccountProjects) {
      auto r = c->db().exec("SELECT id FROM projects.projects WHERE account_id = $1 ORDER BY id",
                            directory::parseAccountRequest(request));
      std::vector<std::string> ids;
      for (int64_t i = 0; i < r.rows(); ++i) ids.push_back(r.get<std::string>(i, 0));
      return directory::idsJson(ids);
    }
    if (method == directory::kDatabase) {
      auto p = byKey(*c, directory::parseProjectKey(request));
      core_tenant_databases::Database db{p.db_name, p.db_role,
                                         c->vault->open(p.db_password_sealed, p.id)};
      return toJson(directory::Database{c->databases->url(db), db.database, db.role});
    }
    if (method == directory::kPublicUrl) {
      auto p = byKey(*c, directory::parseProjectKey(request));
      std::string url = summary(*c, p).url;
      auto d = c->db().exec(
          "SELECT host FROM projects.domains WHERE project_id = $1 AND verified "
          "ORDER BY verified_at, host LIMIT 1",
          p.id);
      if (d.rows() > 0) url = directory::addressOn(url, d.get<std::string>(0, 0));
      return directory::publicUrlJson(url);
    }
    if (method == directory::kView) {
      directory::ViewRequest asked = directory::parseViewRequest(request);
      auto p = byKey(*c, directory::ProjectKey::byId(asked.project_id));
      return viewJson(*c, p, asked.account_id);
    }
    // PATCH /projects/{name} with only cmd: the same code, rules and effects.
    if (method == directory::kSetCmd) {
      directory::SetCmdRequest asked = directory::parseSetCmdRequest(request);
      auto p = byKey(*c, directory::ProjectKey::byId(asked.project_id));
      SettingsChange change;
      change.cmd = asked.cmd.value_or("");
      return viewJson(*c, changeSettings(*c, std::move(p), change), "");
    }
    // PATCH /projects/{name} with only the cache settings.
    if (method == directory::kSetCache) {
      directory::SetCacheRequest asked = directory::parseSetCacheRequest(request);
      auto p = byKey(*c, directory::ProjectKey::byId(asked.project_id));
      SettingsChange change;
      change.cache_enabled = asked.cache_enabled;
      change.cache_ttl = asked.cache_ttl;
      return viewJson(*c, changeSettings(*c, std::move(p), change), "");
    }
    if (method == directory::kSecrets) {
      directory::SecretsRequest asked = directory::parseSecretsRequest(request);
      auto p = byKey(*c, asked.project);
      return directory::secretsJson(secretValues(*c, p, asked.scope));
    }
    throw Error::notFound(std::string(directory::kService) + " has no method " +
                          std::string(method));
  });

  // The core's contract for GET /me: what this plugin counts about an account. Every project
  // of the account counts, as for the plan's limit at creation.
  r.service(std::string(accounts_usage::kService), [c](std::string_view method,
                                                       const nlohmann::json& request) {
    if (method != accounts_usage::kGet)
      throw Error::notFound(std::string(accounts_usage::kService) + " has no method " +
                            std::string(method));
    auto count = c->db().exec("SELECT count(*) FROM projects.projects WHERE account_id = $1",
                              accounts_usage::parseAccountRequest(request));
    return toJson(accounts_usage::Usage{count.get<int64_t>(0, 0)});
  });
}

}  // namespace berth::projects
