#include "query_run.hpp"

#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include <berth/util/json_text.hpp>
#include "pg_wait.hpp"
#include "query_values.hpp"
#include "sql_parse.hpp"

namespace berth::sqlconsole {
namespace {

constexpr const char* kCursor = "berth_console_cursor";

// A SELECT that can be read through a cursor: DECLARE refuses SELECT ... INTO and a WITH that
// changes data (which must also run to its end, so it goes the single-row way).
bool readsThroughCursor(const Statement& statement) {
  if (statement.kind.node != "SelectStmt") return false;
  ParsedText parsed = ParsedText::parse(statement.text);
  if (!parsed.ok() || parsed.statements().size() != 1) return false;
  const nlohmann::json node = nlohmann::json::parse(parsed.statements()[0].nodeJson, nullptr,
                                                    /*allow_exceptions=*/false);
  if (!node.is_object() || !node.contains("SelectStmt")) return false;
  const nlohmann::json& select = node["SelectStmt"];
  if (select.contains("intoClause")) return false;
  if (auto with = select.find("withClause"); with != select.end()) {
    for (const auto& cte : with->value("ctes", nlohmann::json::array())) {
      const nlohmann::json query = cte.value("CommonTableExpr", nlohmann::json::object())
                                       .value("ctequery", nlohmann::json());
      if (!query.is_object() || query.empty() || query.begin().key() != "SelectStmt") return false;
    }
  }
  return true;
}

std::vector<std::string> columnNames(const PGresult* result) {
  std::vector<std::string> names;
  const int fields = PQnfields(result);
  names.reserve(static_cast<size_t>(fields));
  for (int i = 0; i < fields; ++i) names.emplace_back(PQfname(result, i));
  return names;
}

// Writes rows of one result shape as JSON objects keyed by column name, in column order.
class RowWriter {
 public:
  explicit RowWriter(const PGresult* shape) {
    const int fields = PQnfields(shape);
    for (int i = 0; i < fields; ++i) {
      std::string key;
      appendJsonString(key, PQfname(shape, i));
      key.push_back(':');
      keys_.push_back(std::move(key));
      types_.push_back(PQftype(shape, i));
    }
  }

  void append(std::string& out, const PGresult* result, int row) const {
    out.push_back('{');
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (i > 0) out.push_back(',');
      out += keys_[i];
      const int field = static_cast<int>(i);
      if (PQgetisnull(result, row, field)) {
        out += "null";
      } else {
        appendJsonValue(out, types_[i],
                        std::string_view(PQgetvalue(result, row, field),
                                         static_cast<size_t>(PQgetlength(result, row, field))));
      }
    }
    out.push_back('}');
  }

