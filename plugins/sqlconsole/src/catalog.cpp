// The catalogue in one round trip: pg_catalog is asked for one JSON document holding every
// relation of `public` in scope with its columns and foreign keys, plus the cast types a rows
// request names. Building the document in the database keeps it to one statement however many
// tables there are (no query per table), and the JSON is parsed once here.
#include "catalog.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace berth::sqlconsole {
namespace {

// $1: JSON array of table names, or NULL for all. $2: JSON array of {written, base, dims}.
constexpr std::string_view kCatalogQuery = R"SQL(
WITH rels AS (
  SELECT c.oid, c.relname, c.relkind
  FROM pg_class c
  WHERE c.relnamespace = 'public'::regnamespace
    AND c.relkind IN ('r', 'p', 'v', 'm')
    AND ($1::json IS NULL OR c.relname IN (SELECT json_array_elements_text($1::json)))
)
SELECT json_build_object(
  'tables', coalesce((
    SELECT json_agg(json_build_object(
      'name', r.relname,
      'kind', r.relkind,
      'columns', (
        SELECT coalesce(json_agg(json_build_object(
          'name', a.attname,
          'type', format_type(a.atttypid, a.atttypmod),
          'oid', a.atttypid::bigint,
          'not_null', a.attnotnull,
          'pk', EXISTS (SELECT 1 FROM pg_constraint p
                        WHERE p.conrelid = r.oid AND p.contype = 'p' AND a.attnum = ANY (p.conkey)),
          'default', CASE WHEN a.attgenerated = '' THEN pg_get_expr(d.adbin, d.adrelid) END
        ) ORDER BY a.attnum), '[]')
        FROM pg_attribute a
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped),
      'links', (
        SELECT coalesce(json_agg(json_build_object(
          'constraint', k.conname,
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
        WHERE k.conrelid = r.oid AND k.contype = 'f'
          AND f.relnamespace = 'public'::regnamespace)
    ) ORDER BY r.relname)
    FROM rels r), '[]'),
  'types', coalesce((
    SELECT json_object_agg(w.written, t.name || repeat('[]', w.dims))
    FROM (SELECT x->>'written' AS written, x->>'base' AS base, (x->>'dims')::int AS dims
          FROM json_array_elements($2::json) x) w
    CROSS JOIN LATERAL (
      SELECT format_type(ty.oid, NULL) AS name
      FROM pg_type ty
      WHERE ty.typname = w.base AND pg_type_is_visible(ty.oid)
        AND ty.typisdefined AND ty.typtype <> 'p'
        AND (w.dims = 0 OR ty.typarray <> 0)
      LIMIT 1) t), '{}')
)
)SQL";

std::string action(const std::string& code) {
  if (code == "c") return "CASCADE";
  if (code == "n") return "SET NULL";
  if (code == "d") return "SET DEFAULT";
  return "";  // a: NO ACTION, r: RESTRICT
}

RelationKind kindOf(const std::string& code) {
  if (code == "v") return RelationKind::View;
  if (code == "m") return RelationKind::MaterializedView;
  return RelationKind::Table;
}

std::vector<std::string> strings(const nlohmann::json& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& item : list) out.push_back(item.get<std::string>());
  return out;
}

// SQL spells some types with names pg_type does not have (integer is int4). Unquoted type
// names fold to lower case, as in SQL.
std::string typeNameInCatalog(std::string base) {
  std::transform(base.begin(), base.end(), base.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::pair<std::string_view, std::string_view> kAliases[] = {
      {"integer", "int4"}, {"int", "int4"},         {"smallint", "int2"}, {"bigint", "int8"},
      {"real", "float4"},  {"float", "float8"},     {"boolean", "bool"},  {"decimal", "numeric"},
      {"dec", "numeric"},  {"character", "bpchar"}, {"char", "bpchar"},
  };
  for (const auto& [alias, name] : kAliases)
    if (base == alias) return std::string(name);
  return base;
}

nlohmann::json typeRequests(const std::vector<std::string>& types) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& written : types) {
    std::string base = written;
    int dims = 0;
    while (base.size() > 2 && base.compare(base.size() - 2, 2, "[]") == 0) {
      base.resize(base.size() - 2);
      ++dims;
    }
    out.push_back({{"written", written}, {"base", typeNameInCatalog(base)}, {"dims", dims}});
  }
  return out;
}

}  // namespace

const CatalogColumn* CatalogTable::column(std::string_view name) const {
  for (const CatalogColumn& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

const CatalogTable* Catalog::table(std::string_view name) const {
  for (const CatalogTable& t : tables)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> Catalog::tableNames() const {
  std::vector<std::string> names;
  for (const CatalogTable& t : tables)
    if (t.kind == RelationKind::Table) names.push_back(t.name);
  return names;
}

const std::string* Catalog::type(std::string_view written) const {
  auto it = types.find(std::string(written));
  return it == types.end() ? nullptr : &it->second;
}

Catalog loadCatalog(PgSession& session) {
  return loadCatalog(session, CatalogScope{});
}

Catalog loadCatalog(PgSession& session, const CatalogScope& scope) {
  PgParams params;
  if (scope.all_tables)
    params.emplace_back(std::nullopt);
  else
    params.emplace_back(nlohmann::json(scope.tables).dump());
  params.emplace_back(typeRequests(scope.types).dump());
  PgResult result = session.exec(kCatalogQuery, params);
  nlohmann::json doc = nlohmann::json::parse(PQgetvalue(result.get(), 0, 0));

  Catalog catalog;
  for (const auto& t : doc.at("tables")) {
    CatalogTable table;
    table.name = t.at("name").get<std::string>();
    table.kind = kindOf(t.at("kind").get<std::string>());
    for (const auto& c : t.at("columns")) {
      CatalogColumn column;
      column.name = c.at("name").get<std::string>();
      column.type = c.at("type").get<std::string>();
      column.type_oid = c.at("oid").get<uint32_t>();
      column.not_null = c.at("not_null").get<bool>();
      column.primary_key = c.at("pk").get<bool>();
      if (c.at("default").is_string()) column.default_value = c.at("default").get<std::string>();
      table.columns.push_back(std::move(column));
    }
    for (const auto& l : t.at("links")) {
      CatalogLink link;
      link.constraint = l.at("constraint").get<std::string>();
      link.table = l.at("table").get<std::string>();
      link.columns = strings(l.at("columns"));
      link.to_columns = strings(l.at("to_columns"));
      if (!link.columns.empty()) link.column = link.columns.front();
      if (!link.to_columns.empty()) link.to = link.to_columns.front();
      link.on_delete = action(l.at("on_delete").get<std::string>());
      link.on_update = action(l.at("on_update").get<std::string>());
      table.links.push_back(std::move(link));
    }
    catalog.tables.push_back(std::move(table));
  }
  for (const auto& [written, name] : doc.at("types").items())
    catalog.types[written] = name.get<std::string>();
  return catalog;
}

}  // namespace berth::sqlconsole
