// Running the statements of rest_sql.hpp on a project's database, shared by the rows routes and
// /_data: the catalogue a request needs, a read, a write (several statements in one
// transaction), and what a refusal of the database becomes.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "catalog_cache.hpp"
#include "project_connections.hpp"
#include "rest_sql.hpp"
#include "worker_pool.hpp"

namespace berth::sqlconsole {

struct ReadResult {
  std::optional<int64_t> total;  // when counted
  std::string rows;              // JSON array text, as the database wrote it
  int64_t returned = 0;          // rows in the page
};

struct WriteResult {
  int64_t affected = 0;
  std::optional<std::string> rows;  // JSON array text when a representation was asked for
};

// A read with the scope's catalogue, in one round trip when a catalogue is kept: the statement
// is built from the kept catalogue and sent together with the fingerprint check (which also
// puts statement_timeout back first; catalog_fingerprint.hpp), or, while the catalogue is
// trusted (catalog_cache.hpp), alone, as one statement that puts statement_timeout back after
// the read (withStatementTimeoutReset). When the fingerprint
// changed, or the database refuses a statement built from a trusted catalogue as naming what is
// not there, that answer is dropped (a read changes nothing) and the read is built again from a
// fresh catalogue. Statements are prepared on the session (PgSession::execPrepared).
ReadResult readRows(PgSession& session, CatalogCache& catalogs, const std::string& project_id,
                    const CatalogScope& scope,
                    const std::function<SqlStatement(const Catalog&)>& build);
// A connection to the project's database for a request running `where`: on a core thread only
// an idle one (NeedsPool when there is none: opening one may take long). Shared, so that a read
// left in flight can go to the pool with it (FinishOnPool).
std::shared_ptr<ProjectConnections::Lease> leaseFor(ProjectConnections& connections,
                                                    const std::string& project_id, RunOn where);

// readRows on a core thread (worker_pool.hpp, answerSoon). Throws NeedsPool, having sent
// nothing, unless the scope's kept catalogue is trusted, the statement builds from it and is
// prepared on the session; throws NeedsPool too when the database refuses the statement as not
// fitting the schema (a read changes nothing: the pool reads again with a fresh catalogue).
// Waits at most `wait` for the answer: nothing when it has not come, and the read is still in
// flight on the session for awaitRead on the pool.
std::optional<ReadResult> readRowsNow(PgSession& session, CatalogCache& catalogs,
                                      const std::string& project_id, const CatalogScope& scope,
                                      const std::function<SqlStatement(const Catalog&)>& build,
                                      std::chrono::microseconds wait);
// The answer of the read readRowsNow left in flight, or, when the schema turned out to have
// changed, readRows with a fresh catalogue.
ReadResult awaitRead(PgSession& session, CatalogCache& catalogs, const std::string& project_id,
                     const CatalogScope& scope,
                     const std::function<SqlStatement(const Catalog&)>& build);

// One statement as it is; more inside BEGIN ... COMMIT (rolled back when one fails). Then
// statement_timeout is put back to statement_timeout_ms (a trigger may have changed it).
WriteResult runWrites(PgSession& session, const std::vector<SqlStatement>& statements,
                      int statement_timeout_ms);

// A statement the database refused, as the caller should see it. A lost connection is
// discarded from the pool and answers 503; a statement stopped by statement_timeout answers
// 400 "that query took too long and was stopped"; anything else 400 with the database's own
// message (sqlstate and detail kept for /_data, which shows them as PostgREST does).
struct DatabaseRefusal {
  int status = 400;
  std::string message;
  std::string sqlstate;
  std::string detail;
};
DatabaseRefusal refusalOf(const PgError& error, ProjectConnections::Lease& lease);

// The one element of a JSON array text that holds exactly one (as json_agg writes it).
std::string onlyElement(const std::string& array);

}  // namespace berth::sqlconsole
