#include "export_schema.hpp"

#include <nlohmann/json.hpp>

namespace berth::sqlconsole {
namespace {

constexpr const char* kTables = R"SQL(
SELECT coalesce(json_agg(json_build_object(
  'name', c.relname,
  'columns', (
    SELECT coalesce(json_agg(json_build_object(
      'name', a.attname,
      'type', (CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END)::int8,
      'typmod', CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END,
      'enum', coalesce(bt.typtype = 'e', t.typtype = 'e'),
      'array', coalesce(bt.typcategory = 'A', t.typcategory = 'A'),
      'not_null', a.attnotnull,
      'default', CASE WHEN a.attgenerated = '' THEN pg_get_expr(d.adbin, d.adrelid) END,
      'identity', a.attidentity <> ''
    ) ORDER BY a.attnum), '[]')
    FROM pg_attribute a
    JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
  'indexes', (
    SELECT coalesce(json_agg(json_build_object(
      'name', i.relname,
      'unique', x.indisunique,
      'primary', x.indisprimary,
      'columns', (SELECT json_agg(a.attname ORDER BY k.n)
                  FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                  JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
                  WHERE k.n <= x.indnkeyatts)
    ) ORDER BY x.indisprimary DESC, i.relname), '[]')
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    WHERE x.indrelid = c.oid AND x.indpred IS NULL AND x.indexprs IS NULL AND x.indisvalid),
  'foreign_keys', (
    SELECT coalesce(json_agg(json_build_object(
      'name', k.conname,
      'table', f.relname,
      'columns', (SELECT json_agg(a.attname ORDER BY u.i)
                  FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
                  JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n),
      'to_columns', (SELECT json_agg(a.attname ORDER BY u.i)
                     FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
                     JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n),
      'on_delete', k.confdeltype,
      'on_update', k.confupdtype
    ) ORDER BY k.conname), '[]')
    FROM pg_constraint k
    JOIN pg_class f ON f.oid = k.confrelid
    WHERE k.conrelid = c.oid AND k.contype = 'f' AND f.relnamespace = 'public'::regnamespace)
) ORDER BY c.relname), '[]')::text
FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
)SQL";

std::vector<std::string> strings(const nlohmann::json& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& item : list) out.push_back(item.get<std::string>());
  return out;
}

char code(const nlohmann::json& value) {
  const std::string text = value.is_string() ? value.get<std::string>() : "a";
  return text.empty() ? 'a' : text[0];
}

}  // namespace

const ExportColumn* ExportTable::column(const std::string& wanted) const {
  for (const ExportColumn& c : columns)
    if (c.name == wanted) return &c;
  return nullptr;
}

std::vector<ExportTable> loadExportTables(PgSession& session) {
  PgResult result = session.exec(kTables);
  const nlohmann::json list = nlohmann::json::parse(PQgetvalue(result.get(), 0, 0));
  std::vector<ExportTable> tables;
  for (const auto& t : list) {
    ExportTable table;
    table.name = t.at("name").get<std::string>();
    for (const auto& c : t.at("columns")) {
      ExportColumn column;
      column.name = c.at("name").get<std::string>();
      column.typeOid = c.at("type").get<uint32_t>();
      column.typmod = c.at("typmod").get<int32_t>();
      column.isEnum = c.value("enum", false);
      column.isArray = c.value("array", false);
      column.notNull = c.at("not_null").get<bool>();
      if (c.at("default").is_string()) column.defaultExpr = c.at("default").get<std::string>();
      column.identity = c.value("identity", false);
      table.columns.push_back(std::move(column));
    }
    for (const auto& i : t.at("indexes")) {
      ExportIndex index{i.at("name").get<std::string>(), i.at("unique").get<bool>(),
                        i.at("primary").get<bool>(), strings(i.at("columns"))};
      if (!index.columns.empty()) table.indexes.push_back(std::move(index));
    }
    for (const auto& k : t.at("foreign_keys")) {
      table.foreignKeys.push_back({k.at("name").get<std::string>(), strings(k.at("columns")),
                                   k.at("table").get<std::string>(), strings(k.at("to_columns")),
                                   code(k.at("on_delete")), code(k.at("on_update"))});
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

}  // namespace berth::sqlconsole
