// GET /projects/{name}/tables, /views, /indexes, /backup: what the project's database holds,
// read from its catalogue in one statement per route (docs/openapi.yaml: these routes and the
// Table, View, Index and BackupStatus schemas). Anyone who reaches the project may read them.
#include <functional>

#include "catalog.hpp"
#include "database_errors.hpp"
#include "project_access.hpp"
#include "routes.hpp"
#include "structure_queries.hpp"

namespace berth::sqlconsole {
namespace {

nlohmann::json columnRecord(const CatalogColumn& column) {
  return {{"name", column.name},
          {"type", column.type},
          {"not_null", column.not_null},
          {"primary_key", column.primary_key},
          {"default_value",
           column.default_value ? nlohmann::json(*column.default_value) : nlohmann::json(nullptr)}};
}

nlohmann::json linkRecord(const CatalogLink& link) {
  nlohmann::json record = {{"column", link.column},
                           {"table", link.table},
                           {"to", link.to},
                           {"on_delete", link.on_delete},
                           {"on_update", link.on_update}};
  // A key over several columns: column/to name the first pair, these every pair.
  if (link.columns.size() > 1) {
    record["columns"] = link.columns;
    record["to_columns"] = link.to_columns;
  }
  return record;
}

nlohmann::json tableRecord(const CatalogTable& table) {
  nlohmann::json columns = nlohmann::json::array();
  for (const CatalogColumn& column : table.columns) columns.push_back(columnRecord(column));
  nlohmann::json links = nlohmann::json::array();
  for (const CatalogLink& link : table.links) links.push_back(linkRecord(link));
  return {{"name", table.name}, {"columns", std::move(columns)}, {"links", std::move(links)}};
}

nlohmann::json tables(PgSession& session) {
  const Catalog catalog = loadCatalog(session);
  nlohmann::json out = nlohmann::json::array();
  for (const CatalogTable& table : catalog.tables)
    if (table.kind == RelationKind::Table) out.push_back(tableRecord(table));
  return {{"tables", std::move(out)}};
}

nlohmann::json views(PgSession& session) {
  nlohmann::json out = nlohmann::json::array();
  for (const ViewRecord& view : loadViews(session))
    out.push_back({{"name", view.name}, {"sql", view.sql}});
  return {{"views", std::move(out)}};
}

nlohmann::json indexes(PgSession& session) {
  nlohmann::json out = nlohmann::json::array();
  for (const IndexRecord& index : loadIndexes(session))
    out.push_back({{"name", index.name},
                   {"table", index.table},
                   {"unique", index.unique},
                   {"columns", index.columns}});
  return {{"indexes", std::move(out)}};
}

nlohmann::json backup(PgSession& session) {
  return {{"automatic", false},
          {"size_bytes", databaseSize(session)},
          {"formats", {"sql", "postgres", "mysql", "json"}}};
}

void readRoute(berth::Registrar& r, Context& context, const std::string& path,
               std::function<nlohmann::json(PgSession&)> read) {
  r.get(path, [&context, read](berth::Request req, berth::Responder resp) {
    answerLater(*context.workers, context.logger(), std::move(req), std::move(resp),
                [&context, read](const berth::Request& request, berth::Responder& responder) {
                  const Project project = reachableProject(context, request);
                  auto lease = context.connections->lease(project.id);
                  try {
                    responder.json(200, read(*lease));
                  } catch (const PgError& e) {
                    throw databaseError(e, lease);
                  }
                });
  });
}

}  // namespace

void registerStructureRoutes(berth::Registrar& r, Context& context) {
  readRoute(r, context, "/projects/:name/tables", tables);
  readRoute(r, context, "/projects/:name/views", views);
  readRoute(r, context, "/projects/:name/indexes", indexes);
  readRoute(r, context, "/projects/:name/backup", backup);
}

}  // namespace berth::sqlconsole
