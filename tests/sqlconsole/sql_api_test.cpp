// ctest-label: api (starts a real berthd)
// The structure and SQL routes of the sqlconsole plugin over HTTP, against a real berthd whose
// statement timeout is 1 second (so the timeout rules are tested quickly): /tables, /views,
// /indexes, /backup, /sql, /query and /batch, each rule and error text of docs/openapi.yaml,
// the project's own role, and other accounts' 404s.
#include <unistd.h>

#include <fstream>
#include <regex>

#include "sql_api_support.hpp"

using namespace berth::testing;
using namespace berth::testing::sqlconsole_api;
using nlohmann::json;

namespace {

constexpr const char* kTookTooLong = "that query took too long and was stopped";

class SqlApi : public SqlconsoleSuite {
 protected:
  static void SetUpTestSuite() {
    startServer("sqlconsole:\n  statement_timeout_seconds: 1\n");
    owner = new Account(makeAccount(*server, "sqlowner"));
    project =
        new TestProject(makeProject(*server, server->api(owner->token), "console", "sqlowner"));
  }
  static void TearDownTestSuite() {
    delete project;
    delete owner;
    SqlconsoleSuite::TearDownTestSuite();
  }
  static ApiClient client() { return server->api(owner->token); }
  static HttpResult query(const std::string& sql) {
    return postSql(client(), project->name, "query", sql);
  }
  static HttpResult sql(const std::string& text) {
    return postSql(client(), project->name, "sql", text);
  }
  static HttpResult batch(const json& statements) {
    return client().post("/projects/" + project->name + "/batch", {{"statements", statements}});
  }
  static json mustQuery(const std::string& text) {
    auto r = query(text);
    if (r.status != 200) throw std::runtime_error("query " + text + ": " + r.body);
    return r.json();
  }
  static inline Account* owner = nullptr;
  static inline TestProject* project = nullptr;
};

long rssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

// ---- structure -------------------------------------------------------------------------------

TEST_F(SqlApi, TablesDescribeColumnsKeysAndLinks) {
  auto r = sql(R"(
    CREATE TABLE st_owner (id serial PRIMARY KEY, email varchar(80) NOT NULL UNIQUE,
                           score numeric(10,2) DEFAULT 0, tags text[], seen timestamptz);
    CREATE TABLE st_pet (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                         owner_id int REFERENCES st_owner (id) ON DELETE CASCADE,
                         keeper_id int REFERENCES st_owner (id) ON DELETE SET NULL ON UPDATE RESTRICT,
                         name text NOT NULL DEFAULT 'rex');
  )");
  ASSERT_EQ(r.status, 200) << r.body;
  auto tables = client().get("/projects/" + project->name + "/tables");
  ASSERT_EQ(tables.status, 200) << tables.body;
  json list = tables.json()["tables"];
  json owner_table, pet_table;
  for (const auto& t : list) {
    if (t["name"] == "st_owner") owner_table = t;
    if (t["name"] == "st_pet") pet_table = t;
  }
  ASSERT_TRUE(owner_table.is_object()) << list.dump();
  EXPECT_EQ(owner_table["columns"], json::parse(R"J([
      {"name":"id","type":"integer","not_null":true,"primary_key":true,
       "default_value":"nextval('st_owner_id_seq'::regclass)"},
      {"name":"email","type":"character varying(80)","not_null":true,"primary_key":false,
       "default_value":null},
      {"name":"score","type":"numeric(10,2)","not_null":false,"primary_key":false,
       "default_value":"0"},
      {"name":"tags","type":"text[]","not_null":false,"primary_key":false,"default_value":null},
      {"name":"seen","type":"timestamp with time zone","not_null":false,"primary_key":false,
       "default_value":null}])J"));
  EXPECT_EQ(owner_table["links"], json::array());
  EXPECT_EQ(pet_table["columns"][0]["type"], "bigint");
  EXPECT_EQ(pet_table["columns"][3]["default_value"], "'rex'::text");
  EXPECT_EQ(pet_table["links"], json::parse(R"([
      {"column":"keeper_id","table":"st_owner","to":"id","on_delete":"SET NULL","on_update":""},
      {"column":"owner_id","table":"st_owner","to":"id","on_delete":"CASCADE","on_update":""}])"));
  // Views are not tables.
  ASSERT_EQ(sql("CREATE VIEW st_view AS SELECT 1 AS one").status, 200);
  auto again = client().get("/projects/" + project->name + "/tables").json();
  for (const auto& t : again["tables"]) EXPECT_NE(t["name"], "st_view");
}

TEST_F(SqlApi, ViewsListViewsAndMaterializedViewsAsTheDatabasePrintsThem) {
  ASSERT_EQ(sql("CREATE TABLE vw_base (id int, label text);"
                "CREATE VIEW vw_labels AS SELECT label FROM vw_base WHERE id > 2;"
                "CREATE MATERIALIZED VIEW vw_count AS SELECT count(*) AS n FROM vw_base")
                .status,
            200);
  auto r = client().get("/projects/" + project->name + "/views");
  ASSERT_EQ(r.status, 200) << r.body;
  std::map<std::string, std::string> views;
  const json listed = r.json();  // must outlive the loop
  for (const auto& v : listed["views"]) views[v["name"]] = v["sql"];
  ASSERT_EQ(views.count("vw_labels"), 1u) << r.body;
  ASSERT_EQ(views.count("vw_count"), 1u) << r.body;
  EXPECT_EQ(views["vw_labels"],
            scalar(project->url, "SELECT pg_get_viewdef('vw_labels'::regclass)"));
  EXPECT_EQ(views["vw_count"], scalar(project->url, "SELECT pg_get_viewdef('vw_count'::regclass)"));
  EXPECT_NE(views["vw_labels"].find("WHERE (vw_base.id > 2)"), std::string::npos)
      << views["vw_labels"];
}

TEST_F(SqlApi, IndexesListOnlyThoseTheUserMade) {
  ASSERT_EQ(sql("CREATE TABLE ix_people (id int PRIMARY KEY, email text UNIQUE, a int, b int,"
                "  CONSTRAINT ix_ab UNIQUE (a, b));"
                "CREATE INDEX ix_lower_email ON ix_people (lower(email));"
                "CREATE UNIQUE INDEX ix_b_a ON ix_people (b, a);"
                "CREATE INDEX ix_mixed ON ix_people (a, (a + b)) INCLUDE (email)")
                .status,
            200);
  auto r = client().get("/projects/" + project->name + "/indexes");
  ASSERT_EQ(r.status, 200) << r.body;
  json mine = json::array();
  const json listed = r.json();  // must outlive the loop
  for (const auto& i : listed["indexes"])
    if (i["table"] == "ix_people") mine.push_back(i);
  EXPECT_EQ(mine, json::parse(R"J([
    {"name":"ix_b_a","table":"ix_people","unique":true,"columns":["b","a"]},
    {"name":"ix_lower_email","table":"ix_people","unique":false,"columns":["lower(email)"]},
    {"name":"ix_mixed","table":"ix_people","unique":false,"columns":["a","(a + b)"]}])J"));
}

TEST_F(SqlApi, BackupSaysWhatItIs) {
  auto r = client().get("/projects/" + project->name + "/backup");
  ASSERT_EQ(r.status, 200) << r.body;
  json b = r.json();
  EXPECT_EQ(b["automatic"], false);
  EXPECT_EQ(b["formats"], json::parse(R"(["sql","postgres","mysql","json"])"));
  ASSERT_TRUE(b["size_bytes"].is_number_integer());
  const long long actual =
      std::stoll(scalar(project->url, "SELECT pg_database_size(current_database())"));
  EXPECT_GT(b["size_bytes"].get<long long>(), 1000000);
  EXPECT_NEAR(static_cast<double>(b["size_bytes"].get<long long>()), static_cast<double>(actual),
              2e6);
}

TEST_F(SqlApi, OtherAccountsAndMissingProjectsGet404OnEveryRoute) {
  auto stranger = makeAccount(*server, "sqlstranger");
  const std::string missing = "nothing-here";
  for (const std::string& name : {project->name, missing}) {
    const std::string expected = "no project called " + name;
    ApiClient as = server->api(name == missing ? owner->token : stranger.token);
    for (const std::string route : {"tables", "views", "indexes", "backup", "export"}) {
      auto r = as.get("/projects/" + name + "/" + route);
      EXPECT_EQ(r.status, 404) << route << " " << r.body;
      EXPECT_EQ(errorText(r), expected) << route;
    }
    for (const std::string route : {"sql", "query"}) {
      auto r = postSql(as, name, route, "select 1");
      EXPECT_EQ(r.status, 404) << route;
      EXPECT_EQ(errorText(r), expected) << route;
    }
    auto b = as.post("/projects/" + name + "/batch", {{"statements", {"select 1"}}});
    EXPECT_EQ(b.status, 404);
    EXPECT_EQ(errorText(b), expected);
    auto i = importScript(as, name, "create table x (id int);");
    EXPECT_EQ(i.status, 404);
    EXPECT_EQ(errorText(i), expected);
  }
  // Nothing ran for the stranger.
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM pg_class WHERE relname = 'x'"), "0");
}

// ---- /sql ------------------------------------------------------------------------------------

TEST_F(SqlApi, SqlRunsSchemaChangesAndListsEveryTable) {
  auto r =
      sql("create table sq_a (id int); -- one\nCREATE TABLE sq_b (id int);\n"
          "alter table sq_a add column name text; drop table sq_b");
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.json();
  EXPECT_EQ(body["ok"], true);
  std::vector<std::string> tables = body["tables"];
  EXPECT_TRUE(std::is_sorted(tables.begin(), tables.end()));
  EXPECT_TRUE(contains(tables, "sq_a"));
  EXPECT_FALSE(contains(tables, "sq_b"));
  auto listed = client().get("/projects/" + project->name + "/tables").json();
  std::vector<std::string> names;
  for (const auto& t : listed["tables"]) names.push_back(t["name"]);
  EXPECT_EQ(tables, names);
}

TEST_F(SqlApi, SqlRefusesTheWholeRequestWhenOneStatementIsNotASchemaChange) {
  for (const std::string& text :
       {std::string("create table sq_never (id int); insert into sq_never values (1)"),
        std::string("create table sq_never (id int); select 1"),
        std::string("/* create */ select 1"), std::string("comment on table sq_a is 'x'"),
        std::string("grant select on sq_a to public"), std::string("truncate sq_a"),
        std::string("create table sq_never (id int); set search_path = x")}) {
    auto r = sql(text);
    EXPECT_EQ(r.status, 400) << text;
    EXPECT_EQ(errorText(r), "only create, alter and drop are accepted here") << text;
  }
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM pg_class WHERE relname = 'sq_never'"), "0");
}

TEST_F(SqlApi, SqlIsJudgedByTheParserNotFooledByQuotesCommentsOrDollarBodies) {
  auto r = sql(
      "CREATE TABLE sq_tricky (note text DEFAULT 'x; insert into y values (1)'); -- ; select 1\n"
      "/* ; delete from sq_tricky; */ CREATE FUNCTION sq_f() RETURNS int LANGUAGE plpgsql AS "
      "$body$\n"
      "BEGIN\n  INSERT INTO sq_tricky VALUES ('a;b');\n  RETURN 1;\nEND;\n$body$;");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM sq_tricky"), "0");
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM pg_proc WHERE proname = 'sq_f'"), "1");
}

TEST_F(SqlApi, SqlRefusalsSpeakTheDatabasesWordsAndKeepNothing) {
  auto missing = sql("alter table sq_nope add column x int");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(errorText(missing), "relation \"sq_nope\" does not exist");
  auto twice = sql("create table sq_twice (id int); create table sq_twice (id int)");
  EXPECT_EQ(twice.status, 400);
  EXPECT_EQ(errorText(twice), "relation \"sq_twice\" already exists");
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM pg_class WHERE relname = 'sq_twice'"), "0");
  auto syntax = sql("create tabel sq_x (id int)");
  EXPECT_EQ(syntax.status, 400);
  EXPECT_EQ(errorText(syntax), "syntax error at or near \"tabel\"");
}

TEST_F(SqlApi, EmptySqlHasNothingToRun) {
  for (const std::string text : {"", "   ", "-- only a comment", ";;"}) {
    auto r = sql(text);
    EXPECT_EQ(r.status, 400) << text;
    EXPECT_EQ(errorText(r), "there is nothing to run") << text;
    auto q = query(text);
    EXPECT_EQ(q.status, 400) << text;
    EXPECT_EQ(errorText(q), "there is nothing to run") << text;
  }
  // The HTTP layer's own checks: no field, wrong type.
  EXPECT_EQ(client().post("/projects/" + project->name + "/sql", json::object()).status, 422);
  EXPECT_EQ(client().post("/projects/" + project->name + "/query", {{"sql", 5}}).status, 422);
}

// ---- /query ----------------------------------------------------------------------------------

TEST_F(SqlApi, QueryGivesValuesAsJsonTypes) {
  json r = mustQuery(R"(SELECT 1::int2 AS small, 42 AS int, 9007199254740992::int8 AS big_ok,
      9007199254740993::int8 AS big_text, 12.50::numeric AS money, 0.1::numeric AS tenth,
      123456789012345678.123::numeric AS huge, 1.5::float8 AS f, 'NaN'::float8 AS nan,
      true AS yes, false AS no, NULL::text AS nothing, 'it''s "q"'::text AS words,
      '{"a": [1, 2], "b": {"c": null}}'::jsonb AS doc, '[1,"x"]'::json AS list,
      '\x0102ff'::bytea AS bytes, '2024-05-01 12:00:00.5'::timestamp AS at,
      '2024-05-01'::date AS day, ARRAY[1, NULL, 3] AS ints, ARRAY['a,b', 'c"d'] AS texts,
      ARRAY[[1, 2], [3, 4]] AS grid, '00000000-0000-0000-0000-000000000001'::uuid AS id,
      '1 day 02:00:00'::interval AS span, now() AS stamp)");
  EXPECT_EQ(r["columns"].size(), 24u);
  EXPECT_EQ(r["columns"][0], "small");
  EXPECT_EQ(r["truncated"], false);
  EXPECT_FALSE(r.contains("changed"));
  EXPECT_TRUE(r["took_ms"].is_number_integer());
  ASSERT_EQ(r["rows"].size(), 1u);
  json row = r["rows"][0];
  EXPECT_EQ(row["small"], 1);
  EXPECT_EQ(row["int"], 42);
  EXPECT_EQ(row["big_ok"], 9007199254740992LL);
  EXPECT_EQ(row["big_text"], "9007199254740993");
  EXPECT_EQ(row["money"], 12.5);
  EXPECT_EQ(row["tenth"], 0.1);
  EXPECT_EQ(row["huge"], "123456789012345678.123");
  EXPECT_EQ(row["f"], 1.5);
  EXPECT_EQ(row["nan"], "NaN");
  EXPECT_EQ(row["yes"], true);
  EXPECT_EQ(row["no"], false);
  EXPECT_TRUE(row["nothing"].is_null());
  EXPECT_EQ(row["words"], "it's \"q\"");
  EXPECT_EQ(row["doc"], json::parse(R"({"a": [1, 2], "b": {"c": null}})"));
  EXPECT_EQ(row["list"], json::parse(R"([1, "x"])"));
  EXPECT_EQ(row["bytes"], "\\x0102ff");
  EXPECT_EQ(row["at"], "2024-05-01T12:00:00.5");
  EXPECT_EQ(row["day"], "2024-05-01");
  EXPECT_EQ(row["ints"], json::parse("[1, null, 3]"));
  EXPECT_EQ(row["texts"], json::parse(R"(["a,b", "c\"d"])"));
  EXPECT_EQ(row["grid"], json::parse("[[1, 2], [3, 4]]"));
  EXPECT_EQ(row["id"], "00000000-0000-0000-0000-000000000001");
  EXPECT_EQ(row["span"], "1 day 02:00:00");
  EXPECT_TRUE(
      std::regex_match(row["stamp"].get<std::string>(),
                       std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d)")))
      << row["stamp"];
  // The body keeps the columns' order in each row object.
  auto raw = query("SELECT 2 AS b, 1 AS a");
  EXPECT_NE(raw.body.find(R"("rows":[{"b":2,"a":1}])"), std::string::npos) << raw.body;
}

TEST_F(SqlApi, QueryReturnsAtMost500RowsAndSaysWhenThereWereMore) {
  json exact = mustQuery("SELECT g AS n FROM generate_series(1, 500) g");
  EXPECT_EQ(exact["rows"].size(), 500u);
  EXPECT_EQ(exact["truncated"], false);
  json more = mustQuery("SELECT g AS n FROM generate_series(1, 501) g");
  EXPECT_EQ(more["rows"].size(), 500u);
  EXPECT_EQ(more["truncated"], true);
  EXPECT_EQ(more["rows"][499]["n"], 500);
}

TEST_F(SqlApi, QueryOverAMillionRowsReadsOnlyWhatItReturns) {
  const long before = rssKb(server->pid());
  json r =
      mustQuery("SELECT g AS n, repeat('x', 200) AS padding FROM generate_series(1, 1000000) g");
  const long after = rssKb(server->pid());
  EXPECT_EQ(r["rows"].size(), 500u);
  EXPECT_EQ(r["truncated"], true);
  ASSERT_GT(before, 0);
  // A million rows of 200 bytes held in memory would be well over 200 MB.
  EXPECT_LT(after - before, 200 * 1024) << "VmRSS grew from " << before << " kB to " << after;
}

TEST_F(SqlApi, QueryGivesChangedForStatementsWithoutRows) {
  ASSERT_EQ(sql("CREATE TABLE qc_items (id int PRIMARY KEY, label text)").status, 200);
  json inserted = mustQuery("INSERT INTO qc_items SELECT g, 'n' || g FROM generate_series(1, 3) g");
  EXPECT_EQ(inserted["columns"], json::array());
  EXPECT_EQ(inserted["rows"], json::array());
  EXPECT_EQ(inserted["changed"], 3);
  EXPECT_FALSE(inserted.contains("truncated"));
  EXPECT_EQ(mustQuery("UPDATE qc_items SET label = 'x' WHERE id < 3")["changed"], 2);
  EXPECT_EQ(mustQuery("DELETE FROM qc_items WHERE id = 99")["changed"], 0);
  EXPECT_EQ(mustQuery("CREATE INDEX qc_label ON qc_items (label)")["changed"], 0);
  // RETURNING makes rows: truncated instead of changed.
  json returned = mustQuery("UPDATE qc_items SET label = 'y' WHERE id = 1 RETURNING id, label");
  EXPECT_EQ(returned["rows"], json::parse(R"([{"id":1,"label":"y"}])"));
  EXPECT_EQ(returned["truncated"], false);
  EXPECT_FALSE(returned.contains("changed"));
}

TEST_F(SqlApi, QueryWithManyReturnedRowsStillDoesAllItWasAsked) {
  ASSERT_EQ(sql("CREATE TABLE qr_many (id int)").status, 200);
  json r = mustQuery("INSERT INTO qr_many SELECT generate_series(1, 700) RETURNING id");
  EXPECT_EQ(r["rows"].size(), 500u);
  EXPECT_EQ(r["truncated"], true);
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM qr_many"), "700");
}

TEST_F(SqlApi, QueryRefusesTwoColumnsOfOneNameBeforeRunning) {
  ASSERT_EQ(sql("CREATE TABLE qd_items (id int, other int)").status, 200);
  for (const std::string& text :
       {std::string("SELECT 1 AS a, 2 AS a"), std::string("SELECT * FROM qd_items x, qd_items y"),
        std::string("INSERT INTO qd_items VALUES (1, 2) RETURNING id, other AS id")}) {
    auto r = query(text);
    EXPECT_EQ(r.status, 400) << text;
    EXPECT_NE(errorText(r).find("the result has two columns named"), std::string::npos)
        << errorText(r);
  }
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM qd_items"), "0");
}

TEST_F(SqlApi, QueryTakingTooLongIsStopped) {
  auto r = query("SELECT pg_sleep(3)");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), kTookTooLong);
  // The connection is fine afterwards.
  EXPECT_EQ(mustQuery("SELECT 1 AS one")["rows"][0]["one"], 1);
}

