#include "export_rows.hpp"

#include <optional>

#include <berth/common/sql_text.hpp>
#include "pg_wait.hpp"

namespace berth::sqlconsole {

void beginExport(PgSession& session) {
  session.execSimple(
      "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
      "SET LOCAL statement_timeout = 0;"
      // No policy runs: a table whose policies would apply to the project's role (FORCE ROW
      // LEVEL SECURITY) is refused by the database instead, naming the table.
      "SET LOCAL row_security = off;"
      "SET LOCAL DateStyle = 'ISO, YMD';"
      "SET LOCAL IntervalStyle = 'postgres';"
      "SET LOCAL TimeZone = 'UTC';"
      "SET LOCAL bytea_output = 'hex';"
      "SET LOCAL extra_float_digits = 1");
}

void endExport(PgSession& session) {
  session.execSimple("COMMIT");
}

void forEachRow(PgSession& session, const std::string& table,
                const std::vector<std::string>& columns,
                const std::function<void(const PGresult*)>& row) {
  std::string sql = "SELECT ";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += common::quotedIdentifier(columns[i]);
  }
  if (columns.empty()) sql += "1";
  sql += " FROM public." + common::quotedIdentifier(table);
  PGconn* conn = session.raw();
  if (PQsendQuery(conn, sql.c_str()) == 0) throw PgError(PQerrorMessage(conn), "08006");
  PQsetSingleRowMode(conn);
  Deadline deadline = Deadline::never();
  std::optional<PgError> error;
  while (PgResult result = nextResult(conn, deadline)) {
    if (failed(result.get())) {
      if (!error) error = errorOf(conn, result.get());
    } else if (!error && PQresultStatus(result.get()) == PGRES_SINGLE_TUPLE) {
      try {
        row(result.get());
      } catch (...) {
        // Stop reading: the caller's failure (a full disk) wins; the rest is drained by the
        // server's end of the statement when the session is closed or rolled back.
        PGcancel* cancel = PQgetCancel(conn);
        if (cancel != nullptr) {
          char buffer[256];
          PQcancel(cancel, buffer, sizeof buffer);
          PQfreeCancel(cancel);
        }
        while (PgResult rest = nextResult(conn, deadline)) {
        }
        throw;
      }
    }
  }
  if (error) throw *error;
}

}  // namespace berth::sqlconsole
