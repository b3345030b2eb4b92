// The route groups of the sqlconsole plugin, one file each. Each registers its routes (and,
// for the data API, its migrations-backed settings) on the Registrar; the Context is filled in
// by start() before any route runs.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::sqlconsole {

// GET /projects/{name}/tables, /views, /indexes, /backup (structure_routes.cpp)
void registerStructureRoutes(berth::Registrar& r, Context& context);
// POST /projects/{name}/sql, /query, /batch (sql_routes.cpp)
void registerSqlRoutes(berth::Registrar& r, Context& context);
// sqlconsole.sql.v1, /sql for installers and plugins (sql_service.cpp)
void registerSqlService(berth::Registrar& r, Context& context);
// POST /projects/{name}/import (import_route.cpp)
void registerImportRoute(berth::Registrar& r, Context& context);
// GET /projects/{name}/export (export_route.cpp)
void registerExportRoute(berth::Registrar& r, Context& context);
// GET/POST/PATCH/DELETE /projects/{name}/tables/{table}/rows (row_routes.cpp)
void registerRowRoutes(berth::Registrar& r, Context& context);
// /_data/<table>, /_data/rpc/<function> on project hosts, with CORS (data_api_routes.cpp)
void registerDataApiRoutes(berth::Registrar& r, Context& context);
// /projects/{name}/data-api settings routes (data_api_settings_routes.cpp)
void registerDataApiSettingsRoutes(berth::Registrar& r, Context& context);

}  // namespace berth::sqlconsole
