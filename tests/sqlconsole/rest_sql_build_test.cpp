// SQL built from rows queries with no database: a catalogue made by hand, the text
// and bound parameters produced for representative trees, and the refusals (with where) for
// names the catalogue does not have. What the SQL does is checked against a real database
// through the API in rows_api_test.cpp and data_api_test.cpp.
#include <gtest/gtest.h>

#include "function_catalog.hpp"
#include "rest_prefer.hpp"
#include "rest_query.hpp"
#include "rest_sql.hpp"

using namespace berth::sqlconsole;
using nlohmann::json;

namespace {

CatalogColumn col(std::string name, std::string type, bool pk = false, uint32_t oid = 0) {
  CatalogColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.primary_key = pk;
  c.type_oid = oid;
  return c;
}

CatalogLink link(std::string constraint, std::string column, std::string table, std::string to) {
  CatalogLink l;
  l.constraint = std::move(constraint);
  l.column = column;
  l.columns = {column};
  l.table = std::move(table);
  l.to = to;
  l.to_columns = {to};
  return l;
}

// customers 1-n orders n-1 customers (twice: buyer and helper), staff -> staff,
// docs with a tsvector, pairs with a two-column key.
Catalog shop() {
  Catalog c;
  CatalogTable customers{"customers",
                         RelationKind::Table,
                         {col("id", "integer", true, 23), col("name", "text", false, 25),
                          col("age", "integer", false, 23), col("tags", "text[]")},
                         {}};
  CatalogTable orders{
      "orders",
      RelationKind::Table,
      {col("id", "bigint", true), col("customer_id", "integer"), col("helper_id", "integer"),
       col("amount", "numeric(10,2)"), col("meta", "jsonb")},
      {link("orders_customer_id_fkey", "customer_id", "customers", "id"),
       link("orders_helper_fk", "helper_id", "customers", "id")}};
  CatalogTable items{"items",
                     RelationKind::Table,
                     {col("id", "integer", true), col("order_id", "bigint"), col("sku", "text")},
                     {link("items_order_id_fkey", "order_id", "orders", "id")}};
  CatalogTable staff{"staff",
                     RelationKind::Table,
                     {col("id", "integer", true), col("boss_id", "integer")},
                     {link("staff_boss_id_fkey", "boss_id", "staff", "id")}};
  CatalogTable docs{"docs",
                    RelationKind::Table,
                    {col("id", "integer", true), col("body", "text", false, 25),
                     col("search", "tsvector", false, 3614)},
                    {}};
  CatalogTable pairs{"pairs", RelationKind::Table, {col("a", "integer"), col("b", "integer")}, {}};
  CatalogTable pair_refs{"pair_refs",
                         RelationKind::Table,
                         {col("id", "integer", true), col("pa", "integer"), col("pb", "integer")},
                         {}};
  CatalogLink composite;
  composite.constraint = "pair_refs_fk";
  composite.columns = {"pa", "pb"};
  composite.column = "pa";
  composite.table = "pairs";
  composite.to_columns = {"a", "b"};
  composite.to = "a";
  pair_refs.links.push_back(composite);
  CatalogTable bare{"bare", RelationKind::Table, {}, {}};
  c.tables = {bare, customers, docs, items, orders, pair_refs, pairs, staff};
  c.types = {{"text", "text"}, {"int8", "bigint"}};
  return c;
}

RestQuery q(const RestParams& params) {
  return parseRestQuery(params);
}

std::string refusalOf(const std::function<void()>& build) {
  try {
    build();
  } catch (const RestRefusal& e) {
    return e.what();
  }
  return "(no refusal)";
}

std::string readRefusal(const std::string& table, const RestParams& params) {
  return refusalOf([&] { buildRead(shop(), table, q(params)); });
}

std::vector<std::string> texts(const PgParams& params) {
  std::vector<std::string> out;
  for (const auto& p : params) out.push_back(p ? *p : "<NULL>");
  return out;
}

}  // namespace