TEST_F(SqlApi, QueryRunsOneStatementAsTheProjectsRole) {
  json who = mustQuery("SELECT current_user AS who, current_database() AS db");
  EXPECT_EQ(who["rows"][0]["who"], project->role);
  EXPECT_EQ(who["rows"][0]["db"], project->role);
  auto secret = query("SELECT rolpassword FROM pg_authid");
  EXPECT_EQ(secret.status, 400);
  EXPECT_EQ(errorText(secret), "permission denied for table pg_authid");
  auto two = query("SELECT 1; SELECT 2");
  EXPECT_EQ(two.status, 400);
  EXPECT_NE(errorText(two).find("runs one statement"), std::string::npos) << errorText(two);
  auto missing = query("SELECT * FROM qx_nope");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(errorText(missing), "relation \"qx_nope\" does not exist");
  auto copy = query("COPY qc_items FROM STDIN");
  EXPECT_EQ(copy.status, 400);
  EXPECT_NE(errorText(copy).find("COPY ... FROM STDIN"), std::string::npos);
  // A SET lasts for that request only: the session is reset before it is used again.
  EXPECT_EQ(query("SET search_path = nowhere").status, 200);
  EXPECT_EQ(mustQuery("SHOW search_path")["rows"][0]["search_path"], "\"$user\", public");
}

