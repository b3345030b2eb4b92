#include "rows_execution.hpp"

#include "catalog_fingerprint.hpp"

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

ReadResult readResult(const PgResult& result) {
  ReadResult out;
  if (!isNull(result, 0, 0)) out.total = std::stoll(text(result, 0, 0));
  out.rows = text(result, 0, 1);
  out.returned = std::stoll(text(result, 0, 2));
  return out;
}

// The database refused a statement as naming something that is not there (or not of the kind
// it was taken for): SQLSTATE class 42, or a prepared plan whose result changed shape.
bool schemaMismatch(const PgError& error) {
  return error.sqlstate().starts_with("42") || error.sqlstate() == "0A000";
}

// The session no longer has the prepared statement (the project's own SQL ran DEALLOCATE).
bool lostStatement(const PgError& error) {
  return error.sqlstate() == "26000";
}

// Every read puts statement_timeout back when it is done (withStatementTimeoutReset).
ReadResult runRead(PgSession& session, const SqlStatement& statement, int statement_timeout_ms) {
  SqlStatement read = withStatementTimeoutReset(statement, statement_timeout_ms);
  return readResult(session.execPrepared(read.text, read.params));
}

}  // namespace

ReadResult readRows(PgSession& session, CatalogCache& catalogs, const std::string& project_id,
                    const CatalogScope& scope,
                    const std::function<SqlStatement(const Catalog&)>& build) {
  const int timeout_ms = catalogs.statementTimeoutMs();
  if (std::optional<CatalogCache::Kept> kept = catalogs.kept(project_id, scope)) {
    std::optional<SqlStatement> statement;
    try {
      statement = build(*kept->catalog);
    } catch (const RestRefusal&) {
      // Refused by the kept catalogue: below, checked against the database first.
    }
    if (statement && kept->trusted) {
      try {
        return runRead(session, *statement, timeout_ms);
      } catch (const PgError& error) {
        if (!schemaMismatch(error)) throw;
      }
      // The schema changed since the catalogue was checked: read again with a fresh one.
      return runRead(session, build(*catalogs.reload(session, project_id, scope).catalog),
                     timeout_ms);
    }
    if (statement) {
      SqlStatement check = fingerprintStatement(scope.tables, timeout_ms);
      SqlStatement timed = withStatementTimeoutReset(*statement, timeout_ms);
      auto [checked, read] =
          session.execPreparedPair(check.text, check.params, timed.text, timed.params);
      if (checked.error) throw *checked.error;
      if (fingerprintOf(checked.result) == kept->fingerprint) {
        catalogs.checked(project_id, scope);
        if (read.error) throw *read.error;
        return readResult(read.result);
      }
      return runRead(session, build(*catalogs.reload(session, project_id, scope).catalog),
                     timeout_ms);
    }
  }
  return runRead(session, catalogs.with(session, project_id, scope, build), timeout_ms);
}

std::shared_ptr<ProjectConnections::Lease> leaseFor(ProjectConnections& connections,
                                                    const std::string& project_id, RunOn where) {
  if (where == RunOn::Pool)
    return std::make_shared<ProjectConnections::Lease>(connections.lease(project_id));
  std::optional<ProjectConnections::Lease> idle = connections.idleLease(project_id);
  if (!idle) throw NeedsPool{};
  return std::make_shared<ProjectConnections::Lease>(std::move(*idle));
}

std::optional<ReadResult> readRowsNow(PgSession& session, CatalogCache& catalogs,
                                      const std::string& project_id, const CatalogScope& scope,
                                      const std::function<SqlStatement(const Catalog&)>& build,
                                      std::chrono::microseconds wait) {
  std::optional<CatalogCache::Kept> kept = catalogs.kept(project_id, scope);
  if (!kept || !kept->trusted) throw NeedsPool{};
  SqlStatement statement;
  try {
    statement = withStatementTimeoutReset(build(*kept->catalog), catalogs.statementTimeoutMs());
  } catch (const RestRefusal&) {
    throw NeedsPool{};  // believed only once a fresh catalogue agrees
  }
  if (!session.sendPrepared(statement.text, statement.params)) throw NeedsPool{};
  if (!session.answered(wait)) return std::nullopt;
  try {
    return readResult(session.takeResult());
  } catch (const PgError& error) {
    if (!schemaMismatch(error) && !lostStatement(error)) throw;
  }
  throw NeedsPool{};  // a read changes nothing: the pool reads again with a fresh catalogue
}

ReadResult awaitRead(PgSession& session, CatalogCache& catalogs, const std::string& project_id,
                     const CatalogScope& scope,
                     const std::function<SqlStatement(const Catalog&)>& build) {
  try {
    return readResult(session.takeResult());
  } catch (const PgError& error) {
    if (!schemaMismatch(error) && !lostStatement(error)) throw;
  }
  return readRows(session, catalogs, project_id, scope, build);
}

WriteResult runWrites(PgSession& session, const std::vector<SqlStatement>& statements,
                      int statement_timeout_ms) {
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
  // A trigger may have called set_config, and a read trusting its catalogue does not put the
  // limit back before it runs. The write has committed: a failure here is no failure of it.
  try {
    SqlStatement reset = statementTimeoutReset(statement_timeout_ms);
    session.execPrepared(reset.text, reset.params);
  } catch (const PgError&) {
    session.markBroken();  // never handed out again with the limit in doubt
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
