// ctest-label: api (starts a real berthd)
// GET/POST/PATCH/DELETE /projects/{name}/tables/{table}/rows over real HTTP (docs/openapi.yaml):
// every filter operator, not., nested and/or, quoted values, order with nulls, select
// with aliases, casts and embedding both ways, limit clamping and total, inserts, updates and
// deletes with the database's own messages, every error text, other accounts' 404s, the
// statement timeout, and injection attempts that must not run. Also, at the end, the
// catalogue read from a real database (CatalogLoad) and its fingerprint: they share this
// program's PostgreSQL cluster rather than start one of their own.
#include "catalog.hpp"
#include "catalog_fingerprint.hpp"
#include "rows_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::rows_api;
using namespace berth::sqlconsole;
using nlohmann::json;

namespace {

const char* kSchema = R"SQL(
  CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text UNIQUE,
                          age int, tags text[], born date);
  CREATE TABLE orders (id serial PRIMARY KEY, customer_id int REFERENCES customers (id),
                       amount numeric(10,2) NOT NULL DEFAULT 0, note text,
                       placed timestamptz NOT NULL DEFAULT '2024-01-02 03:04:05+00', meta jsonb);
  CREATE TABLE items (id serial PRIMARY KEY, order_id int NOT NULL REFERENCES orders (id),
                      sku text NOT NULL, qty int NOT NULL DEFAULT 1 CHECK (qty > 0));
  CREATE TABLE docs (id int PRIMARY KEY, body text,
                     search tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED,
                     during int4range);
  CREATE TABLE numbers (id int PRIMARY KEY);
  CREATE TABLE counters (id serial PRIMARY KEY, hits int NOT NULL DEFAULT 0);
  CREATE TABLE scratch (id serial PRIMARY KEY, label text NOT NULL, n int DEFAULT 7);
  CREATE VIEW slow AS SELECT pg_sleep(3)::text AS slept;
  CREATE VIEW untimed AS SELECT set_config('statement_timeout', '0', false) AS was;
  CREATE TABLE lifts (id serial PRIMARY KEY);
  CREATE FUNCTION lift_limit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM set_config('statement_timeout', '0', false); RETURN NEW; END $$;
  CREATE TRIGGER lifts_lift BEFORE INSERT ON lifts FOR EACH ROW EXECUTE FUNCTION lift_limit();
  INSERT INTO customers (name, email, age, tags, born) VALUES
    ('Ada', 'ada@example.com', 36, '{math,poetry}', '1815-12-10'),
    ('Smith, John (Jr)', 'john@example.com', NULL, '{golf}', NULL),
    ('bob', NULL, 17, '{}', '2007-01-01'),
    ('Zoë "Z" O''Neil', 'zoe@example.com', 52, '{math}', NULL);
  INSERT INTO orders (customer_id, amount, note, meta) VALUES
    (1, 10.50, 'first', '{"gift": true}'), (1, 99.99, NULL, NULL), (3, 5, 'small', '[1,2]');
  INSERT INTO items (order_id, sku, qty) VALUES (1, 'pen', 2), (1, 'ink', 1), (2, 'book', 1);
  INSERT INTO docs (id, body, during) VALUES
    (1, 'The quick brown fox jumps', '[1,5)'), (2, 'Lazy dogs sleep all day', '[5,10)'),
    (3, 'A fox and a dog are friends', '[20,30)');
  INSERT INTO numbers SELECT generate_series(1, 250);
  CREATE SEQUENCE scans;
  CREATE VIEW counted AS SELECT id FROM numbers WHERE nextval('scans') > 0 OFFSET 0;
)SQL";

class RowsApi : public SqlconsoleServerSuite {
 protected:
  static void SetUpTestSuite() {
    startServer();
    owner = new Account(makeAccount(*server, "rowsown"));
    stranger = new Account(makeAccount(*server, "rowsout"));
    mustCreate(api(*owner), "shop");
    auto db = projectSession(*server, kProject);
    db.execSimple(kSchema);
  }
  static void TearDownTestSuite() {
    delete owner;
    delete stranger;
    dropServer();
  }

  static std::string rowsPath(const std::string& table, const std::string& q = "") {
    return "/projects/" + std::string(kProject) + "/tables/" + table + "/rows" + q;
  }
  static HttpResult get(const std::string& table,
                        const std::vector<std::pair<std::string, std::string>>& params = {}) {
    return api(*owner).get(rowsPath(table, query(params)));
  }
  // The ids a filtered GET on customers returns, ordered by id.
  static std::vector<int> matching(const std::string& table, const std::string& key,
                                   const std::string& value) {
    auto r = get(table, {{key, value}, {"order", "id"}});
    EXPECT_EQ(r.status, 200) << key << "=" << value << ": " << r.body;
    return r.status == 200 ? ids(r.json()["rows"]) : std::vector<int>{-1};
  }
  static std::string refusal(const std::string& table,
                             const std::vector<std::pair<std::string, std::string>>& params) {
    auto r = get(table, params);
    EXPECT_EQ(r.status, 400) << r.body;
    return errorText(r);
  }

  static constexpr const char* kProject = "shop-rowsown";
  static inline Account* owner = nullptr;
  static inline Account* stranger = nullptr;
};

}  // namespace

