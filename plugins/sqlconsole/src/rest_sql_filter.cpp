// Filters and order as SQL. Every value is a bound parameter whose type PostgreSQL infers from
// the column it is compared with, so "age=eq.abc" on an integer column is the database's own
// "invalid input syntax for type integer" and a value can never become SQL.
#include <berth/common/sql_text.hpp>
#include "rest_sql_parts.hpp"

namespace berth::sqlconsole {
namespace {

constexpr uint32_t kTsvectorOid = 3614;

std::string_view comparison(FilterOp op) {
  switch (op) {
    case FilterOp::Eq:
      return "=";
    case FilterOp::Neq:
      return "<>";
    case FilterOp::Gt:
      return ">";
    case FilterOp::Gte:
      return ">=";
    case FilterOp::Lt:
      return "<";
    case FilterOp::Lte:
      return "<=";
    case FilterOp::Like:
      return "LIKE";
    case FilterOp::Ilike:
      return "ILIKE";
    case FilterOp::Match:
      return "~";
    case FilterOp::Imatch:
      return "~*";
    case FilterOp::IsDistinct:
      return "IS DISTINCT FROM";
    case FilterOp::Cs:
      return "@>";
    case FilterOp::Cd:
      return "<@";
    case FilterOp::Ov:
      return "&&";
    case FilterOp::Sl:
      return "<<";
    case FilterOp::Sr:
      return ">>";
    case FilterOp::Nxr:
      return "&<";
    case FilterOp::Nxl:
      return "&>";
    case FilterOp::Adj:
      return "-|-";
    default:
      return "";
  }
}

std::string_view tsqueryFunction(FilterOp op) {
  switch (op) {
    case FilterOp::Plfts:
      return "plainto_tsquery";
    case FilterOp::Phfts:
      return "phraseto_tsquery";
    case FilterOp::Wfts:
      return "websearch_to_tsquery";
    default:
      return "to_tsquery";
  }
}

std::string_view isSql(IsValue value) {
  switch (value) {
    case IsValue::Null:
      return "IS NULL";
    case IsValue::NotNull:
      return "IS NOT NULL";
    case IsValue::True:
      return "IS TRUE";
    case IsValue::False:
      return "IS FALSE";
    case IsValue::Unknown:
      return "IS UNKNOWN";
  }
  return "IS NULL";
}

std::string conditionSql(const CatalogTable& table, const Filter& filter, const std::string& alias,
                         SqlParams& params) {
  const CatalogColumn& column = requireColumn(table, filter.column, &filter.origin);
  const std::string target = alias + "." + common::quotedIdentifier(column.name);
  switch (filter.op) {
    case FilterOp::In: {
      if (filter.values.empty()) return "false";  // in.() matches no row
      std::string list;
      for (const std::string& value : filter.values) {
        if (!list.empty()) list += ", ";
        list += params.add(value);
      }
      return target + " IN (" + list + ")";
    }
    case FilterOp::Is:
      return target + " " + std::string(isSql(filter.is));
    case FilterOp::Fts:
    case FilterOp::Plfts:
    case FilterOp::Phfts:
    case FilterOp::Wfts: {
      // A language is a bound value too, read as a text search configuration.
      std::string language =
          filter.language.empty() ? "" : params.add(filter.language) + "::regconfig, ";
      // A text column is searched as PostgREST does: through to_tsvector.
      std::string document =
          column.type_oid == kTsvectorOid ? target : "to_tsvector(" + language + target + ")";
      return document + " @@ " + std::string(tsqueryFunction(filter.op)) + "(" + language +
             params.add(filter.value) + ")";
    }
    default:
      return target + " " + std::string(comparison(filter.op)) + " " + params.add(filter.value);
  }
}

std::string filterSql(const CatalogTable& table, const Filter& filter, const std::string& alias,
                      SqlParams& params) {
  std::string sql;
  if (filter.kind == FilterKind::Condition) {
    sql = conditionSql(table, filter, alias, params);
  } else {
    const char* joiner = filter.kind == FilterKind::And ? " AND " : " OR ";
    for (const Filter& child : filter.children) {
      if (!sql.empty()) sql += joiner;
      sql += filterSql(table, child, alias, params);
    }
  }
  return filter.negated ? "NOT (" + sql + ")" : "(" + sql + ")";
}

}  // namespace

std::string whereSql(const CatalogTable& table, const std::vector<Filter>& filters,
                     const std::string& alias, SqlParams& params) {
  std::string sql;
  for (const Filter& filter : filters) {
    sql += sql.empty() ? "WHERE " : " AND ";
    sql += filterSql(table, filter, alias, params);
  }
  return sql;
}

std::string orderSql(const CatalogTable& table, const std::vector<OrderTerm>& order,
                     const std::string& alias) {
  std::string sql;
  for (const OrderTerm& term : order) {
    const CatalogColumn& column = requireColumn(table, term.column, &term.origin);
    sql += sql.empty() ? "ORDER BY " : ", ";
    sql +=
        alias + "." + common::quotedIdentifier(column.name) + (term.descending ? " DESC" : " ASC");
    if (term.nulls == NullsOrder::First) sql += " NULLS FIRST";
    if (term.nulls == NullsOrder::Last) sql += " NULLS LAST";
  }
  return sql;
}

}  // namespace berth::sqlconsole
