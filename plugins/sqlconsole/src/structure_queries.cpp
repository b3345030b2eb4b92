#include "structure_queries.hpp"

#include <cstdlib>

#include <nlohmann/json.hpp>

namespace berth::sqlconsole {
namespace {

constexpr const char* kViews = R"SQL(
SELECT c.relname, pg_get_viewdef(c.oid)
FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')
ORDER BY c.relname
)SQL";

// indkey is an int2vector (subscripts from 0); 0 in it marks an expression, which
// pg_get_indexdef(index, column, true) prints.
constexpr const char* kIndexes = R"SQL(
SELECT i.relname, t.relname, x.indisunique,
       (SELECT coalesce(json_agg(CASE WHEN x.indkey[k - 1] = 0
                                      THEN pg_get_indexdef(x.indexrelid, k, true)
                                      ELSE (SELECT a.attname::text FROM pg_attribute a
                                            WHERE a.attrelid = x.indrelid
                                              AND a.attnum = x.indkey[k - 1]) END
                                 ORDER BY k), '[]')::text
        FROM generate_series(1, x.indnkeyatts::int) AS k)
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
WHERE t.relnamespace = 'public'::regnamespace
  AND NOT i.relispartition
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                  WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid
                    AND c.contype IN ('p', 'u', 'x'))
ORDER BY t.relname, i.relname
)SQL";

constexpr const char* kTables = R"SQL(
SELECT c.relname FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
ORDER BY c.relname
)SQL";

std::string text(const PgResult& result, int row, int column) {
  return std::string(PQgetvalue(result.get(), row, column),
                     static_cast<size_t>(PQgetlength(result.get(), row, column)));
}

}  // namespace

std::vector<ViewRecord> loadViews(PgSession& session) {
  PgResult result = session.exec(kViews);
  std::vector<ViewRecord> views;
  for (int row = 0; row < PQntuples(result.get()); ++row)
    views.push_back({text(result, row, 0), text(result, row, 1)});
  return views;
}

std::vector<IndexRecord> loadIndexes(PgSession& session) {
  PgResult result = session.exec(kIndexes);
  std::vector<IndexRecord> indexes;
  for (int row = 0; row < PQntuples(result.get()); ++row) {
    IndexRecord index{text(result, row, 0), text(result, row, 1), text(result, row, 2) == "t", {}};
    for (const auto& column : nlohmann::json::parse(text(result, row, 3)))
      index.columns.push_back(column.is_string() ? column.get<std::string>() : column.dump());
    indexes.push_back(std::move(index));
  }
  return indexes;
}

int64_t databaseSize(PgSession& session) {
  PgResult result = session.exec("SELECT pg_database_size(current_database())");
  return std::strtoll(PQgetvalue(result.get(), 0, 0), nullptr, 10);
}

std::vector<std::string> publicTableNames(PgSession& session) {
  PgResult result = session.exec(kTables);
  std::vector<std::string> names;
  for (int row = 0; row < PQntuples(result.get()); ++row) names.push_back(text(result, row, 0));
  return names;
}

}  // namespace berth::sqlconsole