// ---- /batch ----------------------------------------------------------------------------------

TEST_F(SqlApi, BatchRunsInOrderInOneTransaction) {
  auto r = batch({"CREATE TABLE bt_log (id int PRIMARY KEY, at text)",
                  "INSERT INTO bt_log VALUES (1, 'a'), (2, 'b')", "",
                  "SELECT id, at FROM bt_log ORDER BY id", "  -- nothing\n"});
  ASSERT_EQ(r.status, 200) << r.body;
  json results = r.json()["results"];
  ASSERT_EQ(results.size(), 3u) << r.body;
  EXPECT_EQ(results[0]["changed"], 0);
  EXPECT_EQ(results[1]["changed"], 2);
  EXPECT_EQ(results[2]["columns"], json::parse(R"(["id","at"])"));
  EXPECT_EQ(results[2]["rows"], json::parse(R"([{"id":1,"at":"a"},{"id":2,"at":"b"}])"));
  EXPECT_EQ(results[2]["truncated"], false);
}

TEST_F(SqlApi, BatchFailureNamesThePositionAndAppliesNothing) {
  ASSERT_EQ(sql("CREATE TABLE bf_items (id int PRIMARY KEY)").status, 200);
  auto r = batch({"INSERT INTO bf_items VALUES (1)", "", "INSERT INTO bf_nope VALUES (1)",
                  "INSERT INTO bf_items VALUES (2)"});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "statement 3: relation \"bf_nope\" does not exist");
  auto dup = batch({"INSERT INTO bf_items VALUES (1)", "INSERT INTO bf_items VALUES (1)"});
  EXPECT_EQ(dup.status, 400);
  EXPECT_EQ(errorText(dup),
            "statement 2: duplicate key value violates unique constraint \"bf_items_pkey\"");
  auto syntax = batch({"SELECT 1", "SELEC 2"});
  EXPECT_EQ(syntax.status, 400);
  EXPECT_EQ(errorText(syntax), "statement 2: syntax error at or near \"SELEC\"");
  EXPECT_EQ(scalar(project->url, "SELECT count(*) FROM bf_items"), "0");
}

