// Reading the results of a command sent with PQsend* without trusting the server alone to stop
// it: the user may have turned statement_timeout off (SET in a /batch), so the worker thread
// keeps its own clock and cancels the statement itself when the clock runs out.
#pragma once
#include <libpq-fe.h>

#include <chrono>

#include "pg_session.hpp"

namespace berth::sqlconsole {

using Clock = std::chrono::steady_clock;

// When to give up on the statement in flight. never() waits as long as it takes.
struct Deadline {
  Clock::time_point cancelAt = Clock::time_point::max();
  static Deadline never() { return {}; }
  static Deadline after(std::chrono::milliseconds limit) {
    if (limit.count() <= 0) return never();
    return {Clock::now() + limit};
  }
};

// The next result of what was sent on conn, or a null PgResult when there is none left (as
// PQgetResult). Past the deadline it asks the server to cancel the statement (the result is then
// an error with SQLSTATE 57014, as from statement_timeout); if the server still does not answer
// 10 seconds later, it throws PgError (SQLSTATE 08006) and the connection is not to be reused.
// Failed results are returned as they are, not thrown: callers drain to the end first.
PgResult nextResult(PGconn* conn, Deadline& deadline);

// Reads every remaining result of what was sent; returns the last one with data or status, and
// throws the first error (PgError) once the connection is idle again.
PgResult finishCommand(PGconn* conn, Deadline& deadline);

// An error result as PgError (PostgreSQL's primary message and SQLSTATE).
PgError errorOf(PGconn* conn, const PGresult* result);

// True for the failed result statuses.
bool failed(const PGresult* result);

}  // namespace berth::sqlconsole
