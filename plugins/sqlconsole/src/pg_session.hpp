// One libpq connection with the few calls the console needs: bound parameters always, errors
// as PgError with PostgreSQL's own message and SQLSTATE. Used by the plugin (on a project's
// database, as the project's role) and by the tests.
#pragma once
#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "berth/common/pg_connection.hpp"

namespace berth::sqlconsole {

struct PgResultFree {
  void operator()(PGresult* result) const noexcept { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, PgResultFree>;

// A statement the database refused (or a connection failure). what() is the primary message as
// PostgreSQL wrote it, without "ERROR:" and without a trailing newline.
class PgError : public std::runtime_error {
 public:
  PgError(std::string message, std::string sqlstate, std::string detail = {})
      : std::runtime_error(std::move(message)),
        sqlstate_(std::move(sqlstate)),
        detail_(std::move(detail)) {}
  const std::string& sqlstate() const noexcept { return sqlstate_; }
  const std::string& detail() const noexcept { return detail_; }
  bool isQueryCanceled() const noexcept { return sqlstate_ == "57014"; }
  // Lost connection, admin shutdown and the like: the session is no good any more.
  bool isConnectionProblem() const noexcept {
    return sqlstate_.empty() || sqlstate_.rfind("08", 0) == 0 || sqlstate_.rfind("57P", 0) == 0;
  }

 private:
  std::string sqlstate_;
  std::string detail_;
};

// A bound parameter: text, or SQL NULL.
using PgParam = std::optional<std::string>;
using PgParams = std::vector<PgParam>;

// What one statement of a pipeline gave: a result, or the database's refusal.
struct PgOutcome {
  PgResult result;
  std::optional<PgError> error;
};

class PgSession {
 public:
  // Connects with a libpq URL; `options` are extra server settings sent at start-up (they become
  // the session's reset values), e.g. {{"statement_timeout", "15000"}}.
  // Throws PgError (empty SQLSTATE) when the connection fails.
  static PgSession connect(const std::string& url,
                           const std::vector<std::pair<std::string, std::string>>& options = {},
                           std::chrono::seconds connect_timeout = std::chrono::seconds(10));

  PgSession(PgSession&&) noexcept = default;
  PgSession& operator=(PgSession&&) noexcept = default;

  // One statement with bound text parameters (PQexecParams). Returns the result of a command or
  // a row-returning statement; throws PgError on a refusal.
  PgResult exec(std::string_view sql, const PgParams& params = {});
  // Statements without parameters (PQexec): several may be separated by semicolons.
  PgResult execSimple(std::string_view sql);

  // One statement with bound text parameters, prepared on this session the first time its
  // text is run and kept by its text: later runs skip parsing and planning, which cost the
  // database three times what a by-id read itself does. At most kMaxPrepared are kept; past
  // that they are all deallocated and prepared again as they come (one extra round trip).
  // A statement the session lost (DEALLOCATE by the project's own SQL) is prepared again.
  PgResult execPrepared(const std::string& sql, const PgParams& params);
  // Two prepared statements sent together, each in its own transaction (a Sync after each),
  // in one round trip (libpq's pipeline mode); the second runs whatever the first gave.
  // Throws PgError only when the connection fails; refusals come back in the outcomes. A
  // statement the session lost is prepared again and the pair sent once more (`retried`).
  std::pair<PgOutcome, PgOutcome> execPreparedPair(const std::string& first_sql,
                                                   const PgParams& first_params,
                                                   const std::string& second_sql,
                                                   const PgParams& second_params,
                                                   bool retried = false);
  // A statement prepared on this session before, in three steps, for a caller that must not
  // wait long (a core server thread): sendPrepared sends it, or returns false and sends nothing
  // when it has not been prepared here; answered(wait) tells whether its answer came within
  // `wait`; takeResult waits for the answer and returns it (PgError on a refusal, as
  // execPrepared). A sent statement's result must be taken before the session runs anything
  // else.
  bool sendPrepared(const std::string& sql, const PgParams& params);
  bool answered(std::chrono::microseconds wait);
  PgResult takeResult();

  // DISCARD ALL: session state back to its start values; prepared statements forgotten.
  void discardAll();
  static constexpr size_t kMaxPrepared = 200;

  // Healthy and outside any transaction: safe to hand to the next request.
  bool reusable() const;
  // Not reusable from now on, whatever its state (the caller cannot vouch for it).
  void markBroken() noexcept { broken_ = true; }
  PGconn* raw() const noexcept { return conn_.get(); }
  // Statements kept prepared on this session (for tests).
  size_t preparedCount() const noexcept { return prepared_.size(); }

 private:
  explicit PgSession(common::PgConnection conn) : conn_(std::move(conn)) {}
  // The name `sql` is prepared under on this session, preparing it when it is not yet.
  const std::string& preparedName(const std::string& sql);
  common::PgConnection conn_;
  std::unordered_map<std::string, std::string> prepared_;  // statement text -> name
  uint64_t next_name_ = 0;
  bool broken_ = false;    // a pipeline failed half way: never reused
  std::string in_flight_;  // the text of the statement sendPrepared sent
};

// Throws PgError for a failed result (fatal error, bad response, no result); returns it as is
// otherwise. conn is asked for the message when there is no result at all.
PgResult checkResult(PGconn* conn, PGresult* result);

}  // namespace berth::sqlconsole
