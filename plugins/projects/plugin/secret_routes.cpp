#include "secret_routes.hpp"

#include <regex>

#include "access.hpp"
#include "random_text.hpp"

namespace berth::projects {

namespace {

using berth::Error;
using berth::FieldType;
using berth::Request;
using berth::Responder;

// The box is bound to the project and the name, so a sealed value moved elsewhere won't open.
std::string associated(const ProjectRecord& project, const std::string& name) {
  return project.id + "/" + name;
}

class SecretHandlers {
 public:
  explicit SecretHandlers(const Context& context) : c_(context) {}

  void set(const Request& req, Responder& resp) const {
    const SecretBox& box = requireBox();
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    const nlohmann::json& body = req.json();
    std::string name = body.at("name");
    static const std::regex valid("^[A-Z_][A-Z0-9_]*$");
    if (!std::regex_match(name, valid) || name.size() > 255)
      throw Error::badRequest(
          "a secret name is capital letters, digits and underscores, starting with a letter or "
          "underscore");
    if (name == "DATABASE_URL" || name.rfind("PG", 0) == 0)
      throw Error::badRequest("DATABASE_URL and names starting with PG are set by the platform");
    std::string scope = "runtime";
    if (body.contains("scope") && body["scope"].is_string()) scope = body["scope"];
    if (scope != "runtime" && scope != "build" && scope != "both")
      throw Error::badRequest("scope must be runtime, build or both");
    int64_t at = nowSeconds();
    c_.db().exec(
        "INSERT INTO projects.secrets (project_id, name, scope, sealed_value, updated_at) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, name) DO UPDATE SET "
        "scope = EXCLUDED.scope, sealed_value = EXCLUDED.sealed_value, "
        "updated_at = EXCLUDED.updated_at",
        project.id, name, scope,
        box.seal(body.at("value").get<std::string>(), associated(project, name)), at);
    changed(project, name, req);
    resp.json(201, {{"name", name}, {"scope", scope}, {"updated_at", at}});
  }

  void list(const Request& req, Responder& resp) const {
    requireBox();
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    auto r = c_.db().exec(
        "SELECT name, scope, updated_at FROM projects.secrets WHERE project_id = $1 ORDER BY name",
        project.id);
    nlohmann::json secrets = nlohmann::json::array();
    for (int64_t i = 0; i < r.rows(); ++i)
      secrets.push_back({{"name", r.get<std::string>(i, 0)},
                         {"scope", r.get<std::string>(i, 1)},
                         {"updated_at", r.get<int64_t>(i, 2)}});
    resp.json(200, {{"secrets", secrets}});
  }

  void remove(const Request& req, Responder& resp) const {
    requireBox();
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    std::string name = req.param("secret");
    auto r = c_.db().exec("DELETE FROM projects.secrets WHERE project_id = $1 AND name = $2",
                          project.id, name);
    if (r.affected() == 0) throw Error::notFound("no secret called " + name);
    changed(project, name, req);
    resp.noContent();
  }

 private:
  const SecretBox& requireBox() const {
    if (!c_.secrets) throw Error::notImplemented("secrets are not configured on this server");
    return *c_.secrets;
  }

  // The runtime restarts the project; a failure there must not undo the stored secret.
  void changed(const ProjectRecord& project, const std::string& name, const Request& req) const {
    try {
      c_.services->fire("project.secret_changed",
                        {{"id", project.id}, {"name", project.name}, {"secret", name}});
    } catch (const std::exception& e) {
      c_.logger().withProject(project.name).warn(req, std::string("secret_changed: ") + e.what());
    }
  }

  const Context& c_;
};

}  // namespace

std::map<std::string, std::string> secretValues(const Context& context,
                                                const ProjectRecord& project,
                                                const std::string& scope) {
  std::map<std::string, std::string> values;
  if (!context.secrets) return values;
  auto r = context.db().exec(
      "SELECT name, sealed_value FROM projects.secrets WHERE project_id = $1 "
      "AND (scope = $2 OR scope = 'both')",
      project.id, scope);
  for (int64_t i = 0; i < r.rows(); ++i) {
    std::string name = r.get<std::string>(i, 0);
    values[name] = context.secrets->open(r.get<std::string>(i, 1), associated(project, name));
  }
  return values;
}

void registerSecretRoutes(berth::Registrar& r, const Context& context) {
  auto h = std::make_shared<SecretHandlers>(context);
  berth::RouteOptions set;
  set.fields = {{"name", FieldType::String, true},
                {"value", FieldType::String, true},
                {"scope", FieldType::String, false}};
  r.post(
      "/projects/:name/secrets", [h](const Request& q, Responder& s) { h->set(q, s); }, set);
  r.get("/projects/:name/secrets", [h](const Request& q, Responder& s) { h->list(q, s); });
  r.del("/projects/:name/secrets/:secret",
        [h](const Request& q, Responder& s) { h->remove(q, s); });
}

}  // namespace berth::projects