TEST(RestSqlRead, FiltersOrderAndPageAreBoundOnce) {
  SqlStatement s = buildRead(shop(), "customers",
                             q({{"select", "id,name"},
                                {"age", "gte.18"},
                                {"order", "name.desc.nullslast,id"},
                                {"limit", "10"},
                                {"offset", "20"}}));
  EXPECT_EQ(s.text,
            "SELECT CASE WHEN count(*) < $2::bigint AND (count(*) > 0 OR $3::bigint = 0) THEN "
            "$3::bigint + count(*) ELSE (SELECT count(*) FROM \"public\".\"customers\" AS t0 "
            "WHERE (t0.\"age\" >= $1)) END AS total, coalesce(json_agg(_r.*), '[]') AS rows, "
            "count(*) AS returned FROM "
            "(SELECT t0.\"id\" AS \"id\", t0.\"name\" AS \"name\" FROM \"public\".\"customers\" "
            "AS t0 WHERE (t0.\"age\" >= $1) ORDER BY t0.\"name\" DESC NULLS LAST, t0.\"id\" ASC "
            "LIMIT $2::bigint OFFSET $3::bigint) AS _r");
  EXPECT_EQ(texts(s.params), (std::vector<std::string>{"18", "10", "20"}));
}

TEST(RestSqlRead, WithoutSelectEveryColumnAndWithoutCountNoTotal) {
  SqlStatement s = buildRead(shop(), "pairs", q({}), ReadOptions{false});
  EXPECT_EQ(s.text,
            "SELECT NULL::bigint AS total, coalesce(json_agg(_r.*), '[]') AS rows, count(*) AS "
            "returned FROM (SELECT t0.* FROM \"public\".\"pairs\" AS t0 LIMIT $1::bigint OFFSET "
            "$2::bigint) AS _r")
      << "the database expands the star: a column added since the catalogue was read is in it";
  EXPECT_EQ(texts(s.params), (std::vector<std::string>{"50", "0"}));
}

TEST(RestSqlRead, EveryOperatorBecomesItsSqlWithTheValueBound) {
  struct Case {
    std::string column, value, sql;
    std::vector<std::string> params;
  };
  const Case cases[] = {
      {"age", "eq.5", "(t0.\"age\" = $1)", {"5"}},
      {"age", "neq.5", "(t0.\"age\" <> $1)", {"5"}},
      {"age", "gt.5", "(t0.\"age\" > $1)", {"5"}},
      {"age", "gte.5", "(t0.\"age\" >= $1)", {"5"}},
      {"age", "lt.5", "(t0.\"age\" < $1)", {"5"}},
      {"age", "lte.5", "(t0.\"age\" <= $1)", {"5"}},
      {"name", "like.*an*", "(t0.\"name\" LIKE $1)", {"%an%"}},
      {"name", "ilike.AN*", "(t0.\"name\" ILIKE $1)", {"AN%"}},
      {"name", "match.^A", "(t0.\"name\" ~ $1)", {"^A"}},
      {"name", "imatch.^a", "(t0.\"name\" ~* $1)", {"^a"}},
      {"age", "in.(1,2,3)", "(t0.\"age\" IN ($1, $2, $3))", {"1", "2", "3"}},
      {"age", "in.()", "(false)", {}},
      {"age", "is.null", "(t0.\"age\" IS NULL)", {}},
      {"age", "is.not_null", "(t0.\"age\" IS NOT NULL)", {}},
      {"age", "is.true", "(t0.\"age\" IS TRUE)", {}},
      {"age", "is.false", "(t0.\"age\" IS FALSE)", {}},
      {"age", "is.unknown", "(t0.\"age\" IS UNKNOWN)", {}},
      {"age", "isdistinct.5", "(t0.\"age\" IS DISTINCT FROM $1)", {"5"}},
      {"tags", "cs.{a,b}", "(t0.\"tags\" @> $1)", {"{a,b}"}},
      {"tags", "cd.{a,b}", "(t0.\"tags\" <@ $1)", {"{a,b}"}},
      {"tags", "ov.{a,b}", "(t0.\"tags\" && $1)", {"{a,b}"}},
      {"age", "sl.[1,5)", "(t0.\"age\" << $1)", {"[1,5)"}},
      {"age", "sr.[1,5)", "(t0.\"age\" >> $1)", {"[1,5)"}},
      {"age", "nxr.[1,5)", "(t0.\"age\" &< $1)", {"[1,5)"}},
      {"age", "nxl.[1,5)", "(t0.\"age\" &> $1)", {"[1,5)"}},
      {"age", "adj.[1,5)", "(t0.\"age\" -|- $1)", {"[1,5)"}},
      {"age", "not.eq.5", "NOT (t0.\"age\" = $1)", {"5"}},
      {"age", "not.is.null", "NOT (t0.\"age\" IS NULL)", {}},
  };
  for (const Case& c : cases) {
    SqlStatement s = buildRead(shop(), "customers", q({{c.column, c.value}}), ReadOptions{false});
    EXPECT_NE(s.text.find("WHERE " + c.sql + " LIMIT"), std::string::npos)
        << c.column << "=" << c.value << "\n"
        << s.text;
    std::vector<std::string> params = texts(s.params);
    params.resize(params.size() - 2);  // limit and offset
    EXPECT_EQ(params, c.params) << c.column << "=" << c.value;
  }
}

