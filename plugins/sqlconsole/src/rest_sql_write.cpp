// INSERT, UPDATE and DELETE for the rows routes and /_data. Each is one statement of the form
//   WITH _written AS (<insert|update|delete> ... RETURNING ...)
//   SELECT <affected>, <the written rows as JSON, shaped by select, or NULL>
// so the count and the representation come back with the change, in one round trip. Values
// are bound and typed by their column (no explicit casts: an assignment refuses a text too long
// for varchar(n) where a cast would cut it).
#include <set>

#include <berth/common/sql_text.hpp>
#include "rest_sql_parts.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {
namespace {

// PostgreSQL's protocol numbers bound parameters with 16 bits; stay clear of 65535.
constexpr size_t kMaxParamsPerStatement = 65000;

std::string tail(const Catalog& catalog, const CatalogTable& table,
                 const Representation& representation, AliasCounter& aliases) {
  if (!representation.wanted)
    return " SELECT count(*) AS affected, NULL::json AS rows FROM _written";
  const std::string alias = aliases.nextTable();
  return " SELECT (SELECT count(*) FROM _written) AS affected, (SELECT coalesce(json_agg(_r.*), "
         "'[]') FROM (SELECT " +
         selectListSql(catalog, table, alias, representation.select, aliases) +
         " FROM _written AS " + alias + ") AS _r) AS rows";
}

std::string returning(const Representation& representation, const std::string& alias) {
  return representation.wanted ? " RETURNING " + alias + ".*" : " RETURNING 1";
}

std::vector<const nlohmann::json*> rowsOf(const nlohmann::json& body) {
  std::vector<const nlohmann::json*> rows;
  if (body.is_object()) {
    rows.push_back(&body);
  } else if (body.is_array()) {
    for (const auto& row : body) rows.push_back(&row);
  } else {
    throw RestRefusal("the body must be a JSON object (one row) or an array of objects");
  }
  if (rows.empty()) throw RestRefusal("nothing to insert");
  for (size_t i = 0; i < rows.size(); ++i)
    if (!rows[i]->is_object())
      throw RestRefusal("row " + std::to_string(i + 1) + " of the body is not a JSON object");
  return rows;
}

// Which columns the rows give values for, in the table's column order.
std::vector<const CatalogColumn*> insertedColumns(
    const CatalogTable& table, const std::vector<const nlohmann::json*>& rows,
    const std::optional<std::set<std::string>>& only) {
  std::set<std::string> used;
  for (const nlohmann::json* row : rows) {
    for (const auto& [key, value] : row->items()) {
      if (only && only->count(key) == 0) continue;  // columns=... leaves other keys out
      requireColumn(table, key, nullptr);
      used.insert(key);
    }
  }
  std::vector<const CatalogColumn*> columns;
  for (const CatalogColumn& column : table.columns)
    if (used.count(column.name) > 0) columns.push_back(&column);
  return columns;
}

std::string conflictClause(const CatalogTable& table, const InsertRequest& request,
                           const std::vector<const CatalogColumn*>& columns) {
  if (request.on_conflict == OnConflict::Error) return "";
  std::vector<std::string> keys;
  if (request.conflict_columns.empty()) {
    for (const CatalogColumn& column : table.columns)
      if (column.primary_key) keys.push_back(column.name);
    if (keys.empty())
      throw RestRefusal(table.name +
                        " has no primary key; name the unique columns to compare with on_conflict");
  } else {
    for (const std::string& name : request.conflict_columns)
      keys.push_back(requireColumn(table, name, nullptr).name);
  }
  std::string target;
  for (const std::string& key : keys)
    target += (target.empty() ? "" : ", ") + common::quotedIdentifier(key);
  if (request.on_conflict == OnConflict::Ignore || columns.empty())
    return " ON CONFLICT (" + target + ") DO NOTHING";
  std::string set;
  for (const CatalogColumn* column : columns) {
    if (!set.empty()) set += ", ";
    set += common::quotedIdentifier(column->name) + " = EXCLUDED." +
           common::quotedIdentifier(column->name);
  }
  return " ON CONFLICT (" + target + ") DO UPDATE SET " + set;
}

}  // namespace

