// POST /projects/{name}/sql, /query and /batch (docs/openapi.yaml). Statements are split and
// judged by PostgreSQL's own parser (libpg_query) before anything reaches the database, and run
// on the project's own database as the project's own role.
#include <chrono>
#include <string>
#include <vector>

#include "database_errors.hpp"
#include "pg_wait.hpp"
#include "project_access.hpp"
#include "query_run.hpp"
#include "routes.hpp"
#include "schema_changes.hpp"
#include "sql_script.hpp"
#include "structure_queries.hpp"

namespace berth::sqlconsole {
namespace {

constexpr size_t kMaxBatch = 200;
constexpr const char* kOnlySchemaChanges = "only create, alter and drop are accepted here";
// The worker's own clock runs a little longer than statement_timeout, so the database's own
// timeout normally speaks first; the clock only matters when the user turned it off.
constexpr std::chrono::milliseconds kWatchdogGrace{2000};

void asyncRoute(berth::Registrar& r, Context& context, const std::string& path,
                std::vector<berth::Field> fields,
                void (*work)(Context&, const berth::Request&, berth::Responder&)) {
  berth::RouteOptions options;
  options.fields = std::move(fields);
  r.post(
      path,
      [&context, work](berth::Request req, berth::Responder resp) {
        answerLater(*context.workers, context.logger(), std::move(req), std::move(resp),
                    [&context, work](const berth::Request& request, berth::Responder& responder) {
                      work(context, request, responder);
                    });
      },
      options);
}

QueryOptions queryOptions(const Context& context, bool in_transaction) {
  QueryOptions options;
  options.maxRows = static_cast<size_t>(context.settings.max_query_rows);
  options.watchdog =
      std::chrono::milliseconds(context.settings.statement_timeout_ms) + kWatchdogGrace;
  options.inTransaction = in_transaction;
  return options;
}

std::vector<Statement> parse(const std::string& sql, const std::string& prefix = {}) {
  try {
    return splitStatements(sql);
  } catch (const SqlSyntaxError& e) {
    throw berth::Error::badRequest(prefix + syntaxMessage(e, sql));
  }
}

// ---- /sql ----------------------------------------------------------------------------------

void schemaChanges(Context& context, const berth::Request& request, berth::Responder& responder) {
  const Project project = reachableProject(context, request);
  responder.json(200, berth::sqlconsole_sql::toJson(runSchemaChanges(
                          context, project, request.json().at("sql").get<std::string>())));
}

// ---- /query --------------------------------------------------------------------------------

void query(Context& context, const berth::Request& request, berth::Responder& responder) {
  const Project project = reachableProject(context, request);
  const std::string sql = request.json().at("sql").get<std::string>();
  const std::vector<Statement> statements = parse(sql);
  if (statements.empty()) throw berth::Error::badRequest(std::string(kNothingToRun));
  if (statements.size() > 1) {
    throw berth::Error::badRequest("/query runs one statement and this has " +
                                   std::to_string(statements.size()) +
                                   "; send them to /batch, or one at a time");
  }
  try {
    checkRunnable(statements[0]);
  } catch (const QueryRefused& e) {
    throw berth::Error::badRequest(e.what());
  }
  auto lease = context.connections->lease(project.id);
  lease.dirty();
  ForgetCatalogsAfter schema_may_change(context.catalogs, project.id);
  try {
    const QueryOutcome outcome = runQuery(*lease, statements[0], queryOptions(context, false));
    responder.bytes(200, "application/json", outcome.json());
  } catch (const QueryRefused& e) {
    throw berth::Error::badRequest(e.what());
  } catch (const PgError& e) {
    throw databaseError(e, lease);
  }
}

// ---- /batch --------------------------------------------------------------------------------

struct BatchItem {
  size_t position;  // 1-based, in the array as sent
  Statement statement;
};

std::string at(size_t position) {
  return "statement " + std::to_string(position) + ": ";
}

bool endsOrStartsTransaction(const Classification& kind) {
  if (kind.node != "TransactionStmt") return false;
  // SAVEPOINT, RELEASE and ROLLBACK TO work inside the batch's transaction; the rest would end
  // it or start another.
  return kind.transactionKind != "TRANS_STMT_SAVEPOINT" &&
         kind.transactionKind != "TRANS_STMT_RELEASE" &&
         kind.transactionKind != "TRANS_STMT_ROLLBACK_TO";
}

std::vector<BatchItem> batchItems(const nlohmann::json& list) {
  if (list.size() > kMaxBatch)
    throw berth::Error::badRequest("at most 200 statements in one batch");
  std::vector<BatchItem> items;
  for (size_t i = 0; i < list.size(); ++i) {
    const size_t position = i + 1;
    if (!list[i].is_string())
      throw berth::Error::badRequest(at(position) + "not a string; send each statement as text");
    const std::string sql = list[i].get<std::string>();
    std::vector<Statement> statements = parse(sql, at(position));
    if (statements.empty()) continue;  // docs/openapi.yaml, /batch: empty items are ignored
    if (statements.size() > 1) {
      throw berth::Error::badRequest(at(position) + "holds " + std::to_string(statements.size()) +
                                     " statements; put each in an item of its own");
    }
    try {
      checkRunnable(statements[0]);
    } catch (const QueryRefused& e) {
      throw berth::Error::badRequest(at(position) + e.what());
    }
    if (endsOrStartsTransaction(statements[0].kind)) {
      throw berth::Error::badRequest(at(position) +
                                     "BEGIN, COMMIT and ROLLBACK cannot be used here; the batch "
                                     "runs in one transaction of its own");
    }
    items.push_back({position, std::move(statements[0])});
  }
  if (items.empty()) throw berth::Error::badRequest(std::string(kNothingToRun));
  return items;
}

void rollback(PgSession& session) {
  if (session.raw() == nullptr) return;
  const PGTransactionStatusType status = PQtransactionStatus(session.raw());
  if (status == PQTRANS_INTRANS || status == PQTRANS_INERROR)
    PgResult(PQexec(session.raw(), "ROLLBACK"));
}

void batch(Context& context, const berth::Request& request, berth::Responder& responder) {
  const Project project = reachableProject(context, request);
  const std::vector<BatchItem> items = batchItems(request.json().at("statements"));

  auto lease = context.connections->lease(project.id);
  lease.dirty();
  ForgetCatalogsAfter schema_may_change(context.catalogs, project.id);
  const QueryOptions options = queryOptions(context, true);
  std::string body = "{\"results\":[";
  size_t position = 0;
  try {
    lease->execSimple("BEGIN");
    for (size_t i = 0; i < items.size(); ++i) {
      position = items[i].position;
      const QueryOutcome outcome = runQuery(*lease, items[i].statement, options);
      if (i > 0) body.push_back(',');
      body += outcome.json();
    }
    position = 0;
    lease->execSimple("COMMIT");
  } catch (const QueryRefused& e) {
    rollback(*lease);
    throw berth::Error::badRequest(at(position) + e.what());
  } catch (const PgError& e) {
    rollback(*lease);
    if (position == 0 && !e.isConnectionProblem() && !e.isQueryCanceled())
      throw berth::Error::badRequest(std::string("the batch could not be committed: ") + e.what());
    throw databaseError(e, lease, position > 0 ? at(position) : std::string());
  }
  body += "]}";
  responder.bytes(200, "application/json", body);
}

}  // namespace

berth::sqlconsole_sql::SchemaChanged runSchemaChanges(Context& context, const Project& project,
                                                      const std::string& sql) {
  const std::vector<Statement> statements = parse(sql);
  if (statements.empty()) throw berth::Error::badRequest(std::string(kNothingToRun));
  // Every statement is judged before any runs (docs/openapi.yaml, POST /projects/{name}/sql,
  // rule 1).
  for (const Statement& statement : statements)
    if (!isSchemaChange(statement.kind.node)) throw berth::Error::badRequest(kOnlySchemaChanges);

  // The project's own role, over the pooled connections: never a connection with more power.
  auto lease = context.connections->lease(project.id);
  lease.dirty();
  ForgetCatalogsAfter schema_may_change(context.catalogs, project.id);
  try {
    // As written, in one go (rule 2): several statements sent together run as one implicit
    // transaction, so a refusal keeps none of them.
    Deadline deadline = Deadline::after(
        std::chrono::milliseconds(context.settings.statement_timeout_ms) + kWatchdogGrace);
    if (PQsendQuery(lease->raw(), sql.c_str()) == 0)
      throw PgError(PQerrorMessage(lease->raw()), "08006");
    finishCommand(lease->raw(), deadline);
    return {publicTableNames(*lease)};
  } catch (const PgError& e) {
    throw databaseError(e, lease);
  }
}

void registerSqlRoutes(berth::Registrar& r, Context& context) {
  asyncRoute(r, context, "/projects/:name/sql", {{"sql", berth::FieldType::String, true}},
             schemaChanges);
  asyncRoute(r, context, "/projects/:name/query", {{"sql", berth::FieldType::String, true}}, query);
  asyncRoute(r, context, "/projects/:name/batch", {{"statements", berth::FieldType::Array, true}},
             batch);
}

}  // namespace berth::sqlconsole