TEST(RestSqlRead, TextSearchUsesTheColumnOrToTsvectorAndBindsTheLanguage) {
  auto where = [](const std::string& column, const std::string& value) {
    SqlStatement s = buildRead(shop(), "docs", q({{column, value}}), ReadOptions{false});
    size_t from = s.text.find("WHERE ");
    return std::make_pair(s.text.substr(from, s.text.find(" LIMIT") - from), texts(s.params));
  };
  auto [sql, params] = where("search", "fts.cat & dog");
  EXPECT_EQ(sql, "WHERE (t0.\"search\" @@ to_tsquery($1))");
  EXPECT_EQ(params[0], "cat & dog");
  std::tie(sql, params) = where("body", "plfts(english).fat cats");
  EXPECT_EQ(sql,
            "WHERE (to_tsvector($1::regconfig, t0.\"body\") @@ plainto_tsquery($1::regconfig, "
            "$2))");
  EXPECT_EQ(params[0], "english");
  EXPECT_EQ(params[1], "fat cats");
  std::tie(sql, params) = where("search", "phfts.fat cats");
  EXPECT_EQ(sql, "WHERE (t0.\"search\" @@ phraseto_tsquery($1))");
  std::tie(sql, params) = where("search", "not.wfts(simple).a or b");
  EXPECT_EQ(sql, "WHERE NOT (t0.\"search\" @@ websearch_to_tsquery($1::regconfig, $2))");
}

TEST(RestSqlRead, NestedLogicGroupsKeepTheirShape) {
  SqlStatement s = buildRead(
      shop(), "customers",
      q({{"or", "(age.lt.18,and(name.like.\"a,(b)*\",age.not.is.null),not.or(id.eq.1,id.eq.2))"},
         {"id", "neq.9"}}),
      ReadOptions{false});
  EXPECT_NE(s.text.find("WHERE ((t0.\"age\" < $1) OR ((t0.\"name\" LIKE $2) AND NOT (t0.\"age\" "
                        "IS NULL)) OR NOT ((t0.\"id\" = $3) OR (t0.\"id\" = $4))) AND (t0.\"id\" "
                        "<> $5) LIMIT"),
            std::string::npos)
      << s.text;
  EXPECT_EQ(texts(s.params), (std::vector<std::string>{"18", "a,(b)%", "1", "2", "9", "50", "0"}));
}

TEST(RestSqlRead, AliasesAndCastsUseTheDatabasesTypeName) {
  SqlStatement s =
      buildRead(shop(), "customers", q({{"select", "who:name,years:age::int8,id::text"}}), {false});
  EXPECT_NE(s.text.find("SELECT t0.\"name\" AS \"who\", t0.\"age\"::bigint AS \"years\", "
                        "t0.\"id\"::text AS \"id\" FROM"),
            std::string::npos)
      << s.text;
}

