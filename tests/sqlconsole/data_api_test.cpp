// ctest-label: api (starts a real berthd)
// The browser data API over real HTTP through the edge (docs/openapi.yaml: the Data API
// routes, and /_data on the project host): the settings routes, the publishable
// key (header, bearer, query; rotation), every table and function closed until opened per
// operation, CORS with the preflight, Prefer return=representation and count=exact with
// Content-Range, single objects, rpc, PostgREST-shaped errors; and a run of
// @supabase/postgrest-js, a real client, against it (skipped only when npm cannot reach its
// registry).
#include <filesystem>
#include <fstream>
#include <regex>

#include "rows_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::rows_api;
using nlohmann::json;

namespace {

const char* kFrontSchema = R"SQL(
  CREATE TABLE owners (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, owner_id int REFERENCES owners (id),
                      stars int NOT NULL DEFAULT 0);
  CREATE TABLE secrets (id int PRIMARY KEY, value text);
  INSERT INTO owners (name) VALUES ('Ann'), ('Ben');
  INSERT INTO notes (body, owner_id, stars) VALUES ('one', 1, 3), ('two', 1, 1), ('three', 2, 5);
  INSERT INTO secrets VALUES (1, 'hidden');
  CREATE FUNCTION add_them(a int, b int DEFAULT 10) RETURNS int LANGUAGE sql AS 'SELECT a + b';
  CREATE FUNCTION notes_of(who text) RETURNS SETOF notes LANGUAGE sql
    AS $$ SELECT n.* FROM notes n JOIN owners o ON o.id = n.owner_id WHERE o.name = who ORDER BY n.id $$;
  CREATE FUNCTION pair() RETURNS TABLE (x int, y text) LANGUAGE sql AS $$ VALUES (1, 'a'), (2, 'b') $$;
  CREATE FUNCTION numbers_to(n int) RETURNS SETOF int LANGUAGE sql AS 'SELECT generate_series(1, n)';
  CREATE FUNCTION nothing() RETURNS void LANGUAGE sql AS 'SELECT';
  CREATE FUNCTION wipe() RETURNS void LANGUAGE sql AS 'DELETE FROM secrets';
)SQL";

const char* kWebSchema = R"SQL(
  CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE todos (id serial PRIMARY KEY, title text NOT NULL, done boolean NOT NULL DEFAULT false,
                      priority int, author_id int REFERENCES authors (id));
  INSERT INTO authors (name) VALUES ('Ann'), ('Ben');
  INSERT INTO todos (title, done, priority, author_id) VALUES
    ('write', false, 1, 1), ('read', true, 2, 1), ('sleep', false, NULL, 2), ('eat', false, 3, 2),
    ('walk, run (fast)', true, 5, NULL);
  CREATE FUNCTION add_them(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT a + b';
  CREATE FUNCTION todos_by(who text) RETURNS SETOF todos LANGUAGE sql
    AS $$ SELECT t.* FROM todos t JOIN authors a ON a.id = t.author_id WHERE a.name = who ORDER BY t.id $$;
  CREATE FUNCTION touch() RETURNS void LANGUAGE sql AS 'SELECT';
  CREATE FUNCTION secret_fn() RETURNS int LANGUAGE sql AS 'SELECT 1';
)SQL";

class DataApi : public SqlconsoleServerSuite {
 protected:
  static void SetUpTestSuite() {
    startServer();
    owner = new Account(makeAccount(*server, "dataown"));
    stranger = new Account(makeAccount(*server, "dataout"));
    mustCreate(api(*owner), "front");
    mustCreate(api(*owner), "web");
    mustCreate(api(*owner), "empty");
    projectSession(*server, kFront).execSimple(kFrontSchema);
    projectSession(*server, kWeb).execSimple(kWebSchema);
  }
  static void TearDownTestSuite() {
    delete owner;
    delete stranger;
    dropServer();
  }

