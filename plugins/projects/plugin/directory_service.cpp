#include "directory_service.hpp"

#include "project_record.hpp"
#include "secret_routes.hpp"

namespace berth::projects {

namespace {

using berth::Error;

nlohmann::json summary(const Context& c, const ProjectRecord& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"label", p.label},
          {"account_id", p.account_id},
          {"host", c.hostOf(p.name)},
          {"url", c.urlOf(p.name)},
          {"region", p.region},
          {"cmd", p.cmd},
          {"ignore_dockerfile", p.ignore_dockerfile},
          {"cache_enabled", p.cache_enabled},
          {"cache_ttl", p.cache_ttl}};
}

ProjectRecord byNameOrId(const Context& c, const nlohmann::json& request) {
  std::optional<ProjectRecord> p;
  if (request.contains("id"))
    p = findReadyProjectById(c.db(), request["id"]);
  else
    p = findReadyProject(c.db(), request.value("name", ""));
  if (!p)
    throw Error::notFound("no project called " + request.value("name", request.value("id", "")));
  return *p;
}

bool reaches(const Context& c, const std::string& account_id, const ProjectRecord& p, bool manage) {
  for (const auto& a : c.services->memberships(account_id))
    if (a.id == p.account_id) return !manage || a.canManage();
  return false;
}

}  // namespace

void registerDirectoryService(berth::Registrar& r, const Context& context) {
  const Context* c = &context;
  r.service("projects.directory.v1", [c](std::string_view method, const nlohmann::json& request) {
    if (method == "get") return summary(*c, byNameOrId(*c, request));
    if (method == "find") {
      std::string name = request.value("name", "");
      auto p = findReadyProject(c->db(), name);
      if (!p || !reaches(*c, request.value("account_id", ""), *p, false))
        throw Error::notFound("no project called " + name);
      return summary(*c, *p);
    }
    if (method == "can_manage") {
      auto p = byNameOrId(*c, request);
      return nlohmann::json{{"allowed", reaches(*c, request.value("account_id", ""), p, true)}};
    }
    if (method == "by_host") {
      std::string host = request.value("host", "");
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
      if (!p) throw Error::notFound("no project at " + host);
      return summary(*c, *p);
    }
    // Every project of an account, whatever its state (one being made or removed still holds
    // what it stored): what the storage plugin sums for the account's disk quota.
    if (method == "account_projects") {
      auto r = c->db().exec("SELECT id FROM projects.projects WHERE account_id = $1 ORDER BY id",
                            request.value("account_id", ""));
      nlohmann::json ids = nlohmann::json::array();
      for (int64_t i = 0; i < r.rows(); ++i) ids.push_back(r.get<std::string>(i, 0));
      return nlohmann::json{{"ids", std::move(ids)}};
    }
    if (method == "database") {
      auto p = byNameOrId(*c, request);
      ProjectDatabase db{p.db_name, p.db_role, c->vault->open(p.db_password_sealed, p.id)};
      return nlohmann::json{
          {"url", c->databases->projectUrl(db)}, {"database", db.database}, {"role", db.role}};
    }
    if (method == "secrets") {
      auto p = byNameOrId(*c, request);
      return nlohmann::json{{"vars", secretValues(*c, p, request.value("scope", "runtime"))}};
    }
    throw Error::notFound("projects.directory.v1 has no method " + std::string(method));
  });

  // The core's contract for GET /me: what this plugin counts about an account. Every project
  // of the account counts, as for the plan's limit at creation.
  r.service("accounts.usage.v1", [c](std::string_view method, const nlohmann::json& request) {
    if (method != "get")
      throw Error::notFound("accounts.usage.v1 has no method " + std::string(method));
    auto count = c->db().exec("SELECT count(*) FROM projects.projects WHERE account_id = $1",
                              request.value("account_id", ""));
    return nlohmann::json{{"projects_used", count.get<int64_t>(0, 0)}};
  });
}

}  // namespace berth::projects
