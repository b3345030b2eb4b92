// The catalogue read from a real database (issue 4): tables, views and materialized views of
// `public` only, columns with the type as the database prints it, not_null, primary_key and
// default; foreign keys with their actions mapped as api.md says; a scope that reads only some
// tables; cast types resolved to the database's own names.
#include <gtest/gtest.h>

#include "catalog.hpp"
#include "catalog_fingerprint.hpp"
#include "support/pg_cluster.hpp"

using namespace berth::sqlconsole;

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