TEST(RestSqlRead, EmbedsManyToOneAsObjectAndOneToManyAsArrayNested) {
  SqlStatement s = buildRead(
      shop(), "orders",
      q({{"select", "id,buyer:customers!customer_id(name),items(sku,orders(id))"}}), {false});
  const std::string expected =
      "SELECT t0.\"id\" AS \"id\", (SELECT to_json(_e1.*) FROM (SELECT t1.\"name\" AS \"name\" "
      "FROM \"public\".\"customers\" AS t1 WHERE t1.\"id\" = t0.\"customer_id\") AS _e1) AS "
      "\"buyer\", (SELECT coalesce(json_agg(_e2.*), '[]') FROM (SELECT t2.\"sku\" AS \"sku\", "
      "(SELECT to_json(_e3.*) FROM (SELECT t3.\"id\" AS \"id\" FROM \"public\".\"orders\" AS t3 "
      "WHERE t3.\"id\" = t2.\"order_id\") AS _e3) AS \"orders\" FROM \"public\".\"items\" AS t2 "
      "WHERE t2.\"order_id\" = t0.\"id\") AS _e2) AS \"items\" FROM \"public\".\"orders\" AS t0";
  EXPECT_NE(s.text.find(expected), std::string::npos) << s.text;

  SqlStatement many =
      buildRead(shop(), "customers", q({{"select", "name,orders!customer_id(*)"}}), {false});
  EXPECT_NE(many.text.find("(SELECT coalesce(json_agg(_e1.*), '[]') FROM (SELECT t1.\"id\" AS "
                           "\"id\", t1.\"customer_id\" AS \"customer_id\", t1.\"helper_id\" AS "
                           "\"helper_id\", t1.\"amount\" AS \"amount\", t1.\"meta\" AS \"meta\" "
                           "FROM \"public\".\"orders\" AS t1 WHERE t1.\"customer_id\" = t0.\"id\""),
            std::string::npos)
      << many.text;
}

TEST(RestSqlRead, CompositeAndSelfReferencingKeys) {
  SqlStatement s = buildRead(shop(), "pair_refs", q({{"select", "pairs(*)"}}), {false});
  EXPECT_NE(s.text.find("WHERE t1.\"a\" = t0.\"pa\" AND t1.\"b\" = t0.\"pb\""), std::string::npos)
      << s.text;
  SqlStatement boss =
      buildRead(shop(), "staff", q({{"select", "id,boss:staff!boss_id(id)"}}), {false});
  EXPECT_NE(boss.text.find("SELECT to_json(_e1.*) FROM (SELECT t1.\"id\" AS \"id\" FROM "
                           "\"public\".\"staff\" AS t1 WHERE t1.\"id\" = t0.\"boss_id\")"),
            std::string::npos)
      << boss.text;
  SqlStatement reports = buildRead(
      shop(), "staff", q({{"select", "id,reports:staff!staff_boss_id_fkey(id)"}}), {false});
  EXPECT_NE(reports.text.find("coalesce(json_agg(_e1.*), '[]') FROM (SELECT t1.\"id\" AS \"id\" "
                              "FROM \"public\".\"staff\" AS t1 WHERE t1.\"boss_id\" = t0.\"id\")"),
            std::string::npos)
      << reports.text;
}

TEST(RestSqlRead, NamesWithQuotesAreQuotedNotPasted) {
  Catalog c = shop();
  c.tables.push_back(CatalogTable{"we\"ird", RelationKind::Table, {col("a\"b", "text")}, {}});
  SqlStatement s = buildRead(c, "we\"ird", q({{"\"a\\\"b\"", "eq.x"}}), {false});
  EXPECT_NE(s.text.find("FROM \"public\".\"we\"\"ird\" AS t0 WHERE (t0.\"a\"\"b\" = $1)"),
            std::string::npos)
      << s.text;
}

