// A page of rows as one statement: the total and the page come from one snapshot, in one round
// trip. Shape:
//   SELECT (SELECT count(*) FROM "public"."t" AS t0 WHERE ...) AS total,
//          coalesce(json_agg(_r.*), '[]') AS rows, count(*) AS returned
//   FROM (SELECT <select list> FROM "public"."t" AS t0 WHERE ... ORDER BY ... LIMIT $n OFFSET $m)
//   AS _r
// The WHERE text appears twice with the same placeholders, so its values are bound once.
#include "rest_sql_parts.hpp"

namespace berth::sqlconsole {

SqlStatement buildRead(const Catalog& catalog, std::string_view table_name, const RestQuery& query,
                       const ReadOptions& options) {
  const CatalogTable& table = requireTable(catalog, table_name);
  AliasCounter aliases;
  const std::string alias = aliases.nextTable();
  SqlParams params;
  const std::string from = " FROM " + qualifiedName(table) + " AS " + alias;
  std::string where = whereSql(table, query.filters, alias, params);
  if (!where.empty()) where = " " + where;
  std::string order = orderSql(table, query.order, alias);
  if (!order.empty()) order = " " + order;
  std::string columns = selectListSql(catalog, table, alias, query.select, aliases);
  std::string limit = params.add(std::to_string(query.limit));
  std::string offset = params.add(std::to_string(query.offset));

  std::string total = options.count ? "(SELECT count(*)" + from + where + ")" : "NULL::bigint";
  SqlStatement statement;
  statement.text = "SELECT " + total +
                   " AS total, coalesce(json_agg(_r.*), '[]') AS rows, count(*) AS returned "
                   "FROM (SELECT " +
                   columns + from + where + order + " LIMIT " + limit + "::bigint OFFSET " +
                   offset + "::bigint) AS _r";
  statement.params = params.take();
  return statement;
}

}  // namespace berth::sqlconsole
