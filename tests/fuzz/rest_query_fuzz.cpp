// fuzz-link: berth_sqlconsole_logic berth::common
//
// The rows and /_data query grammar and the SQL built from it, against PostgreSQL's own parser
// (libpg_query). Input: one byte choosing the request's table, then a query string, split on &
// and percent-decoded exactly as a request's parameters reach the route
// (berth::requestQueryDecoded, then the plugin bridge's "name=value" joined and split again at
// the first '=').
//
// When the grammar and the catalogue check accept, the read statement the route would run
// (buildRead; buildDelete too when there is a filter) must:
// - parse as one SELECT (DELETE) for libpg_query: a syntax error is a finding;
// - hold no constant but the builder's own ('[]', 0, false, NULL): every value of the request
//   is a bound parameter, and the parameters are exactly the request's values in order, then
//   limit and offset;
// - name only tables and columns of the catalogue, and output keys the select list asked for,
//   which libpg_query reads back exactly: an unquoted or badly quoted identifier would fold
//   case or split (the catalogue has "Full Name", "ID" beside "id", "we""ird", "select").
// When they refuse, the refusal is RestSyntaxError or RestRefusal (both 400) and its message is
// UTF-8 (it goes into a JSON body): anything else escapes or fails.
#include <pg_query.h>
#include <berth/common/utf8.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <berth/util/percent_decode.hpp>
#include <nlohmann/json.hpp>

#include "rest_prefer.hpp"
#include "rest_query.hpp"
#include "rest_sql.hpp"
#include "support/fuzz_check.hpp"

using namespace berth::sqlconsole;
using nlohmann::json;

namespace {

constexpr size_t kMaxInput = 4096;

CatalogColumn col(std::string name, std::string type, uint32_t oid = 0, bool pk = false) {
  CatalogColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.type_oid = oid;
  c.primary_key = pk;
  return c;
}

CatalogLink link(std::string constraint, std::vector<std::string> columns, std::string table,
                 std::vector<std::string> to) {
  CatalogLink l;
  l.constraint = std::move(constraint);
  l.column = columns.front();
  l.columns = std::move(columns);
  l.table = std::move(table);
  l.to = to.front();
  l.to_columns = std::move(to);
  return l;
}

// people 1-n orders (two keys: buyer and helper) 1-n items; staff -> staff; "pair refs" -> pairs
// by a two-column key; empty has no columns. Names that need quoting on purpose.
const Catalog& catalog() {
  static const Catalog c = [] {
    Catalog c;
    CatalogTable people{
        "people",
        RelationKind::Table,
        {col("id", "integer", 23, true), col("ID", "text", 25), col("Full Name", "text", 25),
         col("age", "integer", 23), col("data", "jsonb", 3802), col("doc", "tsvector", 3614),
         col("tags", "text[]", 1009), col("born", "timestamp with time zone", 1184),
         col("we\"ird", "text", 25), col("select", "text", 25), col("a.b", "numeric(10,2)", 1700)},
        {}};
    CatalogTable orders{"orders",
                        RelationKind::Table,
                        {col("id", "bigint", 20, true), col("person_id", "integer", 23),
                         col("helper_id", "integer", 23), col("amount", "numeric", 1700),
                         col("meta", "json", 114), col("period", "tstzrange", 3910)},
                        {link("orders_person_id_fkey", {"person_id"}, "people", {"id"}),
                         link("orders_helper_fk", {"helper_id"}, "people", {"id"})}};
    CatalogTable items{
        "items",
        RelationKind::Table,
        {col("id", "integer", 23, true), col("order_id", "bigint", 20), col("sku", "text", 25)},
        {link("items_order_id_fkey", {"order_id"}, "orders", {"id"})}};
    CatalogTable staff{"staff",
                       RelationKind::Table,
                       {col("id", "integer", 23, true), col("boss_id", "integer", 23)},
                       {link("staff_boss_id_fkey", {"boss_id"}, "staff", {"id"})}};
    CatalogTable pairs{
        "pairs", RelationKind::Table, {col("a", "integer", 23), col("b", "integer", 23)}, {}};
    CatalogTable pair_refs{
        "pair refs",
        RelationKind::Table,
        {col("id", "integer", 23, true), col("pa", "integer", 23), col("pb", "integer", 23)},
        {link("pair refs_fk", {"pa", "pb"}, "pairs", {"a", "b"})}};
    CatalogTable empty{"empty", RelationKind::Table, {}, {}};
    c.tables = {empty, items, orders, pair_refs, pairs, people, staff};
    return c;
  }();
  return c;
}

const char* const kTables[] = {"people", "orders", "items", "staff", "pair refs", "empty"};

// The types the database would resolve, as catalog.cpp asks pg_type: the written name lower
// cased, SQL's aliases (integer is int4), "[]" suffixes as array dimensions; the answer is
// format_type's spelling.
const std::string* resolveType(const std::string& written, std::string& out) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {"int4", "integer"},
      {"integer", "integer"},
      {"int", "integer"},
      {"int8", "bigint"},
      {"bigint", "bigint"},
      {"int2", "smallint"},
      {"text", "text"},
      {"json", "json"},
      {"jsonb", "jsonb"},
      {"bool", "boolean"},
      {"boolean", "boolean"},
      {"numeric", "numeric"},
      {"float8", "double precision"},
      {"float4", "real"},
      {"timestamptz", "timestamp with time zone"},
      {"varchar", "character varying"},
      {"date", "date"},
      {"uuid", "uuid"},
      {"tsvector", "tsvector"},
  };
  std::string base = written;
  int dims = 0;
  while (base.size() > 2 && base.compare(base.size() - 2, 2, "[]") == 0) {
    base.resize(base.size() - 2);
    ++dims;
  }
  for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [name, printed] : kTypes) {
    if (base != name) continue;
    out = printed;
    for (int i = 0; i < dims; ++i) out += "[]";
    return &out;
  }
  return nullptr;
}

