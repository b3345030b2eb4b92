// One libpq connection with the few calls the console needs: bound parameters always, errors
// as PgError with PostgreSQL's own message and SQLSTATE. Used by the plugin (on a project's
// database, as the project's role) and by the tests.
#pragma once
#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

  // "name" quoted as an identifier by libpq.
  std::string quoteIdentifier(std::string_view name) const;

  // Healthy and outside any transaction: safe to hand to the next request.
  bool reusable() const;
  PGconn* raw() const noexcept { return conn_.get(); }

 private:
  struct ConnFree {
    void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
  };
  explicit PgSession(PGconn* conn) : conn_(conn) {}
  std::unique_ptr<PGconn, ConnFree> conn_;
};

// Throws PgError for a failed result (fatal error, bad response, no result); returns it as is
// otherwise. conn is asked for the message when there is no result at all.
PgResult checkResult(PGconn* conn, PGresult* result);

}  // namespace berth::sqlconsole
