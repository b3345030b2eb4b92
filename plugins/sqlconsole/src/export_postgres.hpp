// The postgres (sql) export: PostgreSQL's own pg_dump, run against the project's database as the
// project's own role, writing a plain SQL script (schema: tables, sequences, constraints,
// indexes, views, functions; then the data as COPY blocks) straight to the export file, gzip
// compressed by pg_dump itself when asked. The output loads with psql into an empty database,
// and through /import.
#pragma once
#include <atomic>
#include <string>

namespace berth::sqlconsole {

struct PgDumpJob {
  std::string url;  // the project's libpq URL (projects.directory.v1 `database`)
  std::string outputPath;
  bool gzip = false;
  int serverVersion = 0;  // PQserverVersion of the project's cluster, to pick a pg_dump
  // pg_dump's application_name, so its session can be found in pg_stat_activity
  std::string applicationName = "berth-export";
  // When it becomes true, pg_dump is killed (and dumpPostgres throws).
  const std::atomic<bool>* stop = nullptr;
};

// The pg_dump for a server: /usr/lib/postgresql/<major>/bin/pg_dump, else the newest one there
// that is not older than the server, else "pg_dump" on PATH (empty when there is none).
std::string findPgDump(int server_version);

// Runs pg_dump (which sets row_security = off: a table whose policies would apply to the
// project's role makes it fail, naming the table, rather than run them). The password goes to it in
// its environment (PGPASSWORD), never on its command line where other users could read it. Throws
// std::runtime_error with pg_dump's own message when it fails.
void dumpPostgres(const PgDumpJob& job);

}  // namespace berth::sqlconsole
