#include "rows_execution.hpp"

namespace berth::sqlconsole {
namespace {

std::string text(const PgResult& result, int row, int column) {
  return std::string(PQgetvalue(result.get(), row, column),
                     static_cast<size_t>(PQgetlength(result.get(), row, column)));
}

bool isNull(const PgResult& result, int row, int column) {
  return PQgetisnull(result.get(), row, column) != 0;
}

// Appends the elements of one JSON array text to another.
void appendArray(std::string& into, const std::string& array) {
  if (array.size() <= 2) return;  // "[]"
  if (into.size() <= 2) {
    into = array;
    return;
  }
  into.pop_back();  // "]"
  into += ", " + array.substr(1);
}

}  // namespace

ReadResult runRead(PgSession& session, const SqlStatement& statement) {
  PgResult result = session.exec(statement.text, statement.params);
  ReadResult out;
  if (!isNull(result, 0, 0)) out.total = std::stoll(text(result, 0, 0));
  out.rows = text(result, 0, 1);
  out.returned = std::stoll(text(result, 0, 2));
  return out;
}

WriteResult runWrites(PgSession& session, const std::vector<SqlStatement>& statements) {
  const bool transaction = statements.size() > 1;
  WriteResult out;
  if (transaction) session.execSimple("BEGIN");
  try {
    for (const SqlStatement& statement : statements) {
      PgResult result = session.exec(statement.text, statement.params);
      out.affected += std::stoll(text(result, 0, 0));
      if (!isNull(result, 0, 1)) {
        if (!out.rows) out.rows = "[]";
        appendArray(*out.rows, text(result, 0, 1));
      }
    }
    if (transaction) session.execSimple("COMMIT");
  } catch (...) {
    if (transaction && PQtransactionStatus(session.raw()) != PQTRANS_IDLE) {
      try {
        session.execSimple("ROLLBACK");
      } catch (const PgError&) {
        // The connection is gone; the lease will not keep it.
      }
    }
    throw;
  }
  return out;
}

DatabaseRefusal refusalOf(const PgError& error, ProjectConnections::Lease& lease) {
  DatabaseRefusal out;
  out.sqlstate = error.sqlstate();
  out.detail = error.detail();
  if (error.isConnectionProblem()) {
    lease.discard();
    out.status = 503;
    out.message = "could not reach the project's database";
  } else if (error.isQueryCanceled()) {
    out.message = "that query took too long and was stopped";
  } else {
    out.message = error.what();
  }
  return out;
}

std::string onlyElement(const std::string& array) {
  if (array.size() < 2) return array;
  return array.substr(1, array.size() - 2);
}

}  // namespace berth::sqlconsole
