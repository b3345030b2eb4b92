// One statement of /query or /batch run on a project's database, answering docs/openapi.yaml's
// QueryResult: at most max_rows rows are read from the server, however many the statement makes.
//
// How: a plain SELECT (no INTO, no data-modifying WITH) is read through a cursor, so the server
// computes only the rows that are fetched; anything else (INSERT ... RETURNING, EXPLAIN, SHOW,
// CALL) is prepared and described first (a result with two columns of one name is refused before
// it runs), then run in single-row mode: the rows past the limit are read and dropped one by one,
// so the statement still does all it was asked to and memory stays flat.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "pg_session.hpp"
#include "sql_script.hpp"

namespace berth::sqlconsole {

struct QueryOptions {
  size_t maxRows = 500;
  // The worker's own clock: a statement still running after this is cancelled (SQLSTATE
  // 57014), even if the user turned statement_timeout off. 0: no clock of our own.
  std::chrono::milliseconds watchdog{0};
  // A transaction is open (/batch): no BEGIN/COMMIT of its own, and an error leaves it to the
  // caller to roll back.
  bool inTransaction = false;
};

struct QueryOutcome {
  bool returnsRows = false;
  std::vector<std::string> columns;
  std::string rows = "[]";  // JSON array of row objects (keys in column order)
  size_t rowCount = 0;
  bool truncated = false;
  int64_t changed = 0;
  int64_t tookMs = 0;

  // docs/openapi.yaml's QueryResult: {"columns", "rows", "truncated", "took_ms"} for a
  // statement that returns rows, {"columns": [], "rows": [], "changed", "took_ms"} for one that
  // does not.
  std::string json() const;
};

// A statement the console refuses on its own account (not the database's): what() is the
// sentence for the caller (answered 400).
class QueryRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Refuses (QueryRefused) what cannot run as a single statement here: COPY to or from the client.
void checkRunnable(const Statement& statement);

// Runs statement (one, as splitStatements gave it) on session. Throws QueryRefused for a result
// with two columns of one name, PgError for what the database refused (57014 when stopped for
// taking too long). With inTransaction false, nothing is left open on the session.
QueryOutcome runQuery(PgSession& session, const Statement& statement, const QueryOptions& options);

// "a" and "b" given, "the result has two columns named \"a\"..." when a name repeats.
void checkDistinctColumns(const std::vector<std::string>& columns);

}  // namespace berth::sqlconsole
