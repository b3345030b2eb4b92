// ctest-label: api (starts a real berthd)
// sqlconsole.sql.v1 over the real plugin ABI, called through the serviceprobe fixture plugin as
// an installer's context or another plugin calls it: `run` does what POST /projects/{name}/sql
// does (the same answer, rules and texts), on the project's own database as the project's own
// role, which cannot become more (no superuser, no extension reaching other databases, no
// server files) nor connect to another project's database or the control plane; plus the
// service's own refusals (fields, params, the size limit, an unknown project).
#include <regex>

#include "db/pool.hpp"
#include "sql_api_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::sqlconsole_api;
using nlohmann::json;

namespace {

class SqlService : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "sqlconsole", "serviceprobe"};
    // A 1 s statement timeout tests the timeout quickly.
    options.extra_yaml = "sqlconsole:\n  statement_timeout_seconds: 1\n";
    startServer(options);
    owner = std::make_unique<Account>(makeAccount(*server, "sqlsvc"));
  }
  static void TearDownTestSuite() {
    stopServer();
    owner.reset();
  }
  static ApiClient client() { return server->api(owner->token); }
  static TestProject project(const std::string& label) {
    return makeProject(*server, client(), label, owner->slug);
  }
  static HttpResult run(const json& request) {
    return server->api().post("/serviceprobe/sqlconsole.sql.v1/run", request);
  }
  static HttpResult run(const TestProject& p, const std::string& sql) {
    return run({{"project_id", p.id}, {"sql", sql}});
  }
  static json mustRun(const TestProject& p, const std::string& sql) {
    auto r = run(p, sql);
    if (r.status != 200)
      throw std::runtime_error("run " + sql.substr(0, 200) + ": " + std::to_string(r.status) + " " +
                               r.body.substr(0, 400));
    return r.json();
  }
  static inline std::unique_ptr<Account> owner;
};

// The control plane's database name.
std::string controlDatabase(const BerthdProcess& server) {
  berth::core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(10));
  return column(db, "SELECT current_database()")[0];
}

}  // namespace

TEST_F(SqlService, RunsSchemaChangesAndAnswersAsTheRoute) {
  TestProject p = project("svcrun");
  json answer = mustRun(p,
                        "create table notes (id serial primary key, body text not null);\n"
                        "create index notes_body on notes (body)");
  EXPECT_EQ(answer, json({{"ok", true}, {"tables", {"notes"}}}));
  // The route answers the same shape, listing the same tables.
  auto route = postSql(client(), p.name, "sql", "create table tags (name text)");
  ASSERT_EQ(route.status, 200) << route.body;
  EXPECT_EQ(route.json(), json({{"ok", true}, {"tables", {"notes", "tags"}}}));
  EXPECT_EQ(mustRun(p, "drop table tags"), json({{"ok", true}, {"tables", {"notes"}}}));
  // params may be left out, null or empty.
  EXPECT_EQ(
      run({{"project_id", p.id}, {"sql", "create table a (x int)"}, {"params", nullptr}}).status,
      200);
  EXPECT_EQ(
      run({{"project_id", p.id}, {"sql", "create table b (x int)"}, {"params", json::array()}})
          .status,
      200);
  EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "3");
}

// The defence: the script runs as the project's own login role on its own database. Run as a
// superuser (or any role of more power), every expectation below fails.
TEST_F(SqlService, TheScriptRunsAsTheProjectsRoleAndCannotReachFurther) {
  TestProject mine = project("svcmine");
  TestProject other = project("svcother");
  const std::string control = controlDatabase(*server);
  mustRun(mine,
          "create table reach as select current_user::text as who, session_user::text as session,"
          " current_database()::text as db,"
          " (select rolsuper from pg_roles where rolname = current_user) as super,"
          " has_database_privilege('" +
              other.role +
              "', 'CONNECT') as other_project,"
              " has_database_privilege('" +
              control + "', 'CONNECT') as control_plane");
  // Read as the cluster's superuser, which reads whatever role made the table.
  auto rows = rowsOf(sharedCluster().url(mine.role),
                     "SELECT who, session, db, super, other_project, control_plane FROM reach");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], mine.role) << "current_user";
  EXPECT_EQ(rows[0][1], mine.role) << "session_user";
  EXPECT_EQ(rows[0][2], mine.role) << "its own database";
  EXPECT_EQ(rows[0][3], "f") << "not a superuser";
  EXPECT_EQ(rows[0][4], "f") << "cannot connect to another project's database";
  EXPECT_EQ(rows[0][5], "f") << "cannot connect to the control plane";
  EXPECT_EQ(scalar(sharedCluster().url(mine.role),
                   "SELECT tableowner FROM pg_tables WHERE tablename = 'reach'"),
            mine.role);
  EXPECT_EQ(scalar(other.url, "SELECT count(*) FROM pg_tables WHERE tablename = 'reach'"), "0");

  // What would reach other databases or the server's files is refused by the database itself.
  struct Case {
    std::string sql, error;
  };
  const std::vector<Case> refused = {
      {"create extension dblink", "permission denied to create extension \"dblink\""},
      {"create extension postgres_fdw", "permission denied to create extension \"postgres_fdw\""},
      {"create table leak as select pg_read_file('/etc/hostname') as t",
       "permission denied for function pg_read_file"},
      {"create role intruder login", "permission denied to create role"},
      {"create role intruder login superuser", "must be superuser to create superusers"},
      {"alter role current_user superuser",
       "must be superuser to alter superuser roles or change "
       "superuser attribute"},
      {"create database elsewhere", "permission denied to create database"},
  };
  for (const Case& c : refused) {
    auto r = run(mine, c.sql);
    EXPECT_EQ(r.status, 400) << c.sql << " " << r.body;
    EXPECT_EQ(errorText(r), c.error) << c.sql;
  }
  EXPECT_EQ(scalar(mine.url, "SELECT count(*) FROM pg_extension WHERE extname <> 'plpgsql'"), "0");
  EXPECT_EQ(scalar(mine.url, "SELECT count(*) FROM pg_roles WHERE rolname = 'intruder'"), "0");
}