TEST(RestSqlRefusals, UnknownNamesSayWhichAndWhere) {
  EXPECT_EQ(readRefusal("nope", {}), "no table named nope");
  EXPECT_EQ(readRefusal("customers", {{"nme", "eq.x"}}),
            "no column named \"nme\" in customers at character 1 of nme=eq.x; the columns are "
            "id, name, age, tags");
  EXPECT_EQ(readRefusal("customers", {{"or", "(age.gt.1,nme.eq.x)"}}),
            "no column named \"nme\" in customers at character 14 of or=(age.gt.1,nme.eq.x); the "
            "columns are id, name, age, tags");
  EXPECT_EQ(readRefusal("customers", {{"order", "id,agee.desc"}}),
            "no column named \"agee\" in customers at character 10 of order=id,agee.desc; the "
            "columns are id, name, age, tags");
  EXPECT_EQ(readRefusal("customers", {{"select", "id,nam"}}),
            "no column named \"nam\" in customers at character 11 of select=id,nam; the columns "
            "are id, name, age, tags");
  EXPECT_EQ(readRefusal("customers", {{"select", "id::nosuch"}}),
            "no type named \"nosuch\" at character 8 of select=id::nosuch; cast to a type the "
            "database has, such as text, integer or jsonb");
  EXPECT_EQ(readRefusal("customers", {{"select", "id,ghosts(*)"}}),
            "no table named \"ghosts\" to embed at character 11 of select=id,ghosts(*)");
  EXPECT_EQ(readRefusal("customers", {{"select", "id,docs(*)"}}),
            "no foreign key links customers and docs at character 11 of select=id,docs(*); "
            "embedding needs a foreign key declared between them");
  EXPECT_EQ(readRefusal("orders", {{"select", "customers(name)"}}),
            "more than one foreign key links orders and customers at character 8 of "
            "select=customers(name); say which with customers!orders_customer_id_fkey, "
            "customers!orders_helper_fk");
  EXPECT_EQ(readRefusal("staff", {{"select", "staff(id)"}}),
            "more than one foreign key links staff and staff at character 8 of select=staff(id); "
            "say which with staff!boss_id for the row it points to, staff!staff_boss_id_fkey for "
            "the rows pointing to it");
  EXPECT_EQ(readRefusal("orders", {{"select", "customers!nokey(name)"}}),
            "no foreign key \"nokey\" links orders and customers at character 8 of "
            "select=customers!nokey(name); name one of customers!orders_customer_id_fkey, "
            "customers!orders_helper_fk");
  EXPECT_EQ(readRefusal("customers", {{"select", "*,name"}}),
            "\"name\" is given twice in the same select list at character 10 of select=*,name; "
            "rename one with alias:column");
  EXPECT_EQ(readRefusal("orders", {{"select", "id,items(nope)"}}),
            "no column named \"nope\" in items at character 17 of select=id,items(nope); the "
            "columns are id, order_id, sku");
}

TEST(RestSqlRefusals, InjectionInNamesNeverReachesTheText) {
  // A name is only ever looked up; one that is not in the catalogue is refused, so no
  // statement is produced at all.
  EXPECT_NE(readRefusal("customers; DROP TABLE customers", {}), "(no refusal)");
  EXPECT_NE(readRefusal("customers", {{"\"id\\\"; drop table x; --\"", "eq.1"}}), "(no refusal)");
  EXPECT_NE(readRefusal("customers", {{"select", "\"id\\\" from x; --\""}}), "(no refusal)");
  // Values are parameters whatever they hold.
  SqlStatement s =
      buildRead(shop(), "customers", q({{"name", "eq.'); DROP TABLE customers; --"}}), {false});
  EXPECT_EQ(s.text.find("DROP"), std::string::npos);
  EXPECT_EQ(texts(s.params).at(0), "'); DROP TABLE customers; --");
}

TEST(RestSqlWrite, InsertGivesDefaultsForMissingKeysAndBindsValues) {
  InsertRequest insert;
  insert.body = json::array({{{"name", "Ada"}, {"age", 36}}, {{"name", "Bob"}}});
  insert.representation.wanted = true;
  std::vector<SqlStatement> s = buildInsert(shop(), "customers", insert);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].text,
            "WITH _written AS (INSERT INTO \"public\".\"customers\" AS t0 (\"name\", \"age\") "
            "VALUES ($1, $2), ($3, DEFAULT) RETURNING t0.*) SELECT (SELECT count(*) FROM "
            "_written) AS affected, (SELECT coalesce(json_agg(_r.*), '[]') FROM (SELECT t1.* "
            "FROM _written AS t1) AS _r) AS rows");
  EXPECT_EQ(texts(s[0].params), (std::vector<std::string>{"Ada", "36", "Bob"}));
}

