// The browser data API on project hosts (docs/openapi.yaml, /_data on the project host):
//   GET/HEAD/POST/PATCH/DELETE /_data/<table>   PostgREST's grammar, the rows routes' SQL
//   POST /_data/rpc/<function>                  a function of public, named arguments
//   OPTIONS on both                             the CORS preflight
// The caller shows the project's publishable key (apikey header, Authorization: Bearer, or an
// apikey query parameter). Every table is closed until an operation is opened on it, and every
// function until it is enabled (data_api_settings_routes.cpp). Answers follow PostgREST where
// its clients look: Prefer return=representation / count=exact / resolution=..., Content-Range,
// Accept: application/vnd.pgrst.object+json, and errors with message, code, details and hint
// beside the `error` every Berth answer has.
#include <algorithm>
#include <set>

#include <berth/common/text.hpp>
#include "catalog.hpp"
#include "cors.hpp"
#include "data_api_store.hpp"
#include "function_catalog.hpp"
#include "project_access.hpp"
#include "rest_prefer.hpp"
#include "rest_query.hpp"
#include "rest_select.hpp"
#include "rest_sql.hpp"
#include "routes.hpp"
#include "rows_execution.hpp"
#include "worker_pool.hpp"

namespace berth::sqlconsole {
namespace {

constexpr const char* kMethods = "GET, HEAD, POST, PATCH, DELETE, OPTIONS";
constexpr const char* kJson = "application/json; charset=utf-8";

// A refusal with PostgREST's fields: `code` is the SQLSTATE when the database refused, or one
// of PostgREST's own (PGRST...) where a client may look for it.
class DataApiError : public std::runtime_error {
 public:
  DataApiError(int status, std::string message, std::string code = {}, std::string details = {},
               berth::Headers headers = {})
      : std::runtime_error(std::move(message)),
        status(status),
        code(std::move(code)),
        details(std::move(details)),
        headers(std::move(headers)) {}
  int status;
  std::string code;
  std::string details;
  berth::Headers headers;
};

void answerError(berth::Responder& responder, int status, const std::string& message,
                 const std::string& code, const std::string& details,
                 const berth::Headers& extra_headers = {}) {
  nlohmann::json extra = {{"message", message},
                          {"code", code},
                          {"details", details.empty() ? nlohmann::json() : nlohmann::json(details)},
                          {"hint", nullptr}};
  berth::Headers headers = corsHeaders();
  headers.insert(headers.end(), extra_headers.begin(), extra_headers.end());
  responder.error(status, message, extra, headers);
}

enum class Operation { Read, Create, Update, Delete };

const char* verb(Operation op) {
  switch (op) {
    case Operation::Read:
      return "read";
    case Operation::Create:
      return "create rows in";
    case Operation::Update:
      return "update";
    case Operation::Delete:
      return "delete from";
  }
  return "use";
}

bool allowed(const TableAccess& access, Operation op) {
  switch (op) {
    case Operation::Read:
      return access.read;
    case Operation::Create:
      return access.create;
    case Operation::Update:
      return access.update;
    case Operation::Delete:
      return access.del;
  }
  return false;
}

// The query string split into the grammar's parameters and the transport ones PostgREST
// clients add beside it.
struct DataParams {
  RestParams grammar;
  std::optional<std::string> apikey;
  std::optional<std::string> columns;      // insert: columns="a","b"
  std::optional<std::string> on_conflict;  // upsert: on_conflict=a,b
};

DataParams splitParams(const berth::Request& request) {
  DataParams out;
  for (auto& [key, value] : request.queryParams()) {
    if (key == "apikey")
      out.apikey = value;
    else if (key == "columns")
      out.columns = value;
    else if (key == "on_conflict")
      out.on_conflict = value;
    else
      out.grammar.emplace_back(key, value);
  }
  return out;
}

// The key as a browser sends it: the apikey header (supabase-js sends it beside a user's token
// in Authorization), else a bearer token, else ?apikey=.
std::optional<std::string> presentedKey(const berth::Request& request, const DataParams& params) {
  if (auto header = request.header("apikey"); header && !common::trimmed(*header).empty())
    return common::trimmed(*header);
  if (auto auth = request.header("authorization")) {
    std::string value = common::trimmed(*auth);
    if (value.size() > 7) {
      std::string scheme = value.substr(0, 7);
      for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (scheme == "bearer ") return common::trimmed(value.substr(7));
    }
  }
  if (params.apikey && !params.apikey->empty()) return params.apikey;
  return std::nullopt;
}

// Plain column names as PostgREST clients write them in columns= and on_conflict= ("a","b" or
// a,b): a select list of bare columns.
std::vector<std::string> columnNames(const std::string& key, const std::string& value) {
  std::vector<std::string> names;
  for (const SelectItem& item : parseSelect(value)) {
    // The names here are checked later without a place to point at: a loosely written one
    // (a b) keeps the strict grammar's refusal, as before loose names were read.
    if (!item.origin.loose_refusal.empty()) throw RestSyntaxError(item.origin.loose_refusal);
    if (item.kind != SelectKind::Column || !item.alias.empty() || !item.cast.empty())
      throw RestRefusal(describeRestProblem(item.origin, "expected a column name",
                                            "write " + key +
                                                " as a comma-separated list of "
                                                "column names"));
    names.push_back(item.name);
  }
  return names;
}

void collectEmbedded(const SelectList& list, std::set<std::string>& tables) {
  for (const SelectItem& item : list) {
    if (item.kind != SelectKind::Embed) continue;
    tables.insert(item.name);
    collectEmbedded(item.children, tables);
  }
}

// The errors of /_data with PostgREST's fields (NeedsPool and FinishOnPool pass through).
template <class Work>
void dataApiErrorsAnswered(berth::Responder& responder, Work&& work) {
  try {
    work();
  } catch (const DataApiError& e) {
    answerError(responder, e.status, e.what(), e.code, e.details, e.headers);
  } catch (const RestSyntaxError& e) {
    answerError(responder, 400, e.what(), "PGRST100", "");
  } catch (const RestRefusal& e) {
    answerError(responder, 400, e.what(), "PGRST100", "");
  } catch (const berth::Error& e) {
    answerError(responder, e.status(), e.message(), "", "", e.headers());
  }
}

class DataRequest {
 public:
  DataRequest(Context& context, const berth::Request& request, berth::Responder& responder)
      : context_(context), request_(request), responder_(responder) {}

