// The mysql (mariadb) export: a script MariaDB 10.11 (and MySQL 8) loads, written as rows stream
// from the database. One CREATE TABLE per table of public (types mapped, identifiers in
// backticks, primary and unique keys, plain indexes, foreign keys), then its rows as multi-row
// INSERTs of at most about 1 MB each.
#pragma once
#include <string>

#include "export_file.hpp"
#include "pg_session.hpp"

namespace berth::sqlconsole {

// Writes the dump of session's database to out. `title` names it in the header comment.
void writeMysqlExport(PgSession& session, ExportFile& out, const std::string& title);

}  // namespace berth::sqlconsole
