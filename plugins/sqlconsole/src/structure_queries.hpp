// What /views, /indexes, /backup and the table lists of /sql and /import read from a project's
// database: one catalogue query per route, never one per table. Only the `public` schema counts
// (docs/openapi.yaml: the Table, View and Index schemas).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pg_session.hpp"

namespace berth::sqlconsole {

struct ViewRecord {
  std::string name;
  std::string sql;  // pg_get_viewdef: the definition as the database prints it
};

struct IndexRecord {
  std::string name;
  std::string table;
  bool unique = false;
  // Key columns in order: a column's name, or for an expression its text as the database
  // prints it ("lower(email)").
  std::vector<std::string> columns;
};

// Views and materialized views of public, by name.
std::vector<ViewRecord> loadViews(PgSession& session);

// Indexes made with CREATE INDEX on tables of public, by table then name. Indexes that back a
// primary key, unique or exclusion constraint, and the per-partition copies of an index on a
// partitioned table, are left out.
std::vector<IndexRecord> loadIndexes(PgSession& session);

// pg_database_size of the session's database.
int64_t databaseSize(PgSession& session);

// Ordinary and partitioned tables of public, by name (the same set /tables lists).
std::vector<std::string> publicTableNames(PgSession& session);

}  // namespace berth::sqlconsole