  // where: RunOn::CoreThread only for reads (worker_pool.hpp answerSoon).
  void serveTable(RunOn where) {
    const bool now = where == RunOn::CoreThread;
    const std::string method = request_.method();
    Operation op = operationOf(method);
    open(where);
    const std::string table = request_.param("table");
    checkProfile(method == "GET" || method == "HEAD" ? "accept-profile" : "content-profile");
    Preferences prefer = parsePrefer(request_.header("prefer").value_or(""));
    const bool representation =
        op == Operation::Read || prefer.return_ == ReturnPreference::Representation;

    RestQuery query = parseRestQuery(params_.grammar, limits());
    if (op == Operation::Read) applyRangeHeader(query);
    require(table, op);
    if (op == Operation::Create && prefer.resolution == ResolutionPreference::MergeDuplicates)
      require(table, Operation::Update);
    if (representation) {
      require(table, Operation::Read);
      std::set<std::string> embedded;
      if (query.select) collectEmbedded(*query.select, embedded);
      for (const std::string& name : embedded) require(name, Operation::Read);
    }
    if (op == Operation::Update && query.filters.empty())
      throw DataApiError(400, "an update needs a filter");
    if (op == Operation::Delete && query.filters.empty())
      throw DataApiError(400, "a delete needs a filter");

    auto lease = leaseFor(*context_.connections, project_.id, where);
    const CatalogScope scope = catalogScopeFor(table, query);
    const bool head = method == "HEAD";
    if (op != Operation::Read) {
      databaseRefusalsAnswered(*lease, [&] {
        auto statements =
            context_.catalogs.with(**lease, project_.id, scope, [&](const Catalog& catalog) {
              return writeStatements(catalog, table, query, prefer, op);
            });
        write(statements, prefer, op, **lease);
      });
      return;
    }
    const std::function<SqlStatement(const Catalog&)> build =
        [table, query, count = prefer.count](const Catalog& catalog) {
          return buildRead(catalog, table, query, {count});
        };
    databaseRefusalsAnswered(*lease, [&] {
      if (!now) {
        read(readRows(**lease, context_.catalogs, project_.id, scope, build), query, head);
        return;
      }
      std::optional<ReadResult> result = readRowsNow(**lease, context_.catalogs, project_.id, scope,
                                                     build, context_.settings.core_thread_wait);
      if (result) {
        read(*result, query, head);
        return;
      }
      context_.logger()
          .withProject(project_.name)
          .debug(request_, movedToPoolMessage(context_.settings.core_thread_wait));
      throw FinishOnPool{[&context = context_, project = project_, lease, scope, build, query,
                          head](const berth::Request& req, berth::Responder& resp) {
        dataApiErrorsAnswered(resp, [&] {
          DataRequest data(context, req, resp);
          data.project_ = project;
          data.databaseRefusalsAnswered(*lease, [&] {
            data.read(awaitRead(**lease, context.catalogs, project.id, scope, build), query, head);
          });
        });
      }};
    });
  }

