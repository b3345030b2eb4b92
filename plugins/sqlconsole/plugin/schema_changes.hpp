// What POST /projects/{name}/sql does to a project's database, written once for the route and
// for sqlconsole.sql.v1 `run` (<berth/services/sqlconsole_sql.hpp>): the same rules, the same
// texts, and the same connection, the project's own role from ProjectConnections.
#pragma once
#include <berth/services/sqlconsole_sql.hpp>

#include <string>

#include "context.hpp"
#include "project_access.hpp"

namespace berth::sqlconsole {

// Rule 1: every statement of `sql` must be a schema change, judged for all before any runs;
// rule 2: then the text runs as written, in one implicit transaction. Call it on a worker.
// @throw berth::Error 400 with the route's texts (or the database's own message), 503 when the
// database cannot be reached. Defined in sql_routes.cpp, beside the route.
berth::sqlconsole_sql::SchemaChanged runSchemaChanges(Context& context, const Project& project,
                                                      const std::string& sql);

}  // namespace berth::sqlconsole
