#include "secret_routes.hpp"

#include "access.hpp"
#include "secret_store.hpp"

namespace berth::projects {

namespace {

using berth::Error;
using berth::FieldType;
using berth::Request;
using berth::Responder;

namespace contract = berth::projects_secrets;

// projects.secrets.v1's `set` and `names` act on a project by id; the caller (an installer
// through its context, or another plugin) names it, and the core has bound it for installers.
ProjectRecord projectById(const Context& c, const std::string& id) {
  auto project = findReadyProjectById(c.db(), id);
  if (!project) throw Error::notFound("no project called " + id);
  return *project;
}

}  // namespace

void registerSecretRoutes(berth::Registrar& r, const Context& context) {
  const Context* c = &context;
  berth::RouteOptions set;
  set.fields = {{"name", FieldType::String, true},
                {"value", FieldType::String, true},
                {"scope", FieldType::String, false}};
  r.post(
      "/projects/:name/secrets",
      [c](const Request& req, Responder& resp) {
        SecretStore store(*c);
        auto project = Access(*c, req).project(req.param("name"));
        const nlohmann::json& body = req.json();
        std::string scope = "runtime";
        if (body.contains("scope") && body["scope"].is_string()) scope = body["scope"];
        auto stored = store.set(project, body.at("name"), body.at("value").get<std::string>(),
                                scope, false, req.id());
        resp.json(201, contract::toJson(stored.secret));
      },
      set);
  r.get("/projects/:name/secrets", [c](const Request& req, Responder& resp) {
    SecretStore store(*c);
    auto project = Access(*c, req).project(req.param("name"));
    nlohmann::json list = nlohmann::json::array();
    for (const auto& secret : store.names(project)) list.push_back(contract::toJson(secret));
    resp.json(200, {{"secrets", list}});
  });
  r.del("/projects/:name/secrets/:secret", [c](const Request& req, Responder& resp) {
    SecretStore store(*c);
    auto project = Access(*c, req).project(req.param("name"));
    std::string name = req.param("secret");
    if (!store.remove(project, name, req.id())) throw Error::notFound("no secret called " + name);
    resp.noContent();
  });

  berth::ServiceMethods methods;
  methods[std::string(contract::kSet)] = [c](const nlohmann::json& request) {
    contract::SetRequest asked = contract::parseSetRequest(request);
    SecretStore store(*c);
    return contract::toJson(store.set(projectById(*c, asked.project_id), asked.name, asked.value,
                                      asked.scope, asked.only_if_absent, ""));
  };
  methods[std::string(contract::kNames)] = [c](const nlohmann::json& request) {
    SecretStore store(*c);
    std::string id = berth::service_json::requiredText(request, "project_id");
    return contract::namesJson(store.names(projectById(*c, id)));
  };
  r.service(std::string(contract::kService), std::move(methods));
}

}  // namespace berth::projects
