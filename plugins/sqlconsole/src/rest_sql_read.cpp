// A page of rows as one statement: the total and the page come from one snapshot, in one round
// trip. Shape:
//   SELECT CASE WHEN count(*) < $n AND (count(*) > 0 OR $m = 0) THEN $m + count(*)
//               ELSE (SELECT count(*) FROM "public"."t" AS t0 WHERE ...) END AS total,
//          coalesce(json_agg(_r.*), '[]') AS rows, count(*) AS returned
//   FROM (SELECT <select list> FROM "public"."t" AS t0 WHERE ... ORDER BY ... LIMIT $n OFFSET $m)
//   AS _r
// A page shorter than the limit that is not past the end ends the result, so the total is the
// offset plus the page: the count runs only when the page is full or empty past the start.
// PostgreSQL runs the count's sub-select only when the CASE reaches it, so a by-id read or the
// last page of a listing never scans the filter twice.
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

  std::string total = "NULL::bigint";
  if (options.count) {
    const std::string n = limit + "::bigint", m = offset + "::bigint";
    total = "CASE WHEN count(*) < " + n + " AND (count(*) > 0 OR " + m + " = 0) THEN " + m +
            " + count(*) ELSE (SELECT count(*)" + from + where + ") END";
  }
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