  void serveFunction() {
    if (request_.method() != "POST")
      throw DataApiError(405, "call a function with POST", "", "", {{"Allow", "POST, OPTIONS"}});
    const std::string function = request_.param("function");
    open();
    checkProfile("content-profile");
    if (!grant_.functions.contains(function))
      throw DataApiError(403,
                         "the publishable key may not call " + function +
                             "; enable it in the project's data API settings",
                         "42501");
    if (!params_.grammar.empty())
      throw DataApiError(400, "a function takes its arguments in the JSON body, not in the query");
    nlohmann::json body = nlohmann::json::object();
    if (!request_.body().empty()) {
      body = nlohmann::json::parse(request_.body(), nullptr, false);
      if (body.is_discarded()) throw DataApiError(400, "the body is not valid JSON", "PGRST102");
    }
    ProjectConnections::Lease lease = context_.connections->lease(project_.id);
    // The function is the project's own code: it may change session settings (set_config), so
    // the connection is reset before it serves another request.
    lease.dirty();
    ForgetCatalogsAfter schema_may_change(context_.catalogs, project_.id);
    try {
      FunctionResult kind = FunctionResult::Scalar;
      SqlStatement call = buildFunctionCall(loadFunctions(*lease, function), function, body, &kind);
      PgResult result = lease->exec(call.text, call.params);
      if (kind == FunctionResult::Void) {
        responder_.noContent(corsHeaders());
        return;
      }
      std::string value(PQgetvalue(result.get(), 0, 0),
                        static_cast<size_t>(PQgetlength(result.get(), 0, 0)));
      if (PQgetisnull(result.get(), 0, 0)) value = "null";
      responder_.bytes(200, kJson, value, corsHeaders());
    } catch (const PgError& e) {
      DatabaseRefusal refusal = refusalOf(e, lease);
      if (refusal.status >= 500) logWarning("data api rpc: " + std::string(e.what()));
      throw DataApiError(refusal.status, refusal.message, refusal.sqlstate, refusal.detail);
    }
  }

 private:
  static Operation operationOf(const std::string& method) {
    if (method == "GET" || method == "HEAD") return Operation::Read;
    if (method == "POST") return Operation::Create;
    if (method == "PATCH") return Operation::Update;
    if (method == "DELETE") return Operation::Delete;
    throw DataApiError(405, "method not allowed", "", "", {{"Allow", kMethods}});
  }

  // What the database refused, as PostgREST clients expect it.
  template <class Work>
  void databaseRefusalsAnswered(ProjectConnections::Lease& lease, Work&& work) {
    try {
      work();
    } catch (const PgError& e) {
      DatabaseRefusal refusal = refusalOf(e, lease);
      if (refusal.status >= 500) logWarning("data api: " + std::string(e.what()));
      // PostgREST answers 409 for a key that already exists or a reference with no target.
      int status =
          refusal.sqlstate == "23505" || refusal.sqlstate == "23503" ? 409 : refusal.status;
      throw DataApiError(status, refusal.message, refusal.sqlstate, refusal.detail);
    }
  }