TEST(RestSqlWrite, InsertWithoutRepresentationCountsOnly) {
  InsertRequest insert;
  insert.body = {{"name", "Ada"}, {"tags", json::array({"a,b", "c\"d", nullptr})}};
  std::vector<SqlStatement> s = buildInsert(shop(), "customers", insert);
  EXPECT_EQ(s.at(0).text,
            "WITH _written AS (INSERT INTO \"public\".\"customers\" AS t0 (\"name\", \"tags\") "
            "VALUES ($1, $2) RETURNING 1) SELECT count(*) AS affected, NULL::json AS rows FROM "
            "_written");
  EXPECT_EQ(texts(s[0].params), (std::vector<std::string>{"Ada", "{\"a,b\",\"c\\\"d\",NULL}"}));
}

TEST(RestSqlWrite, InsertOfEmptyObjectsUsesDefaults) {
  InsertRequest insert;
  insert.body = json::array({json::object(), json::object()});
  EXPECT_EQ(buildInsert(shop(), "customers", insert).at(0).text,
            "WITH _written AS (INSERT INTO \"public\".\"customers\" AS t0 (\"id\") VALUES "
            "(DEFAULT), (DEFAULT) RETURNING 1) SELECT count(*) AS affected, NULL::json AS rows "
            "FROM _written");
  SqlStatement bare = buildInsert(shop(), "bare", insert).at(0);
  EXPECT_EQ(bare.text,
            "WITH _written AS (INSERT INTO \"public\".\"bare\" AS t0 SELECT FROM "
            "generate_series(1, $1::int) RETURNING 1) SELECT count(*) AS affected, NULL::json AS "
            "rows FROM _written");
  EXPECT_EQ(texts(bare.params), (std::vector<std::string>{"2"}));
}

TEST(RestSqlWrite, InsertColumnsParameterAndUpserts) {
  InsertRequest insert;
  insert.body = json::array({{{"id", 1}, {"name", "Ada"}, {"extra", "ignored"}}});
  insert.columns = std::vector<std::string>{"id", "name"};
  insert.on_conflict = OnConflict::Merge;
  std::string text = buildInsert(shop(), "customers", insert).at(0).text;
  EXPECT_NE(text.find("(\"id\", \"name\") VALUES ($1, $2) ON CONFLICT (\"id\") DO UPDATE SET "
                      "\"id\" = EXCLUDED.\"id\", \"name\" = EXCLUDED.\"name\" RETURNING 1"),
            std::string::npos)
      << text;
  insert.on_conflict = OnConflict::Ignore;
  insert.conflict_columns = {"name"};
  text = buildInsert(shop(), "customers", insert).at(0).text;
  EXPECT_NE(text.find("ON CONFLICT (\"name\") DO NOTHING RETURNING 1"), std::string::npos) << text;
  insert.conflict_columns = {};
  insert.body = {{"a", 1}};
  insert.columns.reset();
  EXPECT_EQ(refusalOf([&] { buildInsert(shop(), "pairs", insert); }),
            "pairs has no primary key; name the unique columns to compare with on_conflict");
}

TEST(RestSqlWrite, LargeInsertsAreSplitUnderTheParameterLimit) {
  InsertRequest insert;
  insert.body = json::array();
  for (int i = 0; i < 30000; ++i) insert.body.push_back({{"id", i}, {"name", "n"}, {"age", i}});
  std::vector<SqlStatement> s = buildInsert(shop(), "customers", insert);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_LE(s[0].params.size(), 65000u);
  EXPECT_EQ(s[0].params.size() + s[1].params.size(), 90000u);
}

TEST(RestSqlWrite, InsertRefusals) {
  auto insertRefusal = [](json body) {
    InsertRequest insert;
    insert.body = std::move(body);
    return refusalOf([&] { buildInsert(shop(), "customers", insert); });
  };
  EXPECT_EQ(insertRefusal(json::array()), "nothing to insert");
  EXPECT_EQ(insertRefusal(json::array({{{"name", "a"}}, 5})),
            "row 2 of the body is not a JSON object");
  EXPECT_EQ(insertRefusal("text"),
            "the body must be a JSON object (one row) or an array of objects");
  EXPECT_EQ(insertRefusal({{"name", "a"}, {"nope", 1}}),
            "no column named \"nope\" in customers; the columns are id, name, age, tags");
  EXPECT_EQ(insertRefusal({{"name", std::string("a\0b", 3)}}),
            "a value holds the character U+0000, which PostgreSQL text cannot store");
  InsertRequest insert;
  insert.body = {{"name", "a"}};
  EXPECT_EQ(refusalOf([&] { buildInsert(shop(), "nope", insert); }), "no table named nope");
}

