// How what the project's database says becomes the API's answer, the same for every SQL route:
// a refused statement is a 400 in the database's own words (docs/openapi.yaml, each SQL route's
// 400), a statement stopped for taking too long is the sentence of its /query rule 3, a lost
// connection is a 503.
#pragma once
#include <berth/plugin.hpp>

#include <string>
#include <string_view>

#include "pg_session.hpp"
#include "project_connections.hpp"
#include "sql_parse.hpp"

namespace berth::sqlconsole {

inline constexpr std::string_view kTookTooLong = "that query took too long and was stopped";
inline constexpr std::string_view kNothingToRun = "there is nothing to run";

// The answer for a PgError; prefix (e.g. "statement 3: ") goes before the message of a 400.
// A connection problem also marks the lease so the session is not reused.
inline berth::Error databaseError(const PgError& error, ProjectConnections::Lease& lease,
                                  std::string_view prefix = {}) {
  if (error.isConnectionProblem()) {
    lease.discard();
    return berth::Error(503, "could not reach the project's database");
  }
  if (error.isQueryCanceled())
    return berth::Error::badRequest(std::string(prefix) + std::string(kTookTooLong));
  return berth::Error::badRequest(std::string(prefix) + error.what());
}

// PostgreSQL's parser message, with the line when the SQL has several.
inline std::string syntaxMessage(const SqlSyntaxError& error, std::string_view sql) {
  std::string message = error.what();
  if (sql.find('\n') != std::string_view::npos)
    message += " (line " + std::to_string(error.line()) + ")";
  return message;
}

}  // namespace berth::sqlconsole