std::vector<SqlStatement> buildInsert(const Catalog& catalog, std::string_view table_name,
                                      const InsertRequest& request) {
  const CatalogTable& table = requireTable(catalog, table_name);
  std::vector<const nlohmann::json*> rows = rowsOf(request.body);
  std::optional<std::set<std::string>> only;
  if (request.columns) {
    only.emplace();
    for (const std::string& name : *request.columns)
      only->insert(requireColumn(table, name, nullptr).name);
  }
  std::vector<const CatalogColumn*> columns = insertedColumns(table, rows, only);
  // Rows that give no value at all still insert a row of defaults: name one column and give
  // it DEFAULT (a table without columns takes rows from a SELECT of nothing).
  const bool all_default = columns.empty();
  if (all_default && !table.columns.empty()) columns.push_back(&table.columns.front());

  std::string column_list;
  for (const CatalogColumn* column : columns)
    column_list += (column_list.empty() ? "" : ", ") + common::quotedIdentifier(column->name);
  const std::string conflict =
      conflictClause(table, request, all_default ? decltype(columns){} : columns);

  std::vector<SqlStatement> statements;
  size_t next = 0;
  while (next < rows.size()) {
    AliasCounter aliases;
    const std::string alias = aliases.nextTable();
    SqlParams params;
    std::string values;
    size_t taken = 0;
    if (columns.empty()) {
      taken = rows.size() - next;
      values = " SELECT FROM generate_series(1, " + params.add(std::to_string(taken)) + "::int)";
    } else {
      while (next + taken < rows.size() &&
             params.size() + columns.size() <= kMaxParamsPerStatement) {
        const nlohmann::json& row = *rows[next + taken];
        std::string tuple;
        for (const CatalogColumn* column : columns) {
          if (!tuple.empty()) tuple += ", ";
          auto it = row.find(column->name);
          tuple += all_default || it == row.end() ? std::string("DEFAULT")
                                                  : params.add(pgValueText(*it, column->type));
        }
        values += (values.empty() ? " VALUES (" : ", (") + tuple + ")";
        ++taken;
      }
    }
    next += taken;
    SqlStatement statement;
    statement.text = "WITH _written AS (INSERT INTO " + qualifiedName(table) + " AS " + alias +
                     (column_list.empty() ? "" : " (" + column_list + ")") + values + conflict +
                     returning(request.representation, alias) + ")" +
                     tail(catalog, table, request.representation, aliases);
    statement.params = params.take();
    statements.push_back(std::move(statement));
  }
  return statements;
}

SqlStatement buildUpdate(const Catalog& catalog, std::string_view table_name,
                         const RestQuery& query, const nlohmann::json& body,
                         const Representation& representation) {
  const CatalogTable& table = requireTable(catalog, table_name);
  if (query.filters.empty()) throw RestRefusal("an update needs a filter");
  if (!body.is_object())
    throw RestRefusal("the body must be a JSON object of column names and their new values");
  if (body.empty()) throw RestRefusal("nothing to update: the body names no column");
  for (const auto& [key, value] : body.items()) requireColumn(table, key, nullptr);
  AliasCounter aliases;
  const std::string alias = aliases.nextTable();
  SqlParams params;
  std::string set;
  for (const CatalogColumn& column : table.columns) {
    auto it = body.find(column.name);
    if (it == body.end()) continue;
    if (!set.empty()) set += ", ";
    set +=
        common::quotedIdentifier(column.name) + " = " + params.add(pgValueText(*it, column.type));
  }
  std::string where = whereSql(table, query.filters, alias, params);
  SqlStatement statement;
  statement.text = "WITH _written AS (UPDATE " + qualifiedName(table) + " AS " + alias + " SET " +
                   set + " " + where + returning(representation, alias) + ")" +
                   tail(catalog, table, representation, aliases);
  statement.params = params.take();
  return statement;
}

SqlStatement buildDelete(const Catalog& catalog, std::string_view table_name,
                         const RestQuery& query, const Representation& representation) {
  const CatalogTable& table = requireTable(catalog, table_name);
  if (query.filters.empty()) throw RestRefusal("a delete needs a filter");
  AliasCounter aliases;
  const std::string alias = aliases.nextTable();
  SqlParams params;
  std::string where = whereSql(table, query.filters, alias, params);
  SqlStatement statement;
  statement.text = "WITH _written AS (DELETE FROM " + qualifiedName(table) + " AS " + alias + " " +
                   where + returning(representation, alias) + ")" +
                   tail(catalog, table, representation, aliases);
  statement.params = params.take();
  return statement;
}

}  // namespace berth::sqlconsole
