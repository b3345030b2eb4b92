// What the mysql and json exports need to know of the project's tables, read in one catalogue
// query: the ordinary and partitioned tables of `public` (not the partitions, whose rows the
// partitioned table already returns), their columns with base types (a domain's base type),
// keys, plain indexes and foreign keys.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pg_session.hpp"

namespace berth::sqlconsole {

struct ExportColumn {
  std::string name;
  uint32_t typeOid = 0;  // the base type (domains resolved)
  int32_t typmod = -1;
  bool isEnum = false;
  bool isArray = false;
  bool notNull = false;
  std::optional<std::string> defaultExpr;  // pg_get_expr; none for generated columns
  bool identity = false;                   // GENERATED ... AS IDENTITY
};

struct ExportIndex {
  std::string name;
  bool unique = false;
  bool primary = false;
  std::vector<std::string> columns;  // plain columns only (see loadExportTables)
};

struct ExportForeignKey {
  std::string name;
  std::vector<std::string> columns;
  std::string table;
  std::vector<std::string> toColumns;
  char onDelete = 'a';  // pg_constraint.confdeltype: a, r, c, n, d
  char onUpdate = 'a';
};

struct ExportTable {
  std::string name;
  std::vector<ExportColumn> columns;
  std::vector<ExportIndex> indexes;  // the primary key first, if any
  std::vector<ExportForeignKey> foreignKeys;

  const ExportColumn* column(const std::string& name) const;
};

// Tables of public by name. Indexes listed are those over plain columns without a WHERE (an
// expression or partial index has no MySQL form); primary keys and unique constraints are among
// them.
std::vector<ExportTable> loadExportTables(PgSession& session);

}  // namespace berth::sqlconsole
