// A cheap way to tell whether the catalogue of some tables changed: one short text built from
// the system catalogue rows the rows SQL depends on (the relations, their columns, their
// primary and foreign keys), each with its row version (xmin). Any CREATE, DROP, ALTER or
// RENAME that matters writes one of those rows, so the text changes; an unrelated change (a
// row inserted, an index made) leaves it alone. Reading it costs a fraction of reading the
// catalogue (it is a prepared statement on the session), which is what lets the rows routes
// keep a catalogue between requests.
#pragma once
#include <string>
#include <vector>

#include "pg_session.hpp"
#include "rest_sql.hpp"

namespace berth::sqlconsole {

// The fingerprint of the named relations of `public` (names not found count as absent).
//
// The same statement puts the session's statement_timeout back to `statement_timeout_ms`: a
// view or trigger of the project's own may have called set_config on this pooled connection,
// and no statement of the rows routes may run without the limit. (Reads and writes also put it
// back after themselves, below and in rows_execution.hpp, since a trusted catalogue skips this
// check.)
std::string catalogFingerprint(PgSession& session, const std::vector<std::string>& tables,
                               int statement_timeout_ms);

// Only the statement_timeout part: run after a write, whose triggers may have changed it.
SqlStatement statementTimeoutReset(int statement_timeout_ms);

// `read` (one row-returning statement) as one statement that puts statement_timeout back when
// the read is done, for a read that trusts a kept catalogue without a check: a view of the
// project's may call set_config, and the next request on the pooled connection must find the
// limit in place. The read's columns come first, as they were. The reset is the outer query's
// last column, evaluated after the read's rows are all made (the read is an aggregate, which
// the planner never pulls up into the outer query); when the read fails, the transaction's
// rollback undoes any set_config it made. So each read is one statement and one transaction.
SqlStatement withStatementTimeoutReset(const SqlStatement& read, int statement_timeout_ms);

// The same as a statement to run (prepared) beside another, and the fingerprint its result holds.
SqlStatement fingerprintStatement(const std::vector<std::string>& tables, int statement_timeout_ms);
std::string fingerprintOf(const PgResult& result);

}  // namespace berth::sqlconsole