TEST_F(SqlApi, BatchLimits) {
  for (const json& empty : {json::array(), json::array({"", "  ", "-- x"})}) {
    auto r = batch(empty);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(errorText(r), "there is nothing to run");
  }
  json many = json::array();
  for (int i = 0; i < 200; ++i) many.push_back("SELECT " + std::to_string(i) + " AS n");
  auto ok = batch(many);
  ASSERT_EQ(ok.status, 200) << ok.body.substr(0, 300);
  EXPECT_EQ(ok.json()["results"].size(), 200u);
  many.push_back("SELECT 200 AS n");
  auto over = batch(many);
  EXPECT_EQ(over.status, 400);
  EXPECT_EQ(errorText(over), "at most 200 statements in one batch");
  auto not_text = batch({"SELECT 1", 2});
  EXPECT_EQ(not_text.status, 400);
  EXPECT_EQ(errorText(not_text), "statement 2: not a string; send each statement as text");
  auto two_in_one = batch({"SELECT 1; SELECT 2"});
  EXPECT_EQ(two_in_one.status, 400);
  EXPECT_EQ(errorText(two_in_one),
            "statement 1: holds 2 statements; put each in an item of its own");
  EXPECT_EQ(client().post("/projects/" + project->name + "/batch", {{"statements", "x"}}).status,
            422);
}