TEST_F(RowsApi, ReadsAPageWithLimitOffsetAndTotal) {
  auto r = get("customers", {{"order", "id"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.json();
  EXPECT_EQ(body["limit"], 50);
  EXPECT_EQ(body["offset"], 0);
  EXPECT_EQ(body["total"], 4);
  ASSERT_EQ(body["rows"].size(), 4u);
  // Values as the database's JSON gives them; every column present.
  EXPECT_EQ(body["rows"][0], json({{"id", 1},
                                   {"name", "Ada"},
                                   {"email", "ada@example.com"},
                                   {"age", 36},
                                   {"tags", {"math", "poetry"}},
                                   {"born", "1815-12-10"}}));
  EXPECT_TRUE(body["rows"][1]["age"].is_null());

  r = get("numbers", {{"order", "id"}, {"limit", "10"}, {"offset", "245"}, {"id", "gt.100"}});
  body = r.json();
  EXPECT_EQ(body["total"], 150) << "total ignores limit and offset, not the filters";
  EXPECT_EQ(body["limit"], 10);
  EXPECT_EQ(body["offset"], 245);
  EXPECT_TRUE(body["rows"].empty());
  r = get("numbers", {{"order", "id.desc"}, {"limit", "3"}, {"offset", "1"}});
  EXPECT_EQ(ids(r.json()["rows"]), (std::vector<int>{249, 248, 247}));
}

TEST_F(RowsApi, TotalIsRightAtEveryEdgeOfThePage) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> params;
    int returned;
    int total;
  };
  for (const Case& c :
       {Case{{{"limit", "50"}}, 50, 250},                        // a full page: counted
        Case{{{"limit", "50"}, {"offset", "200"}}, 50, 250},     // full, and the last one
        Case{{{"limit", "50"}, {"offset", "230"}}, 20, 250},     // short: the end
        Case{{{"limit", "50"}, {"offset", "250"}}, 0, 250},      // empty past the end
        Case{{{"limit", "50"}, {"offset", "9999"}}, 0, 250},     // far past it
        Case{{{"id", "eq.7"}}, 1, 1},                            // by id
        Case{{{"id", "gt.1000"}}, 0, 0},                         // nothing matches
        Case{{{"id", "gt.1000"}, {"offset", "5"}}, 0, 0},        // nor past the start
        Case{{{"id", "lte.200"}, {"limit", "200"}}, 200, 200}})  // exactly the limit
  {
    auto r = get("numbers", c.params);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json()["rows"].size(), static_cast<size_t>(c.returned)) << query(c.params);
    EXPECT_EQ(r.json()["total"], c.total) << query(c.params);
  }
}

TEST_F(RowsApi, TotalIsCountedOnlyWhenThePageCannotTellIt) {
  // `counted` calls nextval once per row it looks at, and OFFSET 0 keeps the planner from
  // reaching numbers' index through it: 250 for a read that scans numbers once, 500 when the
  // total is counted by scanning it again.
  auto db = projectSession(*server, kProject);
  auto scansDuring = [&](const std::vector<std::pair<std::string, std::string>>& params) {
    db.exec("SELECT setval('scans', 1)");
    auto r = get("counted", params);
    EXPECT_EQ(r.status, 200) << r.body;
    return std::stoi(scalar(db, "SELECT last_value FROM scans")) - 1;
  };
  EXPECT_EQ(scansDuring({{"id", "eq.7"}}), 250) << "one row: the page is the total";
  EXPECT_EQ(scansDuring({{"id", "gt.1000"}}), 250) << "no rows from the start: total 0";
  EXPECT_EQ(scansDuring({{"order", "id"}, {"offset", "240"}}), 250) << "the last page";
  EXPECT_EQ(scansDuring({{"id", "gt.1000"}, {"offset", "5"}}), 500) << "empty past the start";
  EXPECT_GT(scansDuring({{"order", "id"}, {"limit", "10"}}), 250) << "a full page";
}

TEST_F(RowsApi, LimitIsClampedToOneToTwoHundred) {
  struct Case {
    std::string limit;
    int clamped;
  };
  for (const Case& c : {Case{"0", 1}, Case{"-5", 1}, Case{"1", 1}, Case{"200", 200},
                        Case{"201", 200}, Case{"99999999999999999999", 200}}) {
    auto r = get("numbers", {{"limit", c.limit}});
    ASSERT_EQ(r.status, 200) << c.limit << ": " << r.body;
    EXPECT_EQ(r.json()["limit"], c.clamped) << c.limit;
    EXPECT_EQ(r.json()["rows"].size(), static_cast<size_t>(c.clamped)) << c.limit;
    EXPECT_EQ(r.json()["total"], 250);
  }
  EXPECT_EQ(get("numbers").json()["rows"].size(), 50u) << "default 50";
  EXPECT_EQ(refusal("numbers", {{"limit", "ten"}}), "limit must be a whole number, got \"ten\"");
  EXPECT_EQ(refusal("numbers", {{"offset", "-1"}}), "offset cannot be negative, got \"-1\"");
}

