// What the database says the `public` schema holds: tables (and views) with their columns,
// primary keys and declared foreign keys, read in one round trip. The rows grammar checks every
// name against it and /tables renders it (docs/openapi.yaml, the Table schema).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pg_session.hpp"

namespace berth::sqlconsole {

struct CatalogColumn {
  std::string name;
  std::string type;  // as the database prints it: format_type(atttypid, atttypmod)
  uint32_t type_oid = 0;
  bool not_null = false;
  bool primary_key = false;
  std::optional<std::string> default_value;  // pg_get_expr of the default, null when none
};

// A declared foreign key. Single-column keys fill column/to; every key also fills the lists.
struct CatalogLink {
  std::string constraint;  // the constraint's name (PostgREST's embedding hint)
  std::string column;      // first column in this table
  std::string table;       // referenced table
  std::string to;          // first referenced column
  std::vector<std::string> columns;
  std::vector<std::string> to_columns;
  std::string on_delete;  // CASCADE, SET NULL, SET DEFAULT, or "" for NO ACTION / RESTRICT
  std::string on_update;
};

enum class RelationKind { Table, View, MaterializedView };

struct CatalogTable {
  std::string name;
  RelationKind kind = RelationKind::Table;
  std::vector<CatalogColumn> columns;  // in column order
  std::vector<CatalogLink> links;      // foreign keys declared on this table

  const CatalogColumn* column(std::string_view name) const;
};

struct Catalog {
  std::vector<CatalogTable> tables;  // ordered by name; tables, views and materialized views
  // Type names asked about in CatalogScope::types (as written, e.g. "TEXT", "int4[]") mapped to
  // the type as the database prints it ("text", "integer[]"). A name that is not a type of the
  // database is absent.
  std::map<std::string, std::string> types;

  const CatalogTable* table(std::string_view name) const;
  // Names of the ordinary (and partitioned) tables only, in order.
  std::vector<std::string> tableNames() const;
  // The database's name for a type asked about, or nullptr.
  const std::string* type(std::string_view written) const;
};

// What to read: a rows request needs only the tables it names (its own and the ones it embeds)
// and the types it casts to, not the whole schema.
struct CatalogScope {
  bool all_tables = true;
  std::vector<std::string> tables;  // when !all_tables: only these (names not found are absent)
  std::vector<std::string> types;   // type names to resolve into Catalog::types
};

// One query against pg_catalog on this session (the project's role sees its own schema).
Catalog loadCatalog(PgSession& session);
Catalog loadCatalog(PgSession& session, const CatalogScope& scope);

}  // namespace berth::sqlconsole