// The catalogue the route would load for this query: ours, plus the cast types it asks for.
Catalog catalogFor(const CatalogScope& scope) {
  Catalog c = catalog();
  for (const std::string& written : scope.types) {
    std::string printed;
    if (resolveType(written, printed)) c.types[written] = printed;
  }
  return c;
}

// The request's values in the order the builder binds them.
void collectValues(const Filter& filter, std::vector<std::string>& out) {
  if (filter.kind != FilterKind::Condition) {
    for (const Filter& child : filter.children) collectValues(child, out);
    return;
  }
  switch (filter.op) {
    case FilterOp::In:
      for (const std::string& value : filter.values) out.push_back(value);
      return;
    case FilterOp::Is:
      return;
    case FilterOp::Fts:
    case FilterOp::Plfts:
    case FilterOp::Phfts:
    case FilterOp::Wfts:
      if (!filter.language.empty()) out.push_back(filter.language);
      out.push_back(filter.value);
      return;
    default:
      out.push_back(filter.value);
  }
}

void collectKeys(const SelectList& list, std::set<std::string>& keys) {
  for (const SelectItem& item : list) {
    if (item.kind != SelectKind::Star) keys.insert(item.alias.empty() ? item.name : item.alias);
    collectKeys(item.children, keys);
  }
}

struct Names {
  std::set<std::string> tables;  // relation names
  std::set<std::string> columns;
  std::set<std::string> keys;  // output names the statement may give
};