 private:
  std::vector<std::string> keys_;
  std::vector<Oid> types_;
};

int64_t changedCount(const PGresult* result) {
  const char* tuples = PQcmdTuples(const_cast<PGresult*>(result));
  return tuples != nullptr && *tuples != '\0' ? std::strtoll(tuples, nullptr, 10) : 0;
}

void send(PGconn* conn, int ok) {
  if (ok == 0) throw PgError(PQerrorMessage(conn), "08006");
}

// Ends a transaction this call opened, after an error, so the session goes back idle.
void rollbackIfOpen(PGconn* conn, bool own_transaction) {
  if (!own_transaction) return;
  const PGTransactionStatusType status = PQtransactionStatus(conn);
  if (status == PQTRANS_INTRANS || status == PQTRANS_INERROR) {
    PgResult(PQexec(conn, "ROLLBACK"));
  }
}

QueryOutcome runThroughCursor(PgSession& session, const Statement& statement,
                              const QueryOptions& options, Deadline& deadline) {
  PGconn* conn = session.raw();
  const bool own = !options.inTransaction;
  // One round trip. The statement parsed alone as exactly one statement, so the newline after
  // it (ending a trailing -- comment) is all it needs to stay one.
  std::string sql = own ? "BEGIN;\n" : "";
  sql += std::string("DECLARE ") + kCursor + " NO SCROLL CURSOR FOR " + statement.text + "\n;\n";
  sql += "FETCH FORWARD " + std::to_string(options.maxRows + 1) + " FROM " + kCursor;
  send(conn, PQsendQuery(conn, sql.c_str()));
  PgResult fetched;
  try {
    fetched = finishCommand(conn, deadline);
  } catch (...) {
    rollbackIfOpen(conn, own);
    throw;
  }
  QueryOutcome out;
  out.returnsRows = true;
  out.columns = columnNames(fetched.get());
  try {
    checkDistinctColumns(out.columns);
  } catch (...) {
    rollbackIfOpen(conn, own);
    throw;
  }
  const int rows = PQntuples(fetched.get());
  const int kept = std::min(rows, static_cast<int>(options.maxRows));
  RowWriter writer(fetched.get());
  out.rows = "[";
  for (int row = 0; row < kept; ++row) {
    if (row > 0) out.rows.push_back(',');
    writer.append(out.rows, fetched.get(), row);
  }
  out.rows.push_back(']');
  out.rowCount = static_cast<size_t>(kept);
  out.truncated = rows > kept;
  fetched.reset();
  std::string close = std::string("CLOSE ") + kCursor + (own ? ";\nCOMMIT" : "");
  send(conn, PQsendQuery(conn, close.c_str()));
  try {
    finishCommand(conn, deadline);
  } catch (...) {
    rollbackIfOpen(conn, own);
    throw;
  }
  return out;
}

QueryOutcome runPrepared(PgSession& session, const Statement& statement,
                         const QueryOptions& options, Deadline& deadline) {
  PGconn* conn = session.raw();
  send(conn, PQsendPrepare(conn, "", statement.text.c_str(), 0, nullptr));
  finishCommand(conn, deadline);
  send(conn, PQsendDescribePrepared(conn, ""));
  PgResult described = finishCommand(conn, deadline);
  QueryOutcome out;
  out.columns = columnNames(described.get());
  out.returnsRows = !out.columns.empty();
  checkDistinctColumns(out.columns);  // before anything ran
  std::optional<RowWriter> writer;
  if (out.returnsRows) writer.emplace(described.get());
  described.reset();

  send(conn, PQsendQueryPrepared(conn, "", 0, nullptr, nullptr, nullptr, 0));
  PQsetSingleRowMode(conn);
  std::optional<PgError> error;
  std::string rows = "[";
  size_t seen = 0;
  while (PgResult result = nextResult(conn, deadline)) {
    const ExecStatusType status = PQresultStatus(result.get());
    if (failed(result.get())) {
      if (!error) error = errorOf(conn, result.get());
    } else if (status == PGRES_SINGLE_TUPLE) {
      if (seen < options.maxRows && writer) {
        if (seen > 0) rows.push_back(',');
        writer->append(rows, result.get(), 0);
      }
      ++seen;
    } else if (status == PGRES_COMMAND_OK) {
      out.changed = changedCount(result.get());
    } else if (status == PGRES_COPY_IN) {
      PQputCopyEnd(conn, "COPY FROM STDIN is not supported here");
    } else if (status == PGRES_COPY_OUT) {
      char* buffer = nullptr;
      while (PQgetCopyData(conn, &buffer, 0) > 0) PQfreemem(buffer);
    }
  }
  if (error) throw *error;
  rows.push_back(']');
  if (out.returnsRows) {
    out.rows = std::move(rows);
    out.rowCount = std::min(seen, options.maxRows);
    out.truncated = seen > options.maxRows;
  }
  return out;
}

}  // namespace

void checkDistinctColumns(const std::vector<std::string>& columns) {
  std::set<std::string_view> seen;
  for (const std::string& name : columns) {
    if (!seen.insert(name).second) {
      std::string quoted;
      appendJsonString(quoted, name);
      throw QueryRefused("the result has two columns named " + quoted +
                         "; give them different names with AS");
    }
  }
}

void checkRunnable(const Statement& statement) {
  if (statement.kind.copyFromStdin) {
    throw QueryRefused(
        "COPY ... FROM STDIN needs data sent alongside it, which cannot be done here; use "
        "INSERT, or /import for a script with COPY data");
  }
  if (statement.kind.copyToStdout) {
    throw QueryRefused("COPY ... TO STDOUT cannot be read here; use SELECT, or /export");
  }
}

QueryOutcome runQuery(PgSession& session, const Statement& statement, const QueryOptions& options) {
  checkRunnable(statement);
  Deadline deadline = Deadline::after(options.watchdog);
  const Clock::time_point started = Clock::now();
  QueryOutcome out = readsThroughCursor(statement)
                         ? runThroughCursor(session, statement, options, deadline)
                         : runPrepared(session, statement, options, deadline);
  out.tookMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  return out;
}

std::string QueryOutcome::json() const {
  std::string out = "{\"columns\":[";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out.push_back(',');
    appendJsonString(out, columns[i]);
  }
  out += "],\"rows\":";
  if (returnsRows) {
    out += rows;
    out += ",\"truncated\":";
    out += truncated ? "true" : "false";
  } else {
    out += "[],\"changed\":" + std::to_string(changed);
  }
  out += ",\"took_ms\":" + std::to_string(tookMs) + "}";
  return out;
}

}  // namespace berth::sqlconsole
