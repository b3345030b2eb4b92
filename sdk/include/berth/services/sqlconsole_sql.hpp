// SPDX-License-Identifier: MIT
/** @file
 *  sqlconsole.sql.v1: schema changes on a project's own database for installers (through their
 *  context, where the core sets project_id) and other plugins. Header-only, no ABI: the request
 *  and the answer, their JSON written and read once (POST /projects/{name}/sql answers with the
 *  same toJson), and a typed client.
 *
 *  Method:
 *  - `run` {project_id, sql, params?} -> SchemaChanged {ok: true, tables: [names]}: exactly
 *    what POST /projects/{name}/sql does, by the same function: every statement of the script
 *    must be a schema change (create, alter, drop and their kin, as PostgreSQL's own parser
 *    classifies them), judged for all before any runs; the script then reaches the database as
 *    written, in one piece, so its statements run in one implicit transaction and a refusal
 *    keeps none of them; `tables` is every table in `public` afterwards. It runs on the
 *    project's own database as the project's own login role (never a superuser), over the
 *    console's pooled connections, in the project's lane of the console's workers, stopped
 *    after sqlconsole.statement_timeout_seconds.
 *  - `sql` is at most kMaxSqlBytes (2 MB: the edge's default limit of the route's JSON body).
 *  - `params` may be left out, null or empty. Values cannot be bound: the script goes to the
 *    database in one piece (PostgreSQL binds parameters only to a single statement) and schema
 *    changes take none; a non-empty `params` is refused rather than ignored.
 *
 *  Who may call: the service acts for the project it is given, with no membership check; only
 *  installers (through the core, which sets project_id to the project being installed into)
 *  and plugins can call it, never an HTTP client.
 *
 *  Refusals, with the route's texts where it has them: 404 "no project called <id>"; 400
 *  "project_id is required and must be a string" (or sql); 413 "the sql is too large (limit 2
 *  MB)"; 400 "params cannot be bound: a script of schema changes takes no parameters"; 400
 *  "only create, alter and drop are accepted here"; 400 "there is nothing to run"; 400 the
 *  parser's message (with " (line N)" when the script has several lines); 400 the database's
 *  own message ("relation \"notes\" already exists", "permission denied to create extension
 *  \"dblink\""); 400 "that query took too long and was stopped"; 503 "could not reach the
 *  project's database"; 503 the console's queue limits (as the route's).
 */
#ifndef BERTH_SERVICES_SQLCONSOLE_SQL_HPP
#define BERTH_SERVICES_SQLCONSOLE_SQL_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {
namespace sqlconsole_sql {

inline constexpr std::string_view kService = "sqlconsole.sql.v1";
inline constexpr std::string_view kRun = "run";

/** The longest `sql`, in bytes. */
inline constexpr size_t kMaxSqlBytes = size_t{2} << 20;

struct RunRequest {
  std::string project_id;
  std::string sql;  ///< schema changes separated by semicolons
};

inline nlohmann::json toJson(const RunRequest& r) {
  return {{"project_id", r.project_id}, {"sql", r.sql}};
}

/** @throw Error 400 for a missing field, a field of the wrong type or a non-empty params;
 *  413 for sql over kMaxSqlBytes. */
inline RunRequest parseRunRequest(const nlohmann::json& request) {
  RunRequest r;
  r.project_id = service_json::requiredText(request, "project_id");
  r.sql = service_json::requiredText(request, "sql");
  if (r.sql.size() > kMaxSqlBytes) throw Error(413, "the sql is too large (limit 2 MB)");
  if (const nlohmann::json* params = service_json::requestField(request, "params")) {
    if (!params->is_array()) throw Error::badRequest("params must be an array");
    if (!params->empty())
      throw Error::badRequest(
          "params cannot be bound: a script of schema changes takes no parameters");
  }
  return r;
}

/** The answer of `run`, and of POST /projects/{name}/sql. */
struct SchemaChanged {
  std::vector<std::string> tables;  ///< every table in `public` afterwards, by name

  bool operator==(const SchemaChanged&) const = default;
};

inline nlohmann::json toJson(const SchemaChanged& s) {
  return {{"ok", true}, {"tables", s.tables}};
}

inline SchemaChanged parseSchemaChanged(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kRun);
  if (!read.flag("ok")) throw read.refusal("ok", "true");
  return {read.texts("tables")};
}

}  // namespace sqlconsole_sql

/** sqlconsole.sql.v1 through Services::call. Errors pass through as the service answered them;
 *  a missing sqlconsole plugin is Error 500 "service sqlconsole.sql.v1 is not available". */
class SqlconsoleSql {
 public:
  explicit SqlconsoleSql(const Services& services) : services_(&services) {}

  /** Runs schema changes on the project's database as its own role. */
  sqlconsole_sql::SchemaChanged run(std::string_view project_id, std::string_view sql) const {
    using namespace sqlconsole_sql;
    return parseSchemaChanged(services_->call(
        kService, kRun, toJson(RunRequest{std::string(project_id), std::string(sql)})));
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_SQLCONSOLE_SQL_HPP
