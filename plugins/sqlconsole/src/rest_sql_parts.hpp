// Pieces the rows SQL builders (rest_sql_*.cpp) share: bound parameters, catalogue look-ups
// that refuse in the grammar's words, and the WHERE, ORDER BY and select-list writers. Internal
// to the builders; routes use rest_sql.hpp.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "rest_sql.hpp"

namespace berth::sqlconsole {

// Values bound as $1, $2 ... in the order they are added.
class SqlParams {
 public:
  // Adds a value and returns its placeholder, "$n".
  std::string add(PgParam value);
  size_t size() const { return values_.size(); }
  PgParams take() { return std::move(values_); }

 private:
  PgParams values_;
};

// "public"."name": the schema is spelt out so a table can never be confused with a CTE.
std::string qualifiedName(const CatalogTable& table);

// The column, or RestRefusal `no column named "x" in <table>` with " at character <n> of
// <param>" when origin is given, and the table's columns as advice.
const CatalogColumn& requireColumn(const CatalogTable& table, std::string_view name,
                                   const RestOrigin* origin);

// Fresh aliases for the tables of one statement: t0 is the request's table, t1... embeds.
class AliasCounter {
 public:
  std::string nextTable() { return "t" + std::to_string(tables_++); }
  std::string nextRow() { return "_e" + std::to_string(rows_++); }

 private:
  int tables_ = 0;
  int rows_ = 1;
};

// Conditions of every filter AND-ed, over columns of `alias`; "" when there are none.
std::string whereSql(const CatalogTable& table, const std::vector<Filter>& filters,
                     const std::string& alias, SqlParams& params);

// "ORDER BY ..." for the terms, "" when there are none.
std::string orderSql(const CatalogTable& table, const std::vector<OrderTerm>& order,
                     const std::string& alias);

// The output columns of a select list over `alias` ("t0"."id" AS "id", (subquery) AS "embed"),
// every one checked; an absent list is every column of the table.
std::string selectListSql(const Catalog& catalog, const CatalogTable& table,
                          const std::string& alias, const std::optional<SelectList>& list,
                          AliasCounter& aliases);

}  // namespace berth::sqlconsole