TEST_F(SqlApi, BatchRefusesTransactionControlBeforeRunning) {
  ASSERT_EQ(sql("CREATE TABLE bx_items (id int)").status, 200);
  for (const std::string control : {"COMMIT", "BEGIN", "ROLLBACK", "END"}) {
    auto r = batch({"INSERT INTO bx_items VALUES (1)", control});
    EXPECT_EQ(r.status, 400) << control;
    EXPECT_EQ(errorText(r),
              "statement 2: BEGIN, COMMIT and ROLLBACK cannot be used here; the batch runs in one "
              "transaction of its own");
  }
  // Savepoints live inside the batch's transaction.
  auto savepoint = batch({"INSERT INTO bx_items VALUES (1)", "SAVEPOINT s",
                          "INSERT INTO bx_items VALUES (2)", "ROLLBACK TO SAVEPOINT s"});
  EXPECT_EQ(savepoint.status, 200) << savepoint.body;
  EXPECT_EQ(scalar(project->url, "SELECT string_agg(id::text, ',') FROM bx_items"), "1");
}

TEST_F(SqlApi, BatchStatementsTakingTooLongAreStoppedEvenWithTheTimeoutTurnedOff) {
  auto r = batch({"SELECT 1", "SELECT pg_sleep(3)"});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), std::string("statement 2: ") + kTookTooLong);
  // The worker's own clock (the timeout plus 2 seconds) stops what SET turned off.
  auto unlimited = batch({"SET LOCAL statement_timeout = 0", "SELECT pg_sleep(30)"});
  EXPECT_EQ(unlimited.status, 400);
  EXPECT_EQ(errorText(unlimited), std::string("statement 2: ") + kTookTooLong);
  EXPECT_EQ(mustQuery("SELECT 1 AS one")["rows"][0]["one"], 1);
}