  // The project, its settings and the caller's key; throws unless the key is the project's.
  // On a core thread only from what is kept (NeedsPool otherwise).
  void open(RunOn where = RunOn::Pool) {
    const bool now = where == RunOn::CoreThread;
    params_ = splitParams(request_);
    std::optional<Project> kept = now ? keptProjectAtHost(context_, request_) : std::nullopt;
    if (now && !kept) throw NeedsPool{};
    project_ = kept ? *kept : projectAtHost(context_, request_);
    std::optional<std::string> key = presentedKey(request_, params_);
    if (!key) throw DataApiError(401, "send the project's publishable key in the apikey header");
    std::optional<DataApiGrant> kept_grant = now ? context_.grants.kept(project_.id) : std::nullopt;
    if (now && !kept_grant) throw NeedsPool{};
    grant_ = kept_grant ? std::move(*kept_grant) : context_.grants.get(context_.db(), project_.id);
    if (!grant_.key || !sameKey(*grant_.key, *key)) {
      if (now) throw NeedsPool{};  // asked again below, which may wait
      // The project a host is may be kept from an earlier request (project_access.hpp):
      // before refusing, ask again, in case that project was deleted on another node and its
      // name taken since.
      Project current = projectAtHost(context_, request_, /*use_kept=*/false);
      if (current.id != project_.id) {
        project_ = current;
        grant_ = context_.grants.get(context_.db(), project_.id);
      }
    }
    if (!grant_.key || !sameKey(*grant_.key, *key))
      throw DataApiError(401, "that publishable key is not valid for this project");
  }

  // Only the public schema is served; PostgREST clients may name it.
  void checkProfile(const char* header) {
    std::optional<std::string> profile = request_.header(header);
    if (profile && !profile->empty() && common::trimmed(*profile) != "public")
      throw DataApiError(406, "the schema must be public, the only one served here", "PGRST106");
  }

  void require(const std::string& table, Operation op) {
    auto it = grant_.tables.find(table);
    if (it == grant_.tables.end() || !allowed(it->second, op))
      throw DataApiError(403,
                         std::string("the publishable key may not ") + verb(op) + " " + table +
                             "; open it in the project's data API settings",
                         "42501");
  }

  RestLimits limits() const {
    int max_rows = context_.services->configValue<int>("data_api_max_rows");
    return RestLimits{max_rows, 0, max_rows};
  }

  // PostgREST's other way to page: "Range: 0-24" (items, first and last inclusive; "10-" for
  // all from the 11th), used when the query gives neither limit nor offset. A Range that does
  // not read like that is ignored, as HTTP allows.
  void applyRangeHeader(RestQuery& query) const {
    for (const auto& [key, value] : params_.grammar)
      if (key == "limit" || key == "offset") return;
    std::optional<std::string> range = request_.header("range");
    if (!range) return;
    std::string text = common::trimmed(*range);
    if (text.rfind("items=", 0) == 0) text.erase(0, 6);
    size_t dash = text.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 18 || text.size() - dash - 1 > 18) return;
    const std::string first = text.substr(0, dash), last = text.substr(dash + 1);
    auto digits = [](const std::string& t) {
      return t.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(first) || !digits(last)) return;
    const int64_t from = std::stoll(first);
    const RestLimits bounds = limits();
    int64_t count = bounds.max_limit;
    if (!last.empty()) {
      const int64_t to = std::stoll(last);
      if (to < from) return;
      count = std::min<int64_t>(to - from + 1, bounds.max_limit);
    }
    query.offset = from;
    query.limit = static_cast<int>(count);
  }

  bool wantsObject() const {
    std::optional<std::string> accept = request_.header("accept");
    return accept && accept->find("application/vnd.pgrst.object+json") != std::string::npos;
  }

  // A JSON array text answered as it is, or as its one element when the client asked for an
  // object (PostgREST's .single()).
  std::string shaped(const std::string& rows, int64_t count) const {
    if (!wantsObject()) return rows;
    if (count != 1)
      throw DataApiError(406, "JSON object requested, multiple (or no) rows returned", "PGRST116",
                         "The result contains " + std::to_string(count) + " rows");
    return onlyElement(rows);
  }

  void read(const ReadResult& result, const RestQuery& query, bool head) {
    std::string body = shaped(result.rows, result.returned);
    std::string total = result.total ? std::to_string(*result.total) : "*";
    std::string range = result.returned > 0
                            ? std::to_string(query.offset) + "-" +
                                  std::to_string(query.offset + result.returned - 1) + "/" + total
                            : "*/" + total;
    berth::Headers headers = corsHeaders();
    headers.emplace_back("Content-Range", range);
    responder_.bytes(200, kJson, head ? std::string() : body, headers);
  }