bool isBuilderAlias(const std::string& name) {
  if (name == "_r") return true;
  size_t digits = name.starts_with("t") ? 1 : name.starts_with("_e") ? 2 : std::string::npos;
  if (digits == std::string::npos || digits == name.size()) return false;
  for (size_t i = digits; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}

// Walks libpg_query's JSON tree of the statement and checks every constant, parameter, name.
class TreeCheck {
 public:
  TreeCheck(const Names& names, const std::string& sql) : names_(names), sql_(sql) {}

  void walk(const json& node) {
    if (node.is_array()) {
      for (const json& child : node) walk(child);
      return;
    }
    if (!node.is_object()) return;
    for (const auto& [key, value] : node.items()) {
      if (key == "A_Const") constant(value);
      if (key == "ParamRef") params_.insert(value.value("number", 0));
      if (key == "ColumnRef") columnRef(value);
      if (key == "RangeVar") rangeVar(value);
      if (key == "ResTarget" && value.contains("name")) outputName(value.at("name"));
      if (key == "FuncCall") function(value);
      walk(value);
    }
  }
  const std::set<int>& params() const { return params_; }

 private:
  void constant(const json& c) {
    if (c.value("isnull", false)) return;
    if (c.contains("sval") && c.at("sval").value("sval", "") == "[]") return;
    if (c.contains("ival") && c.at("ival").value("ival", 0) == 0) return;
    if (c.contains("boolval") && !c.at("boolval").value("boolval", false)) return;
    berth::fuzz::fail("a constant in the SQL that the builder does not write: a value pasted?",
                      c.dump() + "\n" + sql_);
  }
  void columnRef(const json& ref) {
    const json& fields = ref.at("fields");
    std::vector<std::string> parts;
    for (const json& f : fields) {
      if (f.contains("A_Star"))
        parts.push_back("*");
      else
        parts.push_back(f.at("String").value("sval", ""));
    }
    // alias.column, alias.*, or a bare output column of a sub-select (never here).
    const bool ok = parts.size() == 2 && isBuilderAlias(parts[0]) &&
                    (parts[1] == "*" || names_.columns.count(parts[1]));
    berth::fuzz::check(ok, "a column reference the catalogue does not have (quoting?)",
                       fields.dump() + "\n" + sql_);
  }
  void rangeVar(const json& range) {
    // The write statements' own CTE, read back by name.
    if (range.value("relname", "") == "_written" && !range.contains("schemaname")) return;
    const bool ok = range.value("schemaname", "") == "public" &&
                    names_.tables.count(range.value("relname", "")) &&
                    isBuilderAlias(range.value("alias", json::object()).value("aliasname", ""));
    berth::fuzz::check(ok, "a table reference the catalogue does not have (quoting?)",
                       range.dump() + "\n" + sql_);
  }
  void outputName(const json& name) {
    const std::string text = name.get<std::string>();
    static const std::set<std::string> kOwn = {"total", "rows", "returned", "affected"};
    berth::fuzz::check(kOwn.count(text) || names_.keys.count(text) || names_.columns.count(text),
                       "an output name the request did not ask for (quoting?)", text + "\n" + sql_);
  }
  void function(const json& call) {
    static const std::set<std::string> kOwn = {
        "count",      "json_agg",        "to_json",          "to_tsvector",
        "to_tsquery", "plainto_tsquery", "phraseto_tsquery", "websearch_to_tsquery"};
    std::string name;
    for (const json& part : call.at("funcname")) name = part.at("String").value("sval", "");
    berth::fuzz::check(kOwn.count(name), "a function the builder does not call",
                       name + "\n" + sql_);
  }

  const Names& names_;
  const std::string& sql_;
  std::set<int> params_;
};

// The statement must parse as exactly one statement of the expected kind, and its tree pass
// TreeCheck; its $n are exactly 1..params.
void checkStatement(const SqlStatement& statement, const Names& names, const char* kind) {
  PgQueryParseResult result = pg_query_parse(statement.text.c_str());
  if (result.error) {
    const std::string message = result.error->message;
    pg_query_free_parse_result(result);
    berth::fuzz::fail("PostgreSQL's parser refuses the SQL built", message + "\n" + statement.text);
  }
  const json tree = json::parse(result.parse_tree);
  pg_query_free_parse_result(result);
  const json& stmts = tree.at("stmts");
  berth::fuzz::check(stmts.size() == 1 && stmts[0].at("stmt").contains(kind),
                     "the SQL built is not one statement of its kind", statement.text);
  TreeCheck check(names, statement.text);
  check.walk(stmts);
  std::set<int> expected;
  for (size_t i = 1; i <= statement.params.size(); ++i) expected.insert(static_cast<int>(i));
  berth::fuzz::check(check.params() == expected, "the placeholders are not $1..$n", statement.text);
  for (const PgParam& param : statement.params) {
    // libpq sends parameters as C strings: a NUL would cut the value short silently.
    berth::fuzz::check(!param || param->find('\0') == std::string::npos,
                       "a bound value holds a NUL byte, which libpq would cut short",
                       statement.text);
  }
}

void checkMessage(const std::exception& e) {
  const std::string_view message = e.what();
  berth::fuzz::check(!message.empty(), "an empty refusal");
  berth::fuzz::check(!berth::common::firstInvalidUtf8(message),
                     "a refusal that is not UTF-8 (it goes into a JSON body)", message);
}

void build(const std::string& table, const RestQuery& query) {
  const Catalog c = catalogFor(catalogScopeFor(table, query));
  Names names;
  for (const CatalogTable& t : c.tables) {
    names.tables.insert(t.name);
    for (const CatalogColumn& column : t.columns) names.columns.insert(column.name);
  }
  if (query.select) collectKeys(*query.select, names.keys);

  const SqlStatement read = buildRead(c, table, query);
  // FUZZ_SHOW=1: print the SQL of each accepted input (to look at what the target checks).
  if (std::getenv("FUZZ_SHOW")) std::fprintf(stderr, "%s\n", read.text.c_str());
  checkStatement(read, names, "SelectStmt");
  std::vector<std::string> values;
  for (const Filter& filter : query.filters) collectValues(filter, values);
  values.push_back(std::to_string(query.limit));
  values.push_back(std::to_string(query.offset));
  std::vector<std::string> bound;
  for (const PgParam& param : read.params) bound.push_back(param.value_or("<NULL>"));
  berth::fuzz::check(bound == values, "the bound values are not the request's values",
                     json(values).dump() + "\n" + read.text);

  if (!query.filters.empty()) {
    const SqlStatement del = buildDelete(c, table, query, Representation{true, query.select});
    checkStatement(del, names, "SelectStmt");  // WITH _written AS (DELETE ...) SELECT ...
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > kMaxInput) return 0;
  const std::string table = kTables[data[0] % std::size(kTables)];
  const std::string_view raw = berth::fuzz::asText(data + 1, size - 1);

  // As the request reaches the route: core's split and decoding, then the bridge's pairs.
  RestParams params;
  for (const auto& [name, value] : berth::requestQueryDecoded(raw)) {
    const std::string pair = name + "=" + value;
    const size_t eq = pair.find('=');
    params.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
  }
  parsePrefer(raw);  // never throws

  RestQuery query;
  try {
    query = parseRestQuery(params);
  } catch (const RestSyntaxError& e) {
    checkMessage(e);
    return 0;
  }
  try {
    build(table, query);
  } catch (const RestSyntaxError& e) {  // a loose name that names no column
    checkMessage(e);
  } catch (const RestRefusal& e) {
    checkMessage(e);
  }
  return 0;
}