TEST_F(RowsApi, EveryOperator) {
  EXPECT_EQ(matching("customers", "age", "eq.36"), (std::vector<int>{1}));
  EXPECT_EQ(matching("customers", "age", "neq.36"), (std::vector<int>{3, 4}));
  EXPECT_EQ(matching("customers", "age", "gt.36"), (std::vector<int>{4}));
  EXPECT_EQ(matching("customers", "age", "gte.36"), (std::vector<int>{1, 4}));
  EXPECT_EQ(matching("customers", "age", "lt.36"), (std::vector<int>{3}));
  EXPECT_EQ(matching("customers", "age", "lte.36"), (std::vector<int>{1, 3}));
  EXPECT_EQ(matching("customers", "name", "like.*oh*"), (std::vector<int>{2}));
  EXPECT_EQ(matching("customers", "name", "like.*o*"), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(matching("customers", "name", "ilike.*B*"), (std::vector<int>{3}));
  EXPECT_EQ(matching("customers", "name", "match.^[AZ]"), (std::vector<int>{1, 4}));
  EXPECT_EQ(matching("customers", "name", "imatch.^b"), (std::vector<int>{3}));
  EXPECT_EQ(matching("customers", "id", "in.(1,3,99)"), (std::vector<int>{1, 3}));
  EXPECT_EQ(matching("customers", "id", "in.()"), (std::vector<int>{}));
  EXPECT_EQ(matching("customers", "age", "is.null"), (std::vector<int>{2}));
  EXPECT_EQ(matching("customers", "age", "is.not_null"), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(matching("customers", "age", "isdistinct.36"), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(matching("customers", "tags", "cs.{math}"), (std::vector<int>{1, 4}));
  EXPECT_EQ(matching("customers", "tags", "cd.{math,golf}"), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(matching("customers", "tags", "ov.{golf,poetry}"), (std::vector<int>{1, 2}));
  EXPECT_EQ(matching("docs", "search", "fts.fox & dog"), (std::vector<int>{3}));
  EXPECT_EQ(matching("docs", "body", "fts(english).jumping"), (std::vector<int>{1}))
      << "a text column is searched through to_tsvector";
  EXPECT_EQ(matching("docs", "search", "plfts(english).lazy dogs"), (std::vector<int>{2}));
  EXPECT_EQ(matching("docs", "search", "phfts(english).quick brown"), (std::vector<int>{1}));
  EXPECT_EQ(matching("docs", "search", "wfts(english).fox -quick"), (std::vector<int>{3}));
  EXPECT_EQ(matching("docs", "during", "sl.[10,20)"), (std::vector<int>{1, 2}));
  EXPECT_EQ(matching("docs", "during", "sr.[10,20)"), (std::vector<int>{3}));
  EXPECT_EQ(matching("docs", "during", "nxr.[5,10)"), (std::vector<int>{1, 2}));
  EXPECT_EQ(matching("docs", "during", "nxl.[5,10)"), (std::vector<int>{2, 3}));
  EXPECT_EQ(matching("docs", "during", "adj.[10,20)"), (std::vector<int>{2, 3}));
  EXPECT_EQ(matching("docs", "during", "ov.[4,6)"), (std::vector<int>{1, 2}));
}

TEST_F(RowsApi, NotNestedGroupsAndQuotedValues) {
  EXPECT_EQ(matching("customers", "age", "not.eq.36"), (std::vector<int>{3, 4}));
  EXPECT_EQ(matching("customers", "age", "not.is.null"), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(matching("customers", "id", "not.in.(1,2)"), (std::vector<int>{3, 4}));
  EXPECT_EQ(matching("customers", "or", "(age.lt.18,age.gt.50)"), (std::vector<int>{3, 4}));
  EXPECT_EQ(matching("customers", "or", "(age.is.null,and(age.gt.30,not.or(id.eq.1,id.eq.9)))"),
            (std::vector<int>{2, 4}));
  EXPECT_EQ(matching("customers", "not.and", "(age.gt.10,age.lt.40)"), (std::vector<int>{4}))
      << "a null age makes the group unknown, which not. keeps unknown";
  // Values holding commas, parentheses and quotes.
  EXPECT_EQ(matching("customers", "name", "eq.Smith, John (Jr)"), (std::vector<int>{2}));
  EXPECT_EQ(matching("customers", "name", "in.(\"Smith, John (Jr)\",Ada)"),
            (std::vector<int>{1, 2}));
  EXPECT_EQ(matching("customers", "or", "(name.eq.\"Smith, John (Jr)\",name.eq.bob)"),
            (std::vector<int>{2, 3}));
  EXPECT_EQ(matching("customers", "name", "eq.Zoë \"Z\" O'Neil"), (std::vector<int>{4}));
  EXPECT_EQ(matching("customers", "name", "in.(\"Zoë \\\"Z\\\" O'Neil\")"), (std::vector<int>{4}));
  // Several filters on one column all apply.
  auto r = get("numbers", {{"id", "gt.10"}, {"id", "lt.14"}, {"order", "id"}});
  EXPECT_EQ(ids(r.json()["rows"]), (std::vector<int>{11, 12, 13}));
}

TEST_F(RowsApi, OrderWithNullsPositions) {
  auto order = [](const std::string& value) {
    return ids(get("customers", {{"order", value}}).json()["rows"]);
  };
  EXPECT_EQ(order("age"), (std::vector<int>{3, 1, 4, 2})) << "nulls last when ascending";
  EXPECT_EQ(order("age.desc"), (std::vector<int>{2, 4, 1, 3})) << "nulls first when descending";
  EXPECT_EQ(order("age.desc.nullslast"), (std::vector<int>{4, 1, 3, 2}));
  EXPECT_EQ(order("age.asc.nullsfirst"), (std::vector<int>{2, 3, 1, 4}));
  EXPECT_EQ(order("born.nullsfirst,id.desc"), (std::vector<int>{4, 2, 1, 3}));
}

TEST_F(RowsApi, SelectAliasesCastsAndEmbeddingBothWaysNested) {
  auto r = get("orders", {{"select", "id,total:amount::text,buyer:customers(name,orders(id))"},
                          {"order", "id"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json rows = r.json()["rows"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], json::parse(R"({"id":1,"total":"10.50",
                                     "buyer":{"name":"Ada","orders":[{"id":1},{"id":2}]}})"));
  EXPECT_EQ(rows[2]["buyer"]["name"], "bob");

  r = get(
      "customers",
      {{"select", "name,orders(amount,note,items(sku,qty))"}, {"id", "in.(1,2)"}, {"order", "id"}});
  ASSERT_EQ(r.status, 200) << r.body;
  rows = r.json()["rows"];
  EXPECT_EQ(rows[0]["orders"].size(), 2u);
  EXPECT_EQ(rows[0]["orders"][0], json::parse(R"({"amount":10.50,"note":"first",
                            "items":[{"sku":"pen","qty":2},{"sku":"ink","qty":1}]})"));
  EXPECT_EQ(rows[1], json::parse(R"j({"name":"Smith, John (Jr)","orders":[]})j"))
      << "one-to-many with nothing is an empty array";

  r = get("items", {{"select", "sku,orders(note,customers(name))"}, {"order", "id"}});
  rows = r.json()["rows"];
  EXPECT_EQ(rows[2], json::parse(R"({"sku":"book","orders":{"note":null,
                                                           "customers":{"name":"Ada"}}})"));
  r = get("orders", {{"select", "meta,placed"}, {"id", "eq.1"}});
  EXPECT_EQ(r.json()["rows"][0],
            json::parse(R"({"meta":{"gift":true},"placed":"2024-01-02T03:04:05+00:00"})"));
}

TEST_F(RowsApi, ErrorTexts) {
  auto r = get("nope");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "no table named nope");
  EXPECT_EQ(refusal("customers", {{"nme", "eq.1"}}),
            "no column named \"nme\" in customers at character 1 of nme=eq.1; the columns are "
            "id, name, email, age, tags, born");
  EXPECT_EQ(refusal("customers", {{"age", "equals.5"}}),
            "unknown operator \"equals\" at character 5 of age=equals.5; use one of eq, neq, gt, "
            "gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, "
            "wfts, cs, cd, ov, sl, sr, nxr, nxl, adj");
  EXPECT_EQ(refusal("customers", {{"age", "eq.abc"}}),
            "invalid input syntax for type integer: \"abc\"")
      << "a malformed value is the database's own words";
  EXPECT_EQ(refusal("customers", {{"order", "agee"}}),
            "no column named \"agee\" in customers at character 7 of order=agee; the columns are "
            "id, name, email, age, tags, born");
  EXPECT_EQ(refusal("customers", {{"select", "id,docs(*)"}}),
            "no foreign key links customers and docs at character 11 of select=id,docs(*); "
            "embedding needs a foreign key declared between them");
  EXPECT_EQ(refusal("customers", {{"select", "id::nosuchtype"}}),
            "no type named \"nosuchtype\" at character 8 of select=id::nosuchtype; cast to a type "
            "the database has, such as text, integer or jsonb");
  EXPECT_EQ(refusal("slow", {}), "that query took too long and was stopped");
  // A view of the project's own that lifts the limit on its (pooled) connection does not lift
  // it for the next request.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(get("untimed").status, 200);
  EXPECT_EQ(refusal("slow", {}), "that query took too long and was stopped");
  // Nor does a trigger that lifts it during a write.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(api(*owner).post(rowsPath("lifts"), nlohmann::json::object()).status, 201);
  EXPECT_EQ(refusal("slow", {}), "that query took too long and was stopped");
}

TEST_F(RowsApi, OtherAccountsGet404LikeAMissingProject) {
  for (const char* method : {"GET", "POST", "PATCH", "DELETE"}) {
    auto r = api(*stranger).raw(method, rowsPath("customers", "?id=eq.1"), "{\"name\":\"x\"}",
                                {"Content-Type: application/json"});
    EXPECT_EQ(r.status, 404) << method << " " << r.body;
    EXPECT_EQ(errorText(r), "no project called shop-rowsown") << method;
  }
  auto r = api(*owner).get("/projects/nothere-rowsown/tables/customers/rows");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called nothere-rowsown");
  EXPECT_EQ(server->api().get(rowsPath("customers")).status, 401);
}

TEST_F(RowsApi, ADeletedProjectIsForgottenAndItsNameServesTheNextOne) {
  // Which project a name is stays known between requests; deleting it must end that at once.
  const std::string name = mustCreate(api(*owner), "brief").at("name");
  const std::string path = "/projects/" + name + "/tables/notes/rows";
  projectSession(*server, name)
      .execSimple("CREATE TABLE notes (id int); INSERT INTO notes VALUES (1)");
  auto r = api(*owner).get(path);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["total"], 1);
  EXPECT_EQ(api(*stranger).get(path).status, 404) << "a kept name gives no access";
  ASSERT_EQ(api(*owner).del("/projects/" + name).status, 204);
  r = api(*owner).get(path);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no project called " + name);
  ASSERT_EQ(mustCreate(api(*owner), "brief").at("name"), name);
  projectSession(*server, name)
      .execSimple("CREATE TABLE notes (id int); INSERT INTO notes VALUES (1), (2)");
  r = api(*owner).get(path);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["total"], 2) << "the new project's rows";
}

TEST_F(RowsApi, InsertsAnObjectOrAnArrayWithDefaults) {
  auto r = api(*owner).post(rowsPath("orders"), {{"customer_id", 3}, {"note", "new"}});
  ASSERT_EQ(r.status, 201) << r.body;
  json row = r.json();
  EXPECT_TRUE(row.is_object());
  EXPECT_GT(row["id"].get<int>(), 3);
  EXPECT_EQ(row["amount"], 0) << "default";
  EXPECT_EQ(row["placed"], "2024-01-02T03:04:05+00:00") << "every column, as stored";
  EXPECT_TRUE(row["meta"].is_null());

  r = api(*owner).post(
      rowsPath("scratch"),
      json::array({{{"label", "a"}}, {{"label", "b"}, {"n", 1}}, {{"label", "c"}}}));
  ASSERT_EQ(r.status, 201) << r.body;
  json rows = r.json();
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["label"], "a");
  EXPECT_EQ(rows[0]["n"], 7);
  EXPECT_EQ(rows[1]["n"], 1);
  EXPECT_EQ(rows[2]["n"], 7) << "a key one row gives does not take the others' defaults away";

  // Rows of nothing but defaults.
  r = api(*owner).post(rowsPath("counters"), json::array({json::object(), json::object()}));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json(), json::parse(R"([{"id":1,"hits":0},{"id":2,"hits":0}])"));
  r = api(*owner).post(rowsPath("counters"), json::object());
  EXPECT_EQ(r.json(), json::parse(R"({"id":3,"hits":0})"));
}

TEST_F(RowsApi, InsertRefusalsChangeNothing) {
  auto db = projectSession(*server, kProject);
  std::string before = scalar(db, "SELECT count(*) FROM customers");
  auto refused = [&](const json& body) {
    auto r = api(*owner).post(rowsPath("customers"), body);
    EXPECT_EQ(r.status, 400) << body.dump() << ": " << r.body;
    return errorText(r);
  };
  EXPECT_EQ(refused(json::array()), "nothing to insert");
  EXPECT_EQ(refused({{"name", "x"}, {"email", "ada@example.com"}}),
            "duplicate key value violates unique constraint \"customers_email_key\"");
  EXPECT_EQ(refused({{"email", "new@example.com"}}),
            "null value in column \"name\" of relation \"customers\" violates not-null "
            "constraint");
  EXPECT_EQ(refused({{"name", "x"}, {"shoe_size", 44}}),
            "no column named \"shoe_size\" in customers; the columns are id, name, email, age, "
            "tags, born");
  EXPECT_EQ(refused({{"name", "x"}, {"age", "old"}}),
            "invalid input syntax for type integer: \"old\"");
  // All or none: the second row fails, so the first is not kept either.
  EXPECT_EQ(
      refused(json::array({{{"name", "kept?"}}, {{"name", "y"}, {"email", "zoe@example.com"}}})),
      "duplicate key value violates unique constraint \"customers_email_key\"");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM customers"), before);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM customers WHERE name = 'kept?'"), "0");

  auto r = api(*owner).post(rowsPath("orders"), {{"customer_id", 999}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "insert or update on table \"orders\" violates foreign key constraint "
            "\"orders_customer_id_fkey\"");
  r = api(*owner).post(rowsPath("items"), {{"order_id", 1}, {"sku", "x"}, {"qty", 0}});
  EXPECT_EQ(errorText(r),
            "new row for relation \"items\" violates check constraint \"items_qty_check\"");
  r = api(*owner).post(rowsPath("nope"), {{"a", 1}});
  EXPECT_EQ(errorText(r), "no table named nope");
  r = api(*owner).raw("POST", rowsPath("customers"), "{not json",
                      {"Content-Type: application/json"});
  EXPECT_EQ(r.status, 400);
}