  std::vector<SqlStatement> writeStatements(const Catalog& catalog, const std::string& table,
                                            const RestQuery& query, const Preferences& prefer,
                                            Operation op) const {
    Representation representation;
    representation.wanted = prefer.return_ == ReturnPreference::Representation;
    representation.select = query.select;
    if (op == Operation::Update)
      return {buildUpdate(catalog, table, query, body(), representation)};
    if (op == Operation::Delete) return {buildDelete(catalog, table, query, representation)};
    InsertRequest insert;
    insert.body = body();
    if (params_.columns) insert.columns = columnNames("columns", *params_.columns);
    if (params_.on_conflict)
      insert.conflict_columns = columnNames("on_conflict", *params_.on_conflict);
    if (prefer.resolution == ResolutionPreference::MergeDuplicates)
      insert.on_conflict = OnConflict::Merge;
    if (prefer.resolution == ResolutionPreference::IgnoreDuplicates)
      insert.on_conflict = OnConflict::Ignore;
    insert.representation = representation;
    return buildInsert(catalog, table, insert);
  }

  void write(const std::vector<SqlStatement>& statements, const Preferences& prefer, Operation op,
             PgSession& session) {
    Representation representation;
    representation.wanted = prefer.return_ == ReturnPreference::Representation;
    WriteResult written = runWrites(session, statements, context_.catalogs.statementTimeoutMs());
    berth::Headers headers = corsHeaders();
    headers.emplace_back("Content-Range",
                         "*/" + (prefer.count ? std::to_string(written.affected) : "*"));
    const int status = op == Operation::Create ? 201 : representation.wanted ? 200 : 204;
    if (!representation.wanted) {
      if (status == 204)
        responder_.noContent(headers);
      else
        responder_.bytes(status, kJson, "", headers);
      return;
    }
    responder_.bytes(status, kJson, shaped(written.rows.value_or("[]"), written.affected), headers);
  }

  nlohmann::json body() const {
    nlohmann::json parsed = nlohmann::json::parse(request_.body(), nullptr, false);
    if (parsed.is_discarded()) throw DataApiError(400, "the body is not valid JSON", "PGRST102");
    return parsed;
  }

  void logWarning(const std::string& message) const {
    context_.logger().withProject(project_.name).warn(request_, message);
  }

  Context& context_;
  const berth::Request& request_;
  berth::Responder& responder_;
  DataParams params_;
  Project project_;
  DataApiGrant grant_;
};

enum class Target { Table, Function };

berth::Handler handler(Context& context, Target target) {
  return [&context, target](berth::Request request, berth::Responder responder) {
    // The preflight needs nothing from the project: answer it on the spot.
    const std::string method = request.method();
    if (method == "OPTIONS") {
      responder.noContent(preflightHeaders(request));
      return;
    }
    auto serve = [&context, target](const berth::Request& req, berth::Responder& resp,
                                    RunOn where) {
      dataApiErrorsAnswered(resp, [&] {
        DataRequest data(context, req, resp);
        if (target == Target::Table)
          data.serveTable(where);
        else
          data.serveFunction();
      });
    };
    const bool read = target == Target::Table && (method == "GET" || method == "HEAD");
    if (read && context.settings.core_thread_wait.count() > 0) {
      answerSoon(*context.workers, context.logger(), std::move(request), std::move(responder),
                 serve);
      return;
    }
    answerLater(*context.workers, context.logger(), std::move(request), std::move(responder),
                [serve](const berth::Request& req, berth::Responder& resp) {
                  serve(req, resp, RunOn::Pool);
                });
  };
}

}  // namespace

void registerDataApiRoutes(berth::Registrar& r, Context& context) {
  r.configInt("data_api_max_rows", 1000,
              "rows a /_data read returns at most (and by default, without limit=)",
              berth::IntRange{1, 100000});
  r.route(berth::Method::Any, "/_data/:table", handler(context, Target::Table),
          {.projectHost = true});
  r.route(berth::Method::Any, "/_data/rpc/:function", handler(context, Target::Function),
          {.projectHost = true});
}

}  // namespace berth::sqlconsole