TEST(RestSqlWrite, UpdateAndDelete) {
  Representation none;
  SqlStatement u =
      buildUpdate(shop(), "customers", q({{"id", "eq.3"}}), {{"age", 40}, {"name", nullptr}}, none);
  EXPECT_EQ(u.text,
            "WITH _written AS (UPDATE \"public\".\"customers\" AS t0 SET \"name\" = $1, \"age\" = "
            "$2 WHERE (t0.\"id\" = $3) RETURNING 1) SELECT count(*) AS affected, NULL::json AS "
            "rows FROM _written");
  EXPECT_EQ(texts(u.params), (std::vector<std::string>{"<NULL>", "40", "3"}));

  Representation rep{true, q({{"select", "id"}}).select};
  SqlStatement d = buildDelete(shop(), "customers", q({{"age", "lt.18"}}), rep);
  EXPECT_EQ(d.text,
            "WITH _written AS (DELETE FROM \"public\".\"customers\" AS t0 WHERE (t0.\"age\" < $1) "
            "RETURNING t0.*) SELECT (SELECT count(*) FROM _written) AS affected, (SELECT "
            "coalesce(json_agg(_r.*), '[]') FROM (SELECT t1.\"id\" AS \"id\" FROM _written AS t1) "
            "AS _r) AS rows");

  EXPECT_EQ(refusalOf([&] {
              buildUpdate(shop(), "customers", q({}), {{"age", 1}}, none);
            }),
            "an update needs a filter");
  EXPECT_EQ(refusalOf([&] { buildDelete(shop(), "customers", q({}), none); }),
            "a delete needs a filter");
  EXPECT_EQ(refusalOf([&] {
              buildUpdate(shop(), "customers", q({{"id", "eq.1"}}), {{"agee", 1}}, none);
            }),
            "no column named \"agee\" in customers; the columns are id, name, age, tags");
  EXPECT_EQ(refusalOf([&] {
              buildUpdate(shop(), "customers", q({{"id", "eq.1"}}), json::object(), none);
            }),
            "nothing to update: the body names no column");
  EXPECT_EQ(refusalOf([&] {
              buildUpdate(shop(), "customers", q({{"id", "eq.1"}}), json::array(), none);
            }),
            "the body must be a JSON object of column names and their new values");
}

TEST(RestSqlValues, JsonValuesBecomeTheTextOfTheColumnsType) {
  EXPECT_EQ(pgValueText(nullptr, "text"), std::nullopt);
  EXPECT_EQ(pgValueText("x", "text"), "x");
  EXPECT_EQ(pgValueText(5, "integer"), "5");
  EXPECT_EQ(pgValueText(1.5, "numeric"), "1.5");
  EXPECT_EQ(pgValueText(true, "boolean"), "true");
  EXPECT_EQ(pgValueText("x", "jsonb"), "\"x\"");
  EXPECT_EQ(pgValueText(json::object({{"a", 1}}), "json"), "{\"a\":1}");
  EXPECT_EQ(pgValueText(nullptr, "jsonb"), std::nullopt);
  EXPECT_EQ(pgValueText(json::array({1, 2}), "integer[]"), "{\"1\",\"2\"}");
  EXPECT_EQ(pgValueText(json::array({json::array({1}), json::array({2})}), "integer[]"),
            "{{\"1\"},{\"2\"}}");
  EXPECT_EQ(pgValueText(json::array({"a\\b"}), "text[]"), "{\"a\\\\b\"}");
  EXPECT_EQ(pgValueText("{1,2}", "integer[]"), "{1,2}");
  EXPECT_EQ(pgValueText(json::array({1}), "jsonb"), "[1]");
}

TEST(RestSqlScope, NamesEveryTableAndTypeAQueryUses) {
  CatalogScope scope = catalogScopeFor(
      "orders", q({{"select", "id::text,customers!customer_id(name),items(sku::int8,orders(*))"}}));
  EXPECT_FALSE(scope.all_tables);
  EXPECT_EQ(scope.tables, (std::vector<std::string>{"customers", "items", "orders"}));
  EXPECT_EQ(scope.types, (std::vector<std::string>{"int8", "text"}));
}