  // One value from the front project's database.
  static std::string inFront(const std::string& sql) {
    auto db = projectSession(*server, kFront);
    return scalar(db, sql);
  }
  static std::string settings(const std::string& project, const std::string& rest = "") {
    return "/projects/" + project + "/data-api" + rest;
  }
  static std::string keyOf(const std::string& project) {
    auto r = api(*owner).get(settings(project));
    if (r.status != 200) throw std::runtime_error("GET data-api: " + r.body);
    return r.json()["key"].get<std::string>();
  }
  static void open(const std::string& project, const std::string& table, const json& flags) {
    auto r = api(*owner).raw("PUT", settings(project, "/tables/" + table), flags.dump(),
                             {"Content-Type: application/json"});
    if (r.status != 200) throw std::runtime_error("PUT table " + table + ": " + r.body);
  }
  static void enable(const std::string& project, const std::string& function, bool on = true) {
    auto r = api(*owner).raw("PUT", settings(project, "/functions/" + function),
                             json({{"enabled", on}}).dump(), {"Content-Type: application/json"});
    if (r.status != 200) throw std::runtime_error("PUT function " + function + ": " + r.body);
  }

  // A request to the project host through the edge.
  static HttpResult data(const std::string& project, const std::string& method,
                         const std::string& path, const std::string& body = "",
                         std::vector<std::string> headers = {}) {
    HttpRequestSpec spec;
    spec.method = method;
    spec.url = server->baseUrl() + path;
    spec.body = body;
    headers.push_back("Host: " + project + ".localhost");
    spec.headers = std::move(headers);
    return send(spec);
  }
  static HttpResult keyed(const std::string& method, const std::string& path,
                          const std::string& body = "", std::vector<std::string> headers = {}) {
    headers.push_back("apikey: " + keyOf(kFront));
    if (!body.empty()) headers.push_back("Content-Type: application/json");
    return data(kFront, method, path, body, std::move(headers));
  }

  static constexpr const char* kFront = "front-dataown";
  static constexpr const char* kWeb = "web-dataown";
  static constexpr const char* kEmpty = "empty-dataown";
  static inline Account* owner = nullptr;
  static inline Account* stranger = nullptr;
};

void expectCors(const HttpResult& r) {
  EXPECT_EQ(r.header("access-control-allow-origin"), "*") << r.status << " " << r.body;
  EXPECT_NE(r.header("access-control-expose-headers").find("Content-Range"), std::string::npos);
}

}  // namespace

TEST_F(DataApi, SettingsStartClosedWithAKey) {
  auto r = api(*owner).get(settings(kEmpty));
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.json();
  EXPECT_TRUE(std::regex_match(body["key"].get<std::string>(), std::regex("bpk_[A-Za-z0-9]{32}")))
      << body;
  EXPECT_EQ(body["tables"], json::object());
  EXPECT_EQ(body["functions"], json::array());
  EXPECT_EQ(api(*owner).get(settings(kEmpty)).json()["key"], body["key"]) << "the key is kept";

  body = api(*owner).get(settings(kFront)).json();
  json closed = {{"read", false}, {"create", false}, {"update", false}, {"delete", false}};
  EXPECT_EQ(body["tables"], json({{"notes", closed}, {"owners", closed}, {"secrets", closed}}));
  EXPECT_NE(body["key"], api(*owner).get(settings(kEmpty)).json()["key"]) << "one key per project";
}

