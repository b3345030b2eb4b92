// Reading a whole table for an export, one row at a time: single-row mode, so a table of any
// size passes through without being held in memory; the export's transaction gives every table
// the same snapshot.
#pragma once
#include <libpq-fe.h>

#include <functional>
#include <string>
#include <vector>

#include "pg_session.hpp"

namespace berth::sqlconsole {

// Opens the export's transaction on session: REPEATABLE READ, READ ONLY, no statement timeout
// (a large table takes as long as it takes), and the output settings the writers expect
// (DateStyle ISO, TimeZone UTC, bytea_output hex, IntervalStyle postgres, exact floats), and
// row_security off: no row-level security policy runs during an export (a table that forces
// its policies on its owner is refused by the database, naming it).
void beginExport(PgSession& session);
// Ends it (COMMIT of a read-only transaction).
void endExport(PgSession& session);

// Runs SELECT <columns> FROM public.<table> and calls row(result) for each row (the row is row
// 0 of result). Throws PgError when the database refuses.
void forEachRow(PgSession& session, const std::string& table,
                const std::vector<std::string>& columns,
                const std::function<void(const PGresult*)>& row);

}  // namespace berth::sqlconsole