namespace {

CatalogFunction fn(std::vector<FunctionArgument> args, FunctionResult result) {
  CatalogFunction f;
  f.name = "add";
  f.arguments = std::move(args);
  f.result = result;
  return f;
}

}  // namespace

TEST(RestSqlFunctions, CallsTheOverloadTheNamedArgumentsFit) {
  std::vector<CatalogFunction> overloads = {
      fn({{"a", "integer", false}, {"b", "integer", true}}, FunctionResult::Scalar),
      fn({{"label", "text", false}}, FunctionResult::RowSet),
  };
  FunctionResult kind{};
  SqlStatement s = buildFunctionCall(overloads, "add", {{"a", 1}}, &kind);
  EXPECT_EQ(s.text, "SELECT to_json(\"public\".\"add\"(\"a\" => $1::integer))");
  EXPECT_EQ(kind, FunctionResult::Scalar);
  s = buildFunctionCall(overloads, "add", {{"a", 1}, {"b", 2}}, &kind);
  EXPECT_EQ(s.text,
            "SELECT to_json(\"public\".\"add\"(\"a\" => $1::integer, \"b\" => $2::integer))");
  EXPECT_EQ(texts(s.params), (std::vector<std::string>{"1", "2"}));
  s = buildFunctionCall(overloads, "add", {{"label", "x"}}, &kind);
  EXPECT_EQ(s.text,
            "SELECT coalesce(json_agg(_r.*), '[]') FROM \"public\".\"add\"(\"label\" => "
            "$1::text) AS _r");
  EXPECT_EQ(kind, FunctionResult::RowSet);

  EXPECT_EQ(refusalOf([&] {
              buildFunctionCall(overloads, "add", {{"b", 1}}, nullptr);
            }),
            "no function add takes the arguments (b); there is add(a integer, b integer default), "
            "add(label text)");
  EXPECT_EQ(refusalOf([&] { buildFunctionCall({}, "nope", json::object(), nullptr); }),
            "no function named nope");
  EXPECT_EQ(refusalOf([&] { buildFunctionCall(overloads, "add", json::array(), nullptr); }),
            "the body must be a JSON object of argument names and values");

  std::vector<CatalogFunction> shapes = {fn({}, FunctionResult::Void)};
  EXPECT_EQ(buildFunctionCall(shapes, "add", json::object(), &kind).text,
            "SELECT \"public\".\"add\"()");
  shapes = {fn({}, FunctionResult::Row)};
  EXPECT_EQ(buildFunctionCall(shapes, "add", json::object(), &kind).text,
            "SELECT to_json(_r.*) FROM \"public\".\"add\"() AS _r");
  shapes = {fn({}, FunctionResult::ScalarSet)};
  EXPECT_EQ(buildFunctionCall(shapes, "add", json::object(), &kind).text,
            "SELECT coalesce(json_agg(_r.v), '[]') FROM \"public\".\"add\"() AS _r(v)");
}

TEST(RestPrefer, ReadsWhatPostgrestClientsSend) {
  Preferences p = parsePrefer("return=representation,count=exact");
  EXPECT_EQ(p.return_, ReturnPreference::Representation);
  EXPECT_TRUE(p.count);
  p = parsePrefer(" count=planned ;x=y , resolution=merge-duplicates, return=minimal");
  EXPECT_TRUE(p.count);
  EXPECT_EQ(p.resolution, ResolutionPreference::MergeDuplicates);
  EXPECT_EQ(p.return_, ReturnPreference::Minimal);
  p = parsePrefer(
      "resolution=ignore-duplicates, return=headers-only, tx=rollback, missing=default");
  EXPECT_EQ(p.resolution, ResolutionPreference::IgnoreDuplicates);
  EXPECT_EQ(p.return_, ReturnPreference::HeadersOnly);
  EXPECT_FALSE(p.count);
  p = parsePrefer("");
  EXPECT_EQ(p.return_, ReturnPreference::Unset);
  EXPECT_EQ(p.resolution, ResolutionPreference::Unset);
  EXPECT_FALSE(parsePrefer("count=exactly, return=representations").count);
  EXPECT_EQ(parsePrefer("return=representations").return_, ReturnPreference::Unset);
}
