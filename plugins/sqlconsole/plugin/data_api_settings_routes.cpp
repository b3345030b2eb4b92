// The browser data API's settings (docs/openapi.yaml, the Data API routes):
//   GET  /projects/{name}/data-api                        {key, tables, functions}
//   PUT  /projects/{name}/data-api/tables/{table}         any of read, create, update, delete
//   PUT  /projects/{name}/data-api/functions/{function}   {enabled}
//   POST /projects/{name}/data-api/key                    a new key; the old one stops working
// Anyone who reaches the project may read and change them (as they may run any SQL on it). The
// settings live in the control plane (data_api_store.hpp); tables and functions are checked
// against the project's own database.
#include "berth_migrations_sqlconsole.inc"
#include "catalog.hpp"
#include "data_api_store.hpp"
#include "function_catalog.hpp"
#include "project_access.hpp"
#include "rest_sql.hpp"
#include "routes.hpp"

namespace berth::sqlconsole {
namespace {

nlohmann::json accessJson(const TableAccess& access) {
  return {{"read", access.read},
          {"create", access.create},
          {"update", access.update},
          {"delete", access.del}};
}

std::optional<bool> flag(const nlohmann::json& body, const char* name) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  return it->get<bool>();
}

void showSettings(Context& context, const berth::Request& request, berth::Responder& responder) {
  Project project = reachableProject(context, request);
  std::string key = ensureDataApiKey(context.db(), project.id);
  context.grants.changed(project.id);
  Catalog catalog;
  {
    ProjectConnections::Lease lease = context.connections->lease(project.id);
    try {
      catalog = loadCatalog(*lease);
    } catch (const PgError& e) {
      lease.discard();
      throw berth::Error(503, "could not read the project's database: " + std::string(e.what()));
    }
  }
  DataApiGrant grant = loadDataApiGrant(context.db(), project.id);
  nlohmann::json tables = nlohmann::json::object();
  for (const CatalogTable& table : catalog.tables) {
    auto it = grant.tables.find(table.name);
    tables[table.name] = accessJson(it == grant.tables.end() ? TableAccess{} : it->second);
  }
  responder.json(200, {{"key", key}, {"tables", tables}, {"functions", grant.functions}});
}

void setTable(Context& context, const berth::Request& request, berth::Responder& responder) {
  Project project = reachableProject(context, request);
  const std::string table = request.param("table");
  const nlohmann::json& body = request.json();
  for (const auto& [key, value] : body.items())
    if (key != "read" && key != "create" && key != "update" && key != "delete")
      throw berth::Error::badRequest("unknown field " + key +
                                     "; give any of read, create, update and delete");
  std::optional<bool> read = flag(body, "read"), create = flag(body, "create"),
                      update = flag(body, "update"), del = flag(body, "delete");
  if (!read && !create && !update && !del)
    throw berth::Error::badRequest("give at least one of read, create, update and delete");
  {
    ProjectConnections::Lease lease = context.connections->lease(project.id);
    CatalogScope scope;
    scope.all_tables = false;
    scope.tables = {table};
    try {
      requireTable(loadCatalog(*lease, scope), table);
    } catch (const RestRefusal& e) {
      throw berth::Error::badRequest(e.what());
    } catch (const PgError& e) {
      lease.discard();
      throw berth::Error(503, "could not read the project's database: " + std::string(e.what()));
    }
  }
  TableAccess access = setTableAccess(context.db(), project.id, table, read, create, update, del);
  context.grants.changed(project.id);
  nlohmann::json answer = accessJson(access);
  answer["name"] = table;
  context.logger()
      .withProject(project.name)
      .info(request, "data api: table " + table + " now " + accessJson(access).dump());
  responder.json(200, answer);
}

void setFunction(Context& context, const berth::Request& request, berth::Responder& responder) {
  Project project = reachableProject(context, request);
  const std::string function = request.param("function");
  const bool enabled = request.json().at("enabled").get<bool>();
  if (enabled) {
    ProjectConnections::Lease lease = context.connections->lease(project.id);
    bool exists = false;
    try {
      exists = functionExists(*lease, function);
    } catch (const PgError& e) {
      lease.discard();
      throw berth::Error(503, "could not read the project's database: " + std::string(e.what()));
    }
    if (!exists) throw berth::Error::badRequest("no function named " + function);
  }
  setFunctionEnabled(context.db(), project.id, function, enabled);
  context.grants.changed(project.id);
  context.logger()
      .withProject(project.name)
      .info(request, "data api: function " + function + (enabled ? " enabled" : " disabled"));
  responder.json(200, {{"name", function}, {"enabled", enabled}});
}

void newKey(Context& context, const berth::Request& request, berth::Responder& responder) {
  Project project = reachableProject(context, request);
  std::string key = rotateDataApiKey(context.db(), project.id);
  context.grants.changed(project.id);
  context.logger().withProject(project.name).info(request, "data api: new publishable key");
  responder.json(201, {{"key", key}});
}

using Action = void (*)(Context&, const berth::Request&, berth::Responder&);

berth::Handler later(Context& context, Action action) {
  return [&context, action](berth::Request request, berth::Responder responder) {
    answerLater(*context.workers, context.logger(), std::move(request), std::move(responder),
                [&context, action](const berth::Request& req, berth::Responder& resp) {
                  action(context, req, resp);
                });
  };
}

}  // namespace

void registerDataApiSettingsRoutes(berth::Registrar& r, Context& context) {
  r.migrations(kBerthMigrations, kBerthMigrationCount);
  r.get("/projects/:name/data-api", later(context, showSettings));
  r.put("/projects/:name/data-api/tables/:table", later(context, setTable),
        {.fields = {{"read", berth::FieldType::Bool, false},
                    {"create", berth::FieldType::Bool, false},
                    {"update", berth::FieldType::Bool, false},
                    {"delete", berth::FieldType::Bool, false}}});
  r.put("/projects/:name/data-api/functions/:function", later(context, setFunction),
        {.fields = {{"enabled", berth::FieldType::Bool, true}}});
  r.post("/projects/:name/data-api/key", later(context, newKey));
  // The settings of a deleted project go with it.
  r.hook("project.deleted", [&context](const nlohmann::json& project) {
    std::string id = project.value("id", "");
    if (id.empty()) return;
    context.catalogs.forget(id);
    if (context.services != nullptr) forgetDataApiProject(context.db(), id);
    context.grants.changed(id);
  });
}

}  // namespace berth::sqlconsole