TEST_F(DataApi, TableSettingsChangeOnlyWhatIsGiven) {
  auto put = [](const std::string& table, const std::string& body) {
    return api(*owner).raw("PUT", settings(kEmpty, "/tables/" + table), body,
                           {"Content-Type: application/json"});
  };
  projectSession(*server, kEmpty).execSimple("CREATE TABLE IF NOT EXISTS things (id int)");
  auto r = put("things", R"({"read": true})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json({{"name", "things"},
                            {"read", true},
                            {"create", false},
                            {"update", false},
                            {"delete", false}}));
  r = put("things", R"({"delete": true, "create": true})");
  EXPECT_EQ(r.json(), json({{"name", "things"},
                            {"read", true},
                            {"create", true},
                            {"update", false},
                            {"delete", true}}));
  r = put("things", R"({"read": false})");
  EXPECT_EQ(api(*owner).get(settings(kEmpty)).json()["tables"]["things"],
            json({{"read", false}, {"create", true}, {"update", false}, {"delete", true}}));

  r = put("nothing_here", R"({"read": true})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "no table named nothing_here");
  r = put("things", R"({})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "give at least one of read, create, update and delete");
  r = put("things", R"({"read": true, "write": true})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "unknown field write; give any of read, create, update and delete");
  r = put("things", R"({"read": "yes"})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(api(*owner).get(settings(kEmpty)).json()["tables"]["things"]["read"], false)
      << "a refused request changes nothing";
}

TEST_F(DataApi, FunctionSettings) {
  auto put = [](const std::string& function, const std::string& body) {
    return api(*owner).raw("PUT", settings(kEmpty, "/functions/" + function), body,
                           {"Content-Type: application/json"});
  };
  projectSession(*server, kEmpty)
      .execSimple(
          "CREATE OR REPLACE FUNCTION hello() RETURNS text LANGUAGE sql AS $$SELECT 'hi'$$");
  auto r = put("nope", R"({"enabled": true})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "no function named nope");
  r = put("hello", R"({"enabled": true})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json({{"name", "hello"}, {"enabled", true}}));
  EXPECT_EQ(api(*owner).get(settings(kEmpty)).json()["functions"], json({"hello"}));
  EXPECT_EQ(put("hello", R"({})").status, 422);
  r = put("hello", R"({"enabled": false})");
  EXPECT_EQ(r.json(), json({{"name", "hello"}, {"enabled", false}}));
  EXPECT_EQ(api(*owner).get(settings(kEmpty)).json()["functions"], json::array());
}

TEST_F(DataApi, SettingsOfOtherAccountsProjectsAre404) {
  ApiClient other = api(*stranger);
  std::vector<HttpResult> answers = {
      other.get(settings(kFront)),
      other.raw("PUT", settings(kFront, "/tables/notes"), R"({"read": true})",
                {"Content-Type: application/json"}),
      other.raw("PUT", settings(kFront, "/functions/add_them"), R"({"enabled": true})",
                {"Content-Type: application/json"}),
      other.raw("POST", settings(kFront, "/key"), "", {})};
  for (const auto& r : answers) {
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(errorText(r), "no project called front-dataown");
  }
  EXPECT_EQ(api(*owner).get(settings(kFront)).json()["tables"]["notes"]["read"], false);
  EXPECT_EQ(server->api().get(settings(kFront)).status, 401);
}

TEST_F(DataApi, TheKeyIsNeededAndOnlyThisProjectsKeyWorks) {
  open(kFront, "owners", {{"read", true}});
  const std::string key = keyOf(kFront);
  auto r = data(kFront, "GET", "/_data/owners");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "send the project's publishable key in the apikey header");
  expectCors(r);
  r = data(kFront, "GET", "/_data/owners", "", {"apikey: bpk_" + std::string(32, 'x')});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "that publishable key is not valid for this project");
  r = data(kFront, "GET", "/_data/owners", "", {"apikey: " + keyOf(kEmpty)});
  EXPECT_EQ(r.status, 401) << "another project's key";
  // The three places a key may be.
  EXPECT_EQ(data(kFront, "GET", "/_data/owners", "", {"apikey: " + key}).status, 200);
  EXPECT_EQ(data(kFront, "GET", "/_data/owners", "", {"Authorization: Bearer " + key}).status, 200);
  EXPECT_EQ(data(kFront, "GET", "/_data/owners?apikey=" + key).status, 200);
  // An account token is not a publishable key.
  EXPECT_EQ(
      data(kFront, "GET", "/_data/owners", "", {"Authorization: Bearer " + owner->token}).status,
      401);
  r = data("ghost-dataown", "GET", "/_data/owners", "", {"apikey: " + key});
  EXPECT_EQ(r.status, 404);
  expectCors(r);
}

TEST_F(DataApi, ANewKeyReplacesTheOld) {
  projectSession(*server, kEmpty).execSimple("CREATE TABLE IF NOT EXISTS things (id int)");
  open(kEmpty, "things", {{"read", true}});
  const std::string old_key = keyOf(kEmpty);
  EXPECT_EQ(data(kEmpty, "GET", "/_data/things", "", {"apikey: " + old_key}).status, 200);
  auto r = api(*owner).raw("POST", settings(kEmpty, "/key"), "", {});
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string new_key = r.json()["key"];
  EXPECT_NE(new_key, old_key);
  EXPECT_TRUE(std::regex_match(new_key, std::regex("bpk_[A-Za-z0-9]{32}")));
  EXPECT_EQ(keyOf(kEmpty), new_key);
  EXPECT_EQ(data(kEmpty, "GET", "/_data/things", "", {"apikey: " + old_key}).status, 401);
  EXPECT_EQ(data(kEmpty, "GET", "/_data/things", "", {"apikey: " + new_key}).status, 200);
}

TEST_F(DataApi, SettingsChangedElsewhereReachTheKeptOnesAtOnce) {
  // berthd keeps each project's settings between requests. A change made without it (another
  // node, an operator's SQL) must still be seen: it notifies every node when it commits.
  projectSession(*server, kEmpty).execSimple("CREATE TABLE IF NOT EXISTS gadgets (id int)");
  open(kEmpty, "gadgets", {{"read", true}});
  const std::string key = keyOf(kEmpty);
  auto status = [&](const std::string& with_key) {
    return data(kEmpty, "GET", "/_data/gadgets", "", {"apikey: " + with_key}).status;
  };
  ASSERT_EQ(status(key), 200);
  ASSERT_EQ(status(key), 200);  // now from what berthd keeps
  auto control = berth::sqlconsole::PgSession::connect(server->databaseUrl());
  const std::string id = projects_api::projectId(*server, kEmpty);
  auto eventually = [](const std::function<bool()>& check) {
    for (int i = 0; i < 100; ++i) {
      if (check()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  control.execSimple("UPDATE sqlconsole.data_api_tables SET can_read = false WHERE project_id = '" +
                     id + "' AND table_name = 'gadgets'");
  EXPECT_TRUE(eventually([&] { return status(key) == 403; })) << "a table closed";
  const std::string other_key = "bpk_" + std::string(32, 'Q');
  control.execSimple("UPDATE sqlconsole.data_api_keys SET key = '" + other_key +
                     "' WHERE project_id = '" + id + "'");
  EXPECT_TRUE(eventually([&] { return status(key) == 401; })) << "a key replaced";
  control.execSimple("UPDATE sqlconsole.data_api_tables SET can_read = true WHERE project_id = '" +
                     id + "' AND table_name = 'gadgets'");
  EXPECT_TRUE(eventually([&] { return status(other_key) == 200; })) << "a table opened again";
}

TEST_F(DataApi, EveryTableAndOperationIsClosedUntilOpened) {
  auto r = keyed("GET", "/_data/secrets");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(errorText(r),
            "the publishable key may not read secrets; open it in the project's data API "
            "settings");
  EXPECT_EQ(r.json()["code"], "42501");
  expectCors(r);
  EXPECT_EQ(keyed("GET", "/_data/no_such_table").status, 403)
      << "a missing table answers like a closed one";
  open(kFront, "notes", {{"read", true}});
  EXPECT_EQ(keyed("GET", "/_data/notes").status, 200);
  r = keyed("POST", "/_data/notes", R"({"body": "x"})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(errorText(r),
            "the publishable key may not create rows in notes; open it in the project's data "
            "API settings");
  EXPECT_EQ(keyed("PATCH", "/_data/notes?id=eq.1", R"({"stars": 9})").status, 403);
  EXPECT_EQ(keyed("DELETE", "/_data/notes?id=eq.1").status, 403);
  // Embedding reads the embedded table too.
  open(kFront, "owners", {{"read", false}});
  r = keyed("GET", "/_data/notes?select=body,owners(name)");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(errorText(r),
            "the publishable key may not read owners; open it in the project's data API "
            "settings");
  // Writing with a representation needs read; without one it does not.
  open(kFront, "secrets", {{"create", true}});
  r = keyed("POST", "/_data/secrets", R"({"id": 2, "value": "v"})",
            {"Prefer: return=representation"});
  EXPECT_EQ(r.status, 403);
  r = keyed("POST", "/_data/secrets", R"({"id": 2, "value": "v"})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(inFront("SELECT value FROM secrets WHERE id = 2"), "v");
  EXPECT_EQ(keyed("GET", "/_data/secrets").status, 403) << "create did not open read";
}

TEST_F(DataApi, PreflightAndCors) {
  auto r = data(kFront, "OPTIONS", "/_data/notes", "",
                {"Origin: https://app.example", "Access-Control-Request-Method: PATCH",
                 "Access-Control-Request-Headers: apikey, content-type, prefer, x-custom-thing"});
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.header("access-control-allow-origin"), "*");
  std::string methods = r.header("access-control-allow-methods");
  for (const char* m : {"GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS"})
    EXPECT_NE(methods.find(m), std::string::npos) << m << " in " << methods;
  std::string allowed = r.header("access-control-allow-headers");
  for (const char* h : {"apikey", "authorization", "content-type", "prefer", "range",
                        "x-client-info", "accept-profile", "content-profile", "x-custom-thing"})
    EXPECT_NE(allowed.find(h), std::string::npos) << h << " in " << allowed;
  EXPECT_EQ(r.header("access-control-max-age"), "86400");
  EXPECT_NE(r.header("access-control-expose-headers").find("Content-Range"), std::string::npos);
  r = data(kFront, "OPTIONS", "/_data/rpc/add_them", "",
           {"Origin: https://app.example", "Access-Control-Request-Method: POST"});
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.header("access-control-allow-origin"), "*");
  open(kFront, "notes", {{"read", true}});
  expectCors(keyed("GET", "/_data/notes", "", {"Origin: https://app.example"}));
}

TEST_F(DataApi, ReadsWithCountRangeAndSingle) {
  open(kFront, "notes", {{"read", true}});
  open(kFront, "owners", {{"read", true}});
  auto r = keyed(
      "GET",
      "/_data/notes" +
          query({{"select", "id,body,who:owners(name)"}, {"order", "stars.desc"}, {"limit", "2"}}),
      "", {"Prefer: count=exact"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json::parse(R"([{"id":3,"body":"three","who":{"name":"Ben"}},
                                      {"id":1,"body":"one","who":{"name":"Ann"}}])"));
  EXPECT_EQ(r.header("content-range"), "0-1/3");
  EXPECT_NE(r.header("content-type").find("application/json"), std::string::npos);
  r = keyed("GET", "/_data/notes?offset=1&limit=5&order=id");
  EXPECT_EQ(r.header("content-range"), "1-2/*") << "no count asked";
  // The Range header pages too, when the query does not.
  r = keyed("GET", "/_data/notes?order=id&select=id", "", {"Range: 1-1"});
  EXPECT_EQ(r.json(), json::parse(R"([{"id":2}])"));
  EXPECT_EQ(r.header("content-range"), "1-1/*");
  r = keyed("GET", "/_data/notes?order=id&select=id", "", {"Range: items=1-"});
  EXPECT_EQ(r.json(), json::parse(R"([{"id":2},{"id":3}])"));
  r = keyed("GET", "/_data/notes?order=id&select=id&limit=1", "", {"Range: 1-2"});
  EXPECT_EQ(r.json(), json::parse(R"([{"id":1}])")) << "limit= wins";
  EXPECT_EQ(keyed("GET", "/_data/notes", "", {"Range: 2-1"}).json().size(), 3u) << "ignored";
  r = keyed("GET", "/_data/notes?id=gt.100", "", {"Prefer: count=exact"});
  EXPECT_EQ(r.body, "[]");
  EXPECT_EQ(r.header("content-range"), "*/0");
  r = keyed("HEAD", "/_data/notes", "", {"Prefer: count=exact"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(r.header("content-range"), "0-2/3");

  r = keyed("GET", "/_data/notes?id=eq.2&select=body", "",
            {"Accept: application/vnd.pgrst.object+json"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json(), json({{"body", "two"}}));
  r = keyed("GET", "/_data/notes", "", {"Accept: application/vnd.pgrst.object+json"});
  EXPECT_EQ(r.status, 406);
  EXPECT_EQ(r.json()["code"], "PGRST116");
  EXPECT_EQ(r.json()["message"], "JSON object requested, multiple (or no) rows returned");
  EXPECT_EQ(r.json()["details"], "The result contains 3 rows");
  // Without limit a read is capped at data_api_max_rows (1000), not the rows routes' 50.
  projectSession(*server, kFront)
      .execSimple("CREATE TABLE many AS SELECT generate_series(1, 1200) AS id");
  open(kFront, "many", {{"read", true}});
  EXPECT_EQ(keyed("GET", "/_data/many").json().size(), 1000u);
  EXPECT_EQ(keyed("GET", "/_data/many?limit=0").json().size(), 0u);
  EXPECT_EQ(keyed("GET", "/_data/many?limit=70").json().size(), 70u);

  r = keyed("GET", "/_data/notes", "", {"Accept-Profile: private"});
  EXPECT_EQ(r.status, 406);
  EXPECT_EQ(r.json()["code"], "PGRST106");
  EXPECT_EQ(keyed("GET", "/_data/notes", "", {"Accept-Profile: public"}).status, 200);
  r = keyed("GET", "/_data/notes?stars=bigger.1");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json()["message"], errorText(r)) << "PostgREST's message beside Berth's error";
  EXPECT_EQ(r.json()["code"], "PGRST100");
  r = keyed("PUT", "/_data/notes", "{}");
  EXPECT_EQ(r.status, 405);
}

TEST_F(DataApi, WritesWithPreferReturnAndCount) {
  open(kFront, "notes", {{"read", true}, {"create", true}, {"update", true}, {"delete", true}});
  auto r = keyed("POST", "/_data/notes", R"([{"body": "four", "owner_id": 2}, {"body": "five"}])",
                 {"Prefer: return=representation, count=exact"});
  ASSERT_EQ(r.status, 201) << r.body;
  json rows = r.json();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["body"], "four");
  EXPECT_EQ(rows[1]["stars"], 0) << "a missing key takes the column's default";
  EXPECT_EQ(r.header("content-range"), "*/2");
  const int four = rows[0]["id"];

  r = keyed("POST", "/_data/notes?columns=%22body%22&select=body", R"({"body": "six", "stars": 4})",
            {"Prefer: return=representation"});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json(), json::parse(R"([{"body":"six"}])"));
  EXPECT_EQ(inFront("SELECT stars FROM notes WHERE body = 'six'"), "0")
      << "keys outside columns= are left out";

  r = keyed("PATCH", "/_data/notes?id=eq." + std::to_string(four), R"({"stars": 8})");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.body, "");
  r = keyed("PATCH", "/_data/notes?body=in.(five,six)", R"({"stars": 2})",
            {"Prefer: return=representation, count=exact"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().size(), 2u);
  EXPECT_EQ(r.header("content-range"), "*/2");
  r = keyed("PATCH", "/_data/notes", R"({"stars": 1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "an update needs a filter");

  r = keyed("DELETE", "/_data/notes?body=in.(four,five,six)", "",
            {"Prefer: return=representation"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().size(), 3u);
  EXPECT_EQ(r.json()[0]["stars"], 8);
  r = keyed("DELETE", "/_data/notes");
  EXPECT_EQ(errorText(r), "a delete needs a filter");
  r = keyed("DELETE", "/_data/notes?id=eq.999", "", {"Prefer: count=exact"});
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.header("content-range"), "*/0");

  r = keyed("POST", "/_data/notes", R"({"body": "x", "owner_id": 99})");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(r.json()["code"], "23503");
  EXPECT_EQ(errorText(r),
            "insert or update on table \"notes\" violates foreign key constraint "
            "\"notes_owner_id_fkey\"");
  EXPECT_EQ(r.json()["details"], "Key (owner_id)=(99) is not present in table \"owners\".");
  expectCors(r);
  r = keyed("POST", "/_data/notes", R"({"stars": 1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json()["code"], "23502");
  r = keyed("POST", "/_data/notes", "{oops");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "the body is not valid JSON");
  r = keyed("POST", "/_data/notes", "[]");
  EXPECT_EQ(errorText(r), "nothing to insert");
}

TEST_F(DataApi, FunctionsAreCalledOnceEnabled) {
  auto call = [](const std::string& function, const std::string& body) {
    return keyed("POST", "/_data/rpc/" + function, body);
  };
  auto r = call("add_them", R"({"a": 1, "b": 2})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(errorText(r),
            "the publishable key may not call add_them; enable it in the project's data API "
            "settings");
  for (const char* f : {"add_them", "notes_of", "pair", "numbers_to", "nothing"}) enable(kFront, f);
  r = call("add_them", R"({"a": 1, "b": 2})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "3");
  EXPECT_EQ(call("add_them", R"({"a": 1})").body, "11") << "a default argument";
  r = call("add_them", R"({"b": 1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "no function add_them takes the arguments (b); there is add_them(a integer, b integer "
            "default)");
  r = call("add_them", R"({"a": "x"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "invalid input syntax for type integer: \"x\"");
  EXPECT_EQ(call("notes_of", R"({"who": "Ann"})").json().size(), 2u);
  EXPECT_EQ(call("notes_of", R"({"who": "Ann"})").json()[0]["body"], "one");
  EXPECT_EQ(call("pair", "").json(), json::parse(R"([{"x":1,"y":"a"},{"x":2,"y":"b"}])"));
  EXPECT_EQ(call("numbers_to", R"({"n": 3})").json(), json::parse("[1,2,3]"));
  r = call("nothing", "{}");
  EXPECT_EQ(r.status, 204);
  expectCors(r);
  r = call("wipe", "{}");
  EXPECT_EQ(r.status, 403) << "not enabled";
  EXPECT_EQ(inFront("SELECT count(*) FROM secrets"), "2");
  r = keyed("GET", "/_data/rpc/add_them?a=1");
  EXPECT_EQ(r.status, 405);
  r = keyed("POST", "/_data/rpc/add_them?a=1", "{}");
  EXPECT_EQ(errorText(r), "a function takes its arguments in the JSON body, not in the query");
}

TEST_F(DataApi, InjectionThroughTheDataApiDoesNothing) {
  open(kFront, "notes", {{"read", true}, {"update", true}});
  const std::string drop = "; DROP TABLE secrets; --";
  EXPECT_EQ(keyed("GET", "/_data/" + enc("notes" + drop)).status, 403);
  EXPECT_EQ(keyed("GET", "/_data/notes" + query({{"select", "\"body\\\"" + drop + "\""}})).status,
            400);
  EXPECT_EQ(keyed("GET", "/_data/notes" + query({{"order", "\"id\\\"" + drop + "\""}})).status,
            400);
  EXPECT_EQ(keyed("GET", "/_data/notes" + query({{"body", "eq.x'" + drop}})).body, "[]");
  EXPECT_EQ(keyed("PATCH", "/_data/notes?id=eq.1", json({{"body\"" + drop, "x"}}).dump()).status,
            400);
  enable(kFront, "add_them");
  EXPECT_EQ(keyed("POST", "/_data/rpc/add_them", json({{"a\"" + drop, 1}}).dump()).status, 400);
  EXPECT_EQ(keyed("POST", "/_data/rpc/" + enc("add_them" + drop), "{}").status, 403);
  EXPECT_EQ(inFront("SELECT count(*) FROM secrets"), "2");
}

// @supabase/postgrest-js from npm against /_data through the edge: select with filters, order
// and range, embedding, count, single, insert with returning, update, upsert, delete, rpc, and
// its view of refusals (tests/sqlconsole/postgrest-js/drive.mjs holds every check).
TEST_F(DataApi, PostgrestJsDrivesIt) {
  namespace fs = std::filesystem;
  const fs::path source = fs::path(BERTH_TEST_SOURCE_DIR) / "tests/sqlconsole/postgrest-js";
  const fs::path cache = fs::path(BERTH_TEST_BINARY_DIR) / "npm-cache/postgrest-js";
  fs::create_directories(cache);
  fs::copy_file(source / "package.json", cache / "package.json",
                fs::copy_options::overwrite_existing);
  fs::copy_file(source / "drive.mjs", cache / "drive.mjs", fs::copy_options::overwrite_existing);
  // Installed once per build directory; again when the pinned version changes.
  const fs::path installed = cache / "node_modules/@supabase/postgrest-js/package.json";
  const std::string pinned = json::parse(
      readFile((source / "package.json").string()))["dependencies"]["@supabase/postgrest-js"];
  if (!fs::exists(installed) || json::parse(readFile(installed.string()))["version"] != pinned) {
    berth::core::SpawnOptions options;
    options.cwd = cache.string();
    auto install =
        berth::core::runCommand({"npm", "install", "--no-audit", "--no-fund", "--no-package-lock",
                                 "--fetch-retries=1", "--fetch-timeout=30000"},
                                options, std::chrono::minutes(3));
    if (!install.status.ok()) {
      static const std::regex offline(
          "ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|ECONNRESET|network");
      // Killed at the time limit: npm was still waiting for the registry.
      if (!install.status.exited || std::regex_search(install.output, offline))
        GTEST_SKIP() << "npm could not reach its registry (no network), so postgrest-js is not "
                        "installed and this check did not run:\n"
                     << install.output;
      FAIL() << "npm install failed:\n" << install.output;
    }
  }
  for (const char* table : {"todos", "authors"})
    open(kWeb, table, {{"read", true}, {"create", true}, {"update", true}, {"delete", true}});
  open(kWeb, "authors", {{"create", false}});
  for (const char* f : {"add_them", "todos_by", "touch"}) enable(kWeb, f);

  const std::string host = std::string(kWeb) + ".localhost:" + std::to_string(server->port());
  auto run = berth::core::runCommand(
      {"node", (cache / "drive.mjs").string(), server->baseUrl(), host, keyOf(kWeb)},
      berth::core::SpawnOptions{}, std::chrono::minutes(2));
  ASSERT_TRUE(run.status.ok()) << run.output;
  std::string last = run.output.substr(run.output.rfind('{'));
  json summary = json::parse(last, nullptr, false);
  ASSERT_TRUE(summary.is_object()) << run.output;
  EXPECT_EQ(summary["ok"], true) << run.output;
  EXPECT_EQ(summary["checks"].get<int>(), 57) << run.output;
  // What the client changed is in the database.
  auto db = projectSession(*server, kWeb);
  EXPECT_EQ(scalar(db, "SELECT string_agg(title || ':' || done, ',' ORDER BY id) FROM todos"),
            "write more:false,read:true,sleep:false,eat:false,walk, run (fast):true,new:true");
}
