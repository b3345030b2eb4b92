// GET/POST/PATCH/DELETE /projects/{name}/tables/{table}/rows (docs/openapi.yaml). The
// query goes through the rows grammar (rest_query.hpp), the catalogue check and SQL building
// (rest_sql.hpp), and runs on the project's own database as its own role, on the plugin's
// workers. Each request is one statement after the catalogue check (catalog_cache.hpp: a
// prepared fingerprint, or a full read when the schema changed); an insert needing more bound
// values than one statement takes is several, in one transaction.
#include "catalog.hpp"
#include "project_access.hpp"
#include "rest_query.hpp"
#include "rest_sql.hpp"
#include "routes.hpp"
#include "rows_execution.hpp"
#include "worker_pool.hpp"

namespace berth::sqlconsole {
namespace {

constexpr const char* kRowsPath = "/projects/:name/tables/:table/rows";

enum class RowsAction { Read, Insert, Update, Delete };

RestQuery parsedQuery(const berth::Request& request) {
  return parseRestQuery(request.queryParams());  // limit: 50 by default, clamped to 1..200
}

// The grammar's refusals are the caller's mistakes: 400 with their text.
template <class Work>
void grammarRefusalsAnswered(Work&& work) {
  try {
    work();
  } catch (const RestSyntaxError& e) {
    throw berth::Error::badRequest(e.what());
  } catch (const RestRefusal& e) {
    throw berth::Error::badRequest(e.what());
  }
}

// What the database refused, as the caller sees it (rows_execution.hpp refusalOf).
template <class Work>
void databaseRefusalsAnswered(Context& context, const berth::Request& request,
                              const Project& project, ProjectConnections::Lease& lease,
                              Work&& work) {
  try {
    work();
  } catch (const PgError& e) {
    DatabaseRefusal refusal = refusalOf(e, lease);
    if (refusal.status >= 500)
      context.logger().withProject(project.name).warn(request, "rows: " + std::string(e.what()));
    throw berth::Error(refusal.status, refusal.message);
  }
}

void answerRows(berth::Responder& responder, const ReadResult& read, const RestQuery& query) {
  std::string body = "{\"rows\":" + read.rows + ",\"limit\":" + std::to_string(query.limit) +
                     ",\"offset\":" + std::to_string(query.offset) +
                     ",\"total\":" + std::to_string(read.total.value_or(0)) + "}";
  responder.bytes(200, "application/json", body);
}

// GET: on a core thread when all it needs is kept and the database answers within
// core_thread_wait (worker_pool.hpp answerSoon), else on the pool.
void answerRead(Context& context, const berth::Request& request, berth::Responder& responder,
                RunOn where) {
  const bool now = where == RunOn::CoreThread;
  std::optional<Project> kept = now ? keptReachableProject(context, request) : std::nullopt;
  if (now && !kept) throw NeedsPool{};
  const Project project = kept ? *kept : reachableProject(context, request);
  const std::string table = request.param("table");
  const RestQuery query = parsedQuery(request);
  auto lease = leaseFor(*context.connections, project.id, where);
  const CatalogScope scope = catalogScopeFor(table, query);
  const std::function<SqlStatement(const Catalog&)> build = [table, query](const Catalog& c) {
    return buildRead(c, table, query);
  };
  databaseRefusalsAnswered(context, request, project, *lease, [&] {
    if (!now) {
      answerRows(responder, readRows(**lease, context.catalogs, project.id, scope, build), query);
      return;
    }
    std::optional<ReadResult> read = readRowsNow(**lease, context.catalogs, project.id, scope,
                                                 build, context.settings.core_thread_wait);
    if (read) {
      answerRows(responder, *read, query);
      return;
    }
    context.logger()
        .withProject(project.name)
        .debug(request, movedToPoolMessage(context.settings.core_thread_wait));
    throw FinishOnPool{[&context, lease, project, scope, build, query](const berth::Request& req,
                                                                       berth::Responder& resp) {
      grammarRefusalsAnswered([&] {
        databaseRefusalsAnswered(context, req, project, *lease, [&] {
          answerRows(resp, awaitRead(**lease, context.catalogs, project.id, scope, build), query);
        });
      });
    }};
  });
}

void answerWrite(Context& context, RowsAction action, const berth::Request& request,
                 berth::Responder& responder) {
  Project project = reachableProject(context, request);
  const std::string table = request.param("table");
  // POST takes its rows from the body; its query string carries nothing of the grammar.
  RestQuery query = action == RowsAction::Insert ? RestQuery{} : parsedQuery(request);
  if (action == RowsAction::Update && query.filters.empty())
    throw berth::Error::badRequest("an update needs a filter");
  if (action == RowsAction::Delete && query.filters.empty())
    throw berth::Error::badRequest("a delete needs a filter");

  ProjectConnections::Lease lease = context.connections->lease(project.id);
  databaseRefusalsAnswered(context, request, project, lease, [&] {
    const CatalogScope scope = catalogScopeFor(table, query);
    CatalogCache& catalogs = context.catalogs;
    switch (action) {
      case RowsAction::Read:
        break;  // answerRead
      case RowsAction::Insert: {
        InsertRequest insert;
        insert.body = request.json();
        insert.representation.wanted = true;  // every column, as stored
        auto statements = catalogs.with(*lease, project.id, scope, [&](const Catalog& c) {
          return buildInsert(c, table, insert);
        });
        WriteResult written = runWrites(*lease, statements, catalogs.statementTimeoutMs());
        std::string rows = written.rows.value_or("[]");
        responder.bytes(201, "application/json",
                        insert.body.is_object() ? onlyElement(rows) : rows);
        return;
      }
      case RowsAction::Update: {
        const nlohmann::json& body = request.json();
        SqlStatement statement = catalogs.with(*lease, project.id, scope, [&](const Catalog& c) {
          return buildUpdate(c, table, query, body, {});
        });
        WriteResult written = runWrites(*lease, {statement}, catalogs.statementTimeoutMs());
        responder.json(200, {{"updated", written.affected}});
        return;
      }
      case RowsAction::Delete: {
        SqlStatement statement = catalogs.with(*lease, project.id, scope, [&](const Catalog& c) {
          return buildDelete(c, table, query, {});
        });
        WriteResult written = runWrites(*lease, {statement}, catalogs.statementTimeoutMs());
        responder.json(200, {{"deleted", written.affected}});
        return;
      }
    }
  });
}

berth::Handler handler(Context& context, RowsAction action) {
  return [&context, action](berth::Request request, berth::Responder responder) {
    if (action == RowsAction::Read && context.settings.core_thread_wait.count() > 0) {
      answerSoon(*context.workers, context.logger(), std::move(request), std::move(responder),
                 [&context](const berth::Request& req, berth::Responder& resp, RunOn where) {
                   grammarRefusalsAnswered([&] { answerRead(context, req, resp, where); });
                 });
      return;
    }
    answerLater(*context.workers, context.logger(), std::move(request), std::move(responder),
                [&context, action](const berth::Request& req, berth::Responder& resp) {
                  grammarRefusalsAnswered([&] {
                    if (action == RowsAction::Read)
                      answerRead(context, req, resp, RunOn::Pool);
                    else
                      answerWrite(context, action, req, resp);
                  });
                });
  };
}

}  // namespace

void registerRowRoutes(berth::Registrar& r, Context& context) {
  r.get(kRowsPath, handler(context, RowsAction::Read));
  r.post(kRowsPath, handler(context, RowsAction::Insert), {.jsonBody = true});
  r.patch(kRowsPath, handler(context, RowsAction::Update), {.jsonBody = true});
  r.del(kRowsPath, handler(context, RowsAction::Delete));
}

}  // namespace berth::sqlconsole
