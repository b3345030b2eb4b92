// The control-plane connection pool (libpq). Broken connections are replaced: the request that
// hits one gets DbUnavailable (503), the next gets a fresh connection.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <libpq-fe.h>

namespace berth::core {

// The database could not be reached (connect failed, connection lost mid-query).
class DbUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The database refused a statement.
class DbError : public std::runtime_error {
 public:
  DbError(std::string message, std::string sqlstate)
      : std::runtime_error(std::move(message)), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

using Param = std::optional<std::string>;  // nullopt is SQL NULL

class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* r) : r_(r, &PQclear) {}
  PGresult* get() const { return r_.get(); }
  int rows() const { return r_ ? PQntuples(r_.get()) : 0; }
  int columns() const { return r_ ? PQnfields(r_.get()) : 0; }
  bool isNull(int row, int col) const { return PQgetisnull(r_.get(), row, col); }
  std::string value(int row, int col) const {
    return std::string(PQgetvalue(r_.get(), row, col), PQgetlength(r_.get(), row, col));
  }
  std::optional<std::string> optional(int row, int col) const {
    if (isNull(row, col)) return std::nullopt;
    return value(row, col);
  }
  int64_t affected() const;

 private:
  std::shared_ptr<PGresult> r_;
};

class Pool;

// A connection borrowed from the pool; returned (or discarded when broken) on destruction.
class Lease {
 public:
  Lease(Pool* pool, PGconn* conn) : pool_(pool), conn_(conn) {}
  Lease(Lease&& o) noexcept : pool_(o.pool_), conn_(o.conn_), broken_(o.broken_) {
    o.conn_ = nullptr;
  }
  Lease& operator=(Lease&&) = delete;
  Lease(const Lease&) = delete;
  ~Lease();
  PGconn* conn() const { return conn_; }
  // Runs one statement with bound text parameters. Throws DbError / DbUnavailable.
  PgResult exec(const std::string& sql, const std::vector<Param>& params = {});
  // Runs a script of several statements (simple protocol, no parameters), as migrations need;
  // returns the last statement's result. Throws like exec.
  PgResult execScript(const std::string& sql);
  void markBroken() { broken_ = true; }

 private:
  Pool* pool_;
  PGconn* conn_;
  bool broken_ = false;
};

class Pool {
 public:
  Pool(std::string url, int size, std::chrono::milliseconds acquire_timeout);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Waits for a free connection (up to acquire_timeout), connecting a new one if needed.
  // Throws DbUnavailable.
  Lease acquire();
  PgResult exec(const std::string& sql, const std::vector<Param>& params = {});
  const std::string& url() const { return url_; }

 private:
  friend class Lease;
  void giveBack(PGconn* conn, bool broken);
  // SQL text -> prepared statement name, per connection; used only by the connection's lease.
  std::unordered_map<std::string, std::string>& preparedOf(PGconn* conn);

  std::string url_;
  int size_;
  std::chrono::milliseconds acquire_timeout_;
  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<PGconn*> idle_;
  std::unordered_map<PGconn*, std::unordered_map<std::string, std::string>> prepared_;
  // Never reused: a forgotten statement's name may still exist on its connection.
  std::atomic<uint64_t> statement_names_{0};
  int open_ = 0;
};

}  // namespace berth::core