TEST_F(RowsApi, UpdatesAndDeletesNeedAFilter) {
  auto db = projectSession(*server, kProject);
  db.execSimple("INSERT INTO scratch (label, n) VALUES ('u1', 1), ('u2', 2), ('u3', 3)");
  auto r = api(*owner).patch(rowsPath("scratch"), {{"n", 5}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "an update needs a filter");
  r = api(*owner).del(rowsPath("scratch"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "a delete needs a filter");
  r = api(*owner).patch(rowsPath("scratch", "?label=like.u*"), {{"colour", "red"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "no column named \"colour\" in scratch; the columns are id, label, n");
  EXPECT_EQ(scalar(db,
                   "SELECT string_agg(n::text, ',' ORDER BY label) FROM scratch "
                   "WHERE label LIKE 'u%'"),
            "1,2,3");

  r = api(*owner).patch(rowsPath("scratch", query({{"label", "in.(u1,u2)"}})), {{"n", 40}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json({{"updated", 2}}));
  EXPECT_EQ(scalar(db,
                   "SELECT string_agg(n::text, ',' ORDER BY label) FROM scratch "
                   "WHERE label LIKE 'u%'"),
            "40,40,3");
  r = api(*owner).patch(rowsPath("scratch", "?label=eq.nobody"), {{"n", 1}});
  EXPECT_EQ(r.json(), json({{"updated", 0}}));
  r = api(*owner).patch(rowsPath("scratch", "?label=eq.u3"), {{"label", nullptr}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "null value in column \"label\" of relation \"scratch\" violates not-null constraint");

  r = api(*owner).del(rowsPath("scratch", query({{"or", "(n.eq.40,label.eq.u3)"}})));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json({{"deleted", 3}}));
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM scratch WHERE label LIKE 'u%'"), "0");
  r = api(*owner).del(rowsPath("customers", "?id=eq.1"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "update or delete on table \"customers\" violates foreign key constraint "
            "\"orders_customer_id_fkey\" on table \"orders\"");
}

TEST_F(RowsApi, InjectionAttemptsDoNothingHarmful) {
  auto db = projectSession(*server, kProject);
  db.execSimple("CREATE TABLE IF NOT EXISTS victim (id int); INSERT INTO victim VALUES (1)");
  const std::string drop = "; DROP TABLE victim; --";
  auto r = api(*owner).get("/projects/shop-rowsown/tables/" + enc("customers" + drop) + "/rows");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "no table named customers; DROP TABLE victim; --");
  EXPECT_EQ(get("customers", {{"\"id\\\"" + drop + "\"", "eq.1"}}).status, 400);
  EXPECT_EQ(get("customers", {{"select", "\"id\\\"" + drop + "\""}}).status, 400);
  EXPECT_EQ(get("customers", {{"order", "\"id\\\"" + drop + "\""}}).status, 400);
  EXPECT_EQ(get("customers", {{"select", "id::text;drop"}}).status, 400);
  r = get("customers", {{"name", "eq.'" + drop}});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.json()["rows"].empty());
  r = get("customers", {{"name", "in.(\"')" + drop + "\")"}});
  EXPECT_EQ(r.status, 200);
  r = api(*owner).patch(rowsPath("victim", "?id=eq.1"), {{"id\"" + drop, 2}});
  EXPECT_EQ(r.status, 400);
  r = api(*owner).post(rowsPath("customers"), {{"name", "x'); DROP TABLE victim; --"}});
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["name"], "x'); DROP TABLE victim; --") << "stored as data";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM victim"), "1");
}

TEST_F(RowsApi, SchemaChangesAreSeenAtOnce) {
  // The catalogue is kept between requests and trusted for catalog_recheck_ms (a second) without
  // a check: a statement it built that the database refuses is built again from a fresh one, and
  // a read without a select list lets the database expand the star. Every change below must show
  // on the next request.
  auto db = projectSession(*server, kProject);
  db.execSimple(
      "CREATE TABLE shifting (id int PRIMARY KEY, a text); INSERT INTO shifting VALUES (1, 'x');"
      "CREATE TABLE targets (id int PRIMARY KEY, label text); INSERT INTO targets VALUES (7, 't')");
  auto row = [&](const std::vector<std::pair<std::string, std::string>>& params) {
    auto r = get("shifting", params);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? r.json()["rows"][0] : json(errorText(r));
  };
  EXPECT_EQ(row({}), json({{"id", 1}, {"a", "x"}}));
  db.execSimple("ALTER TABLE shifting ADD COLUMN b int DEFAULT 5");
  EXPECT_EQ(row({}), json({{"id", 1}, {"a", "x"}, {"b", 5}})) << "a new column";
  EXPECT_EQ(row({{"b", "eq.5"}}), json({{"id", 1}, {"a", "x"}, {"b", 5}}));
  db.execSimple("ALTER TABLE shifting RENAME COLUMN a TO c");
  EXPECT_EQ(row({}), json({{"id", 1}, {"c", "x"}, {"b", 5}})) << "a renamed column";
  db.execSimple("ALTER TABLE shifting ALTER COLUMN b TYPE text");
  EXPECT_EQ(row({}), json({{"id", 1}, {"c", "x"}, {"b", "5"}})) << "a changed type";
  db.execSimple("ALTER TABLE shifting DROP COLUMN c");
  EXPECT_EQ(row({}), json({{"id", 1}, {"b", "5"}})) << "a dropped column";
  EXPECT_EQ(refusal("shifting", {{"select", "targets(*)"}}),
            "no foreign key links shifting and targets at character 8 of select=targets(*); "
            "embedding needs a foreign key declared between them");
  db.execSimple("ALTER TABLE shifting ADD COLUMN target_id int DEFAULT 7 REFERENCES targets (id)");
  EXPECT_EQ(row({{"select", "id,targets(label)"}}),
            json::parse(R"({"id":1,"targets":{"label":"t"}})"))
      << "a new foreign key";
  db.execSimple("DROP TABLE shifting");
  EXPECT_EQ(refusal("shifting", {}), "no table named shifting");
  db.execSimple("CREATE TABLE shifting (id int, z bool); INSERT INTO shifting VALUES (2, true)");
  EXPECT_EQ(row({}), json({{"id", 2}, {"z", true}})) << "a new table under the old name";
}

TEST_F(RowsApi, AColumnAddedOutsideTheApiJoinsAnExplicitStarWithinTheRecheckInterval) {
  auto db = projectSession(*server, kProject);
  db.execSimple("CREATE TABLE growing (id int PRIMARY KEY); INSERT INTO growing VALUES (1)");
  auto star = [&] {
    auto r = get("growing", {{"select", "*"}});
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json()["rows"][0];
  };
  EXPECT_EQ(star(), json({{"id", 1}}));
  // Made by the app itself, not through the API: seen once the catalogue is checked again.
  db.execSimple("ALTER TABLE growing ADD COLUMN made_outside int DEFAULT 2");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(star(), json({{"id", 1}, {"made_outside", 2}}));
  // Made through the API: the kept catalogues of the project are dropped when it is done.
  auto r = api(*owner).post("/projects/" + std::string(kProject) + "/sql",
                            {{"sql", "ALTER TABLE growing ADD COLUMN made_by_api int DEFAULT 3"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(star(), json({{"id", 1}, {"made_outside", 2}, {"made_by_api", 3}}));
}

// ---- the catalogue read from a real database ------------------------------------------------
// Tables, views and materialized views of `public` only, columns with the type as the database
// prints it, not_null, primary_key and default; foreign keys with their actions mapped as
// docs/openapi.yaml's TableLink says; a scope that reads only some tables; cast types resolved
// to the database's own names; the fingerprint that tells a kept catalogue is still right.

namespace {

class CatalogLoad : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    url = new std::string(berth::testing::sharedCluster().createDatabase("catalog"));
    PgSession s = PgSession::connect(*url);
    s.execSimple(R"SQL(
      CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL,
                              email varchar(120) UNIQUE, born date DEFAULT '2000-01-01');
      CREATE TABLE orders (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        customer_id int REFERENCES customers (id) ON DELETE CASCADE,
        helper_id int CONSTRAINT orders_helper_fk REFERENCES customers (id)
          ON DELETE SET NULL ON UPDATE RESTRICT,
        backup_id int REFERENCES customers (id) ON DELETE SET DEFAULT ON UPDATE CASCADE,
        amount numeric(10,2) NOT NULL DEFAULT 0,
        doubled numeric GENERATED ALWAYS AS (amount * 2) STORED,
        tags text[],
        "Odd Name" jsonb);
      CREATE TABLE pairs (a int, b int, note text, PRIMARY KEY (a, b));
      CREATE TABLE pair_refs (id int PRIMARY KEY, pa int, pb int,
                              FOREIGN KEY (pa, pb) REFERENCES pairs (a, b));
      CREATE TABLE staff (id int PRIMARY KEY, boss_id int REFERENCES staff (id));
      CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 100;
      CREATE MATERIALIZED VIEW order_totals AS SELECT customer_id, sum(amount) AS total
        FROM orders GROUP BY customer_id;
      CREATE TYPE mood AS ENUM ('happy', 'sad');
      CREATE SCHEMA hidden;
      CREATE TABLE hidden.secret (id int PRIMARY KEY);
      CREATE TABLE points_at_hidden (id int REFERENCES hidden.secret (id));
    )SQL");
  }
  static void TearDownTestSuite() {
    delete url;
    url = nullptr;
  }
  static inline std::string* url = nullptr;
};

std::vector<std::string> namesOf(const Catalog& catalog) {
  std::vector<std::string> names;
  for (const auto& t : catalog.tables) names.push_back(t.name);
  return names;
}

}  // namespace

TEST_F(CatalogLoad, ListsRelationsOfPublicOnlyInNameOrder) {
  PgSession s = PgSession::connect(*url);
  Catalog c = loadCatalog(s);
  EXPECT_EQ(namesOf(c),
            (std::vector<std::string>{"big_orders", "customers", "order_totals", "orders",
                                      "pair_refs", "pairs", "points_at_hidden", "staff"}));
  EXPECT_EQ(c.tableNames(), (std::vector<std::string>{"customers", "orders", "pair_refs", "pairs",
                                                      "points_at_hidden", "staff"}));
  EXPECT_EQ(c.table("big_orders")->kind, RelationKind::View);
  EXPECT_EQ(c.table("order_totals")->kind, RelationKind::MaterializedView);
  EXPECT_EQ(c.table("orders")->kind, RelationKind::Table);
  EXPECT_EQ(c.table("secret"), nullptr);
  EXPECT_EQ(c.table("nope"), nullptr);
}

TEST_F(CatalogLoad, ColumnsCarryTypeNotNullKeyAndDefault) {
  PgSession s = PgSession::connect(*url);
  Catalog c = loadCatalog(s);
  const CatalogTable* customers = c.table("customers");
  ASSERT_NE(customers, nullptr);
  ASSERT_EQ(customers->columns.size(), 4u);
  const CatalogColumn& id = customers->columns[0];
  EXPECT_EQ(id.name, "id");
  EXPECT_EQ(id.type, "integer");
  EXPECT_EQ(id.type_oid, 23u);
  EXPECT_TRUE(id.not_null);
  EXPECT_TRUE(id.primary_key);
  EXPECT_EQ(id.default_value, "nextval('customers_id_seq'::regclass)");
  EXPECT_EQ(customers->column("email")->type, "character varying(120)");
  EXPECT_FALSE(customers->column("email")->primary_key);
  EXPECT_FALSE(customers->column("email")->not_null);
  EXPECT_EQ(customers->column("email")->default_value, std::nullopt);
  EXPECT_EQ(customers->column("born")->default_value, "'2000-01-01'::date");
  EXPECT_TRUE(customers->column("name")->not_null);

  const CatalogTable* orders = c.table("orders");
  EXPECT_EQ(orders->column("id")->type, "bigint");
  EXPECT_EQ(orders->column("id")->default_value, std::nullopt) << "identity, not a default";
  EXPECT_EQ(orders->column("amount")->type, "numeric(10,2)");
  EXPECT_EQ(orders->column("amount")->default_value, "0");
  EXPECT_EQ(orders->column("doubled")->default_value, std::nullopt) << "generated";
  EXPECT_EQ(orders->column("tags")->type, "text[]");
  EXPECT_EQ(orders->column("Odd Name")->type, "jsonb");
  EXPECT_EQ(orders->column("odd name"), nullptr) << "names are exact";

  const CatalogTable* pairs = c.table("pairs");
  EXPECT_TRUE(pairs->column("a")->primary_key);
  EXPECT_TRUE(pairs->column("b")->primary_key);
  EXPECT_FALSE(pairs->column("note")->primary_key);
  EXPECT_EQ(c.table("big_orders")->columns.size(), 2u);
}

TEST_F(CatalogLoad, LinksMapActionsAndKeepEveryColumn) {
  PgSession s = PgSession::connect(*url);
  Catalog c = loadCatalog(s);
  const CatalogTable* orders = c.table("orders");
  ASSERT_EQ(orders->links.size(), 3u);
  // Ordered by constraint name.
  const CatalogLink& backup = orders->links[0];
  EXPECT_EQ(backup.constraint, "orders_backup_id_fkey");
  EXPECT_EQ(backup.column, "backup_id");
  EXPECT_EQ(backup.table, "customers");
  EXPECT_EQ(backup.to, "id");
  EXPECT_EQ(backup.on_delete, "SET DEFAULT");
  EXPECT_EQ(backup.on_update, "CASCADE");
  const CatalogLink& customer = orders->links[1];
  EXPECT_EQ(customer.constraint, "orders_customer_id_fkey");
  EXPECT_EQ(customer.on_delete, "CASCADE");
  EXPECT_EQ(customer.on_update, "") << "NO ACTION";
  const CatalogLink& helper = orders->links[2];
  EXPECT_EQ(helper.constraint, "orders_helper_fk");
  EXPECT_EQ(helper.on_delete, "SET NULL");
  EXPECT_EQ(helper.on_update, "") << "RESTRICT";

  const CatalogTable* refs = c.table("pair_refs");
  ASSERT_EQ(refs->links.size(), 1u);
  EXPECT_EQ(refs->links[0].columns, (std::vector<std::string>{"pa", "pb"}));
  EXPECT_EQ(refs->links[0].to_columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(refs->links[0].column, "pa");
  EXPECT_EQ(refs->links[0].to, "a");

  EXPECT_EQ(c.table("staff")->links.at(0).table, "staff");
  EXPECT_TRUE(c.table("points_at_hidden")->links.empty()) << "targets outside public are left out";
}

TEST_F(CatalogLoad, ScopeReadsOnlyTheNamedTables) {
  PgSession s = PgSession::connect(*url);
  CatalogScope scope;
  scope.all_tables = false;
  scope.tables = {"orders", "customers", "missing", "secret"};
  Catalog c = loadCatalog(s, scope);
  EXPECT_EQ(namesOf(c), (std::vector<std::string>{"customers", "orders"}));
  EXPECT_EQ(c.table("orders")->links.size(), 3u);

  scope.tables = {};
  EXPECT_TRUE(loadCatalog(s, scope).tables.empty());
}

TEST_F(CatalogLoad, ResolvesCastTypesToTheDatabasesNames) {
  PgSession s = PgSession::connect(*url);
  CatalogScope scope;
  scope.all_tables = false;
  scope.types = {"text",  "TEXT",       "integer", "int4",       "int8[]",  "mood",
                 "jsonb", "nosuchtype", "select",  "anyelement", "varchar", "bool"};
  Catalog c = loadCatalog(s, scope);
  auto type = [&](const std::string& w) { return c.type(w) ? *c.type(w) : "<none>"; };
  EXPECT_EQ(type("text"), "text");
  EXPECT_EQ(type("TEXT"), "text");
  EXPECT_EQ(type("integer"), "integer");
  EXPECT_EQ(type("int4"), "integer");
  EXPECT_EQ(type("int8[]"), "bigint[]");
  EXPECT_EQ(type("mood"), "mood");
  EXPECT_EQ(type("jsonb"), "jsonb");
  EXPECT_EQ(type("varchar"), "character varying");
  EXPECT_EQ(type("bool"), "boolean");
  EXPECT_EQ(type("nosuchtype"), "<none>");
  EXPECT_EQ(type("select"), "<none>") << "a keyword is looked up, never parsed";
  EXPECT_EQ(type("anyelement"), "<none>") << "pseudo-types cannot be cast to";
}

TEST_F(CatalogLoad, FingerprintChangesWithTheSchemaOnly) {
  PgSession s = PgSession::connect(*url);
  s.execSimple("CREATE TABLE fp_a (id int PRIMARY KEY, v text); CREATE TABLE fp_b (id int)");
  const std::vector<std::string> tables = {"fp_a", "fp_b"};
  std::string before = catalogFingerprint(s, tables, 15000);
  EXPECT_FALSE(before.empty());
  EXPECT_EQ(catalogFingerprint(s, tables, 15000), before) << "stable";
  s.execSimple("INSERT INTO fp_a VALUES (1, 'x'); CREATE INDEX ON fp_a (v); ANALYZE fp_a");
  EXPECT_EQ(catalogFingerprint(s, tables, 15000), before)
      << "rows, indexes and statistics do not count";
  auto changes = [&](const std::string& ddl) {
    s.execSimple(ddl);
    std::string after = catalogFingerprint(s, tables, 15000);
    bool changed = after != before;
    before = after;
    return changed;
  };
  EXPECT_TRUE(changes("ALTER TABLE fp_a ADD COLUMN w int"));
  EXPECT_TRUE(changes("ALTER TABLE fp_a RENAME COLUMN w TO w2"));
  EXPECT_TRUE(changes("ALTER TABLE fp_a ALTER COLUMN v TYPE varchar(9)"));
  EXPECT_TRUE(changes("ALTER TABLE fp_a DROP COLUMN w2"));
  EXPECT_TRUE(changes("ALTER TABLE fp_b ADD PRIMARY KEY (id)"));
  EXPECT_TRUE(changes("ALTER TABLE fp_b ADD COLUMN a_id int REFERENCES fp_a (id)"));
  EXPECT_TRUE(changes("ALTER TABLE fp_b DROP CONSTRAINT fp_b_a_id_fkey"));
  EXPECT_TRUE(changes("ALTER TABLE fp_a RENAME TO fp_c"));
  EXPECT_TRUE(changes("ALTER TABLE fp_c RENAME TO fp_a"));
  EXPECT_TRUE(changes("DROP TABLE fp_b; CREATE TABLE fp_b (id int)"));
  // A session that forgot its prepared statement (DISCARD ALL) prepares it again.
  s.execSimple("DISCARD ALL");
  EXPECT_EQ(catalogFingerprint(s, tables, 15000), before);
  EXPECT_EQ(catalogFingerprint(s, {}, 15000), "");
}

TEST_F(CatalogLoad, FingerprintPutsTheStatementTimeoutBack) {
  PgSession s = PgSession::connect(*url);
  s.execSimple("SET statement_timeout = 0");
  catalogFingerprint(s, {"customers"}, 1234);
  PgResult r = s.exec("SHOW statement_timeout");
  EXPECT_EQ(std::string(PQgetvalue(r.get(), 0, 0)), "1234ms");
}

TEST_F(CatalogLoad, PreparedStatementsAreKeptByTextAndPreparedAgainWhenLost) {
  PgSession s = PgSession::connect(*url);
  const std::string sql = "SELECT $1::int + 1";
  auto value = [](const PgResult& r) { return std::string(PQgetvalue(r.get(), 0, 0)); };
  EXPECT_EQ(value(s.execPrepared(sql, {"1"})), "2");
  EXPECT_EQ(value(s.execPrepared(sql, {"41"})), "42");
  EXPECT_EQ(s.preparedCount(), 1u) << "one text, one prepared statement";
  // The project's own SQL may deallocate them; they are prepared again, singly and in pairs.
  s.execSimple("DEALLOCATE ALL");
  EXPECT_EQ(value(s.execPrepared(sql, {"2"})), "3");
  s.execSimple("DEALLOCATE ALL");
  auto [first, second] = s.execPreparedPair(sql, {"5"}, "SELECT $1::text || '!'", {"hi"});
  ASSERT_FALSE(first.error.has_value()) << first.error->what();
  ASSERT_FALSE(second.error.has_value()) << second.error->what();
  EXPECT_EQ(value(first.result), "6");
  EXPECT_EQ(value(second.result), "hi!");
  // Past the limit they are all let go and the new one prepared: never more than the limit.
  for (size_t i = 0; i <= PgSession::kMaxPrepared; ++i)
    EXPECT_EQ(value(s.execPrepared("SELECT " + std::to_string(i) + " + $1::int", {"0"})),
              std::to_string(i));
  EXPECT_LE(s.preparedCount(), PgSession::kMaxPrepared);
  EXPECT_EQ(value(s.execPrepared(sql, {"9"})), "10");
  s.discardAll();
  EXPECT_EQ(s.preparedCount(), 0u);
  EXPECT_EQ(value(s.execPrepared(sql, {"0"})), "1");
}

TEST_F(CatalogLoad, APairGivesEachStatementsRefusalWithoutThrowing) {
  PgSession s = PgSession::connect(*url);
  auto [first, second] =
      s.execPreparedPair("SELECT $1::int", {"not a number"}, "SELECT $1::int * 2", {"21"});
  ASSERT_TRUE(first.error.has_value());
  EXPECT_EQ(std::string(first.error->what()),
            "invalid input syntax for type integer: \"not a number\"");
  ASSERT_FALSE(second.error.has_value()) << "the second runs in its own transaction";
  EXPECT_EQ(std::string(PQgetvalue(second.result.get(), 0, 0)), "42");
  EXPECT_TRUE(s.reusable()) << "out of pipeline mode, idle";
  // One the database will not even prepare is refused the same way; the other still runs.
  auto [ok, refused] = s.execPreparedPair("SELECT 1", {}, "SELECT * FROM no_such_table", {});
  EXPECT_FALSE(ok.error.has_value());
  ASSERT_TRUE(refused.error.has_value());
  EXPECT_EQ(refused.error->sqlstate(), "42P01");
  EXPECT_TRUE(s.reusable());
  auto [refused_first, second_ok] =
      s.execPreparedPair("SELECT nothing FROM no_such_table", {}, "SELECT 2", {});
  ASSERT_TRUE(refused_first.error.has_value());
  EXPECT_EQ(refused_first.error->sqlstate(), "42P01");
  ASSERT_FALSE(second_ok.error.has_value());
  EXPECT_EQ(std::string(PQgetvalue(second_ok.result.get(), 0, 0)), "2");
}