TEST_F(SqlService, RefusalsAreTheRoutesOwn) {
  TestProject p = project("svcrules");
  mustRun(p, "create table notes (id int)");
  const std::vector<std::string> scripts = {
      "select 1",
      "create table x (id int); insert into x values (1)",
      "",
      "   -- only a comment\n",
      "creat table nope (id int)",
      "create table fine (id int);\ncreat table nope (id int)",
      "create table notes (id int)",
      "create table slow as select 1 as s from pg_sleep(3)",
  };
  for (const std::string& sql : scripts) {
    auto route = postSql(client(), p.name, "sql", sql);
    auto service = run(p, sql);
    ASSERT_EQ(route.status, 400) << sql << " " << route.body;
    EXPECT_EQ(service.status, 400) << sql << " " << service.body;
    EXPECT_EQ(errorText(service), errorText(route)) << sql;
  }
  // Spelled out, so a change of the shared texts shows here too.
  EXPECT_EQ(errorText(run(p, "select 1")), "only create, alter and drop are accepted here");
  EXPECT_EQ(errorText(run(p, "")), "there is nothing to run");
  EXPECT_EQ(errorText(run(p, "creat table nope (id int)")), "syntax error at or near \"creat\"");
  EXPECT_EQ(errorText(run(p, "create table notes (id int)")), "relation \"notes\" already exists");
  EXPECT_EQ(errorText(run(p, "create table slow as select 1 as s from pg_sleep(3)")),
            "that query took too long and was stopped");

  // One implicit transaction: a refused statement keeps none of the script.
  auto r = run(p, "create table first (id int); create table notes (id int)");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_tables WHERE tablename = 'first'"), "0");
  EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "1");
}

TEST_F(SqlService, TheServicesOwnRefusals) {
  TestProject p = project("svcown");
  auto r = run({{"sql", "create table t (id int)"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "project_id is required and must be a string");
  r = run({{"project_id", p.id}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "sql is required and must be a string");
  r = run({{"project_id", p.id}, {"sql", json::array({"create table t (id int)"})}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "sql is required and must be a string");

  r = run({{"project_id", p.id}, {"sql", "create table t (id int)"}, {"params", json::array({1})}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "params cannot be bound: a script of schema changes takes no parameters");
  r = run({{"project_id", p.id}, {"sql", "create table t (id int)"}, {"params", "1"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "params must be an array");

  const std::string missing = "nosuchprojectid000000000";
  r = run({{"project_id", missing}, {"sql", "create table t (id int)"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + missing);

  r = server->api().post("/serviceprobe/sqlconsole.sql.v1/query", {{"project_id", p.id}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "service sqlconsole.sql.v1 has no method query");
  EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "0");
}

// The size limit (sqlconsole_sql::kMaxSqlBytes, 413) cannot be reached through serviceprobe, a
// JSON route whose body berthd caps at 2 MB as it caps the SQL route's: tests/sdk
// installer_services_contract_test checks the parser that refuses it.
TEST_F(SqlService, AScriptNearTheLimitRuns) {
  TestProject p = project("svcsize");
  const std::string head = "create table big (id int);\n-- ";
  std::string script = head + std::string((size_t{2} << 20) - 4096, 'x');
  EXPECT_EQ(mustRun(p, script), json({{"ok", true}, {"tables", {"big"}}}));
}
