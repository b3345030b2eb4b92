#include "db/pool.hpp"

#include <algorithm>
#include <cstdlib>

#include <spdlog/spdlog.h>
#include <berth/common/pg_connection.hpp>
#include <berth/common/text.hpp>

namespace berth::core {
namespace {

// Applies when the URL names no connect_timeout: a dead host must not hold a request for the
// kernel's TCP timeout (minutes).
constexpr std::chrono::seconds kDefaultConnectTimeout{5};

std::string unavailable(const std::string& why) {
  return "could not reach the database: " + why;
}

// Errors that mean the session is gone or going, as opposed to a statement the server refused:
// class 08 (connection exception) and 57P01..03 (admin shutdown, crash shutdown, cannot connect
// now).
bool isConnectionError(PGconn* conn, const std::string& sqlstate) {
  if (PQstatus(conn) != CONNECTION_OK) return true;
  if (sqlstate.rfind("08", 0) == 0) return true;
  return sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03";
}

// A connection is only safe to reuse outside a transaction; a lease abandoned mid-transaction
// (an exception between BEGIN and COMMIT) is rolled back here, or dropped if that fails.
bool resetForReuse(PGconn* conn) {
  if (PQstatus(conn) != CONNECTION_OK) return false;
  switch (PQtransactionStatus(conn)) {
    case PQTRANS_IDLE:
      return true;
    case PQTRANS_INTRANS:
    case PQTRANS_INERROR: {
      PgResult rollback(PQexec(conn, "ROLLBACK"));
      return rollback.get() && PQresultStatus(rollback.get()) == PGRES_COMMAND_OK &&
             PQtransactionStatus(conn) == PQTRANS_IDLE;
    }
    default:
      return false;
  }
}

// Owned until it is handed to a lease (release()); finished on any failure before that.
PGconn* connectFresh(const std::string& url) {
  // The default timeout goes before the URL, so that one in the URL wins.
  common::PgConnection conn =
      common::PgConnection::connect({{"dbname", url}}, kDefaultConnectTimeout);
  if (!conn.ok()) throw DbUnavailable(unavailable(common::trimmed(conn.error())));
  // libpq prints notices ("schema exists, skipping") to stderr by default.
  PQsetNoticeProcessor(
      conn.get(),
      [](void*, const char* message) { spdlog::debug("postgres: {}", common::trimmed(message)); },
      nullptr);
  PgResult set(PQexec(conn.get(), "SET application_name = 'berthd'"));
  if (!set.get() || PQresultStatus(set.get()) != PGRES_COMMAND_OK)
    throw DbUnavailable(unavailable(common::trimmed(conn.error())));
  return conn.release();
}

// Finishes a connection the pool gave up on.
void finish(PGconn* conn) {
  common::PgConnection owned(conn);
}

}  // namespace

int64_t PgResult::affected() const {
  if (!r_) return 0;
  const char* count = PQcmdTuples(r_.get());
  return *count ? std::strtoll(count, nullptr, 10) : 0;
}

Lease::~Lease() {
  if (conn_ != nullptr) pool_->giveBack(conn_, broken_);
}

namespace {

// Turns a failed result into the matching exception; marks the lease broken when the connection
// cannot be trusted any more.
PgResult checked(PgResult result, PGconn* conn, Lease& lease) {
  const ExecStatusType status = result.get() ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  switch (status) {
    case PGRES_COMMAND_OK:
    case PGRES_TUPLES_OK:
    case PGRES_EMPTY_QUERY:
      return result;
    case PGRES_COPY_IN:
    case PGRES_COPY_OUT:
    case PGRES_COPY_BOTH:
      // The session now waits for COPY data we will never send.
      lease.markBroken();
      throw DbError("COPY is not supported on pooled connections", "");
    default:
      break;
  }
  std::string sqlstate;
  std::string message;
  if (result.get()) {
    const char* state = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    if (state) sqlstate = state;
    message = common::trimmed(PQresultErrorMessage(result.get()));
  }
  if (message.empty()) message = common::trimmed(PQerrorMessage(conn));
  if (!result.get() || status == PGRES_BAD_RESPONSE || isConnectionError(conn, sqlstate)) {
    lease.markBroken();
    throw DbUnavailable(unavailable(message));
  }
  throw DbError(message, sqlstate);
}

constexpr size_t kMaxPreparedPerConnection = 256;

PGconn* requireConnection(PGconn* conn) {
  if (conn == nullptr) throw std::logic_error("use of a moved-from database lease");
  return conn;
}

}  // namespace

PgResult Lease::exec(const std::string& sql, const std::vector<Param>& params) {
  PGconn* conn = requireConnection(conn_);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const Param& param : params) values.push_back(param ? param->c_str() : nullptr);
  const int count = static_cast<int>(values.size());

  // Parsing and planning each statement anew cost the database as much CPU as berthd itself,
  // so every connection keeps its statements prepared (a bounded number: SQL built with
  // names in it would otherwise grow the cache without end).
  auto& prepared = pool_->preparedOf(conn);
  auto known = prepared.find(sql);
  if (known == prepared.end() && prepared.size() < kMaxPreparedPerConnection) {
    std::string name = "berth_" + std::to_string(pool_->statement_names_.fetch_add(1) + 1);
    checked(PgResult(PQprepare(conn, name.c_str(), sql.c_str(), count, nullptr)), conn, *this);
    known = prepared.emplace(sql, std::move(name)).first;
  }
  if (known != prepared.end()) {
    PgResult result(
        PQexecPrepared(conn, known->second.c_str(), count, values.data(), nullptr, nullptr, 0));
    const char* state = result.get() ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    // A schema change can leave a prepared statement whose result no longer fits ("cached
    // plan must not change result type"): forget it and run the text once more, unprepared.
    if (state == nullptr || std::string(state) != "0A000" ||
        PQtransactionStatus(conn) == PQTRANS_INERROR)
      return checked(std::move(result), conn, *this);
    PgResult(PQexec(conn, ("DEALLOCATE " + known->second).c_str()));
    prepared.erase(known);
  }
  PgResult result(PQexecParams(conn, sql.c_str(), count, /*paramTypes=*/nullptr, values.data(),
                               /*paramLengths=*/nullptr, /*paramFormats=*/nullptr,
                               /*resultFormat=*/0));
  return checked(std::move(result), conn, *this);
}

PgResult Lease::execScript(const std::string& sql) {
  PGconn* conn = requireConnection(conn_);
  return checked(PgResult(PQexec(conn, sql.c_str())), conn, *this);
}

Pool::Pool(std::string url, int size, std::chrono::milliseconds acquire_timeout)
    : url_(std::move(url)), size_(std::max(1, size)), acquire_timeout_(acquire_timeout) {}

Pool::~Pool() {
  std::lock_guard lock(mutex_);
  for (PGconn* conn : idle_) finish(conn);
  idle_.clear();
  prepared_.clear();
}

std::unordered_map<std::string, std::string>& Pool::preparedOf(PGconn* conn) {
  std::lock_guard lock(mutex_);
  return prepared_[conn];
}

Lease Pool::acquire() {
  std::unique_lock lock(mutex_);
  const bool got_slot = available_.wait_for(lock, acquire_timeout_,
                                            [this] { return !idle_.empty() || open_ < size_; });
  if (!got_slot) {
    throw DbUnavailable(unavailable("no free connection within " +
                                    std::to_string(acquire_timeout_.count()) + " ms (all " +
                                    std::to_string(size_) + " in use)"));
  }
  if (!idle_.empty()) {
    // Handed out without a ping: a dead one fails its first exec, which discards it.
    PGconn* conn = idle_.back();
    idle_.pop_back();
    return Lease(this, conn);
  }
  ++open_;
  lock.unlock();  // connecting takes a round trip or a timeout; others may proceed meanwhile
  try {
    return Lease(this, connectFresh(url_));
  } catch (...) {
    lock.lock();
    --open_;
    available_.notify_one();
    throw;
  }
}

PgResult Pool::exec(const std::string& sql, const std::vector<Param>& params) {
  Lease lease = acquire();
  return lease.exec(sql, params);
}

void Pool::giveBack(PGconn* conn, bool broken) {
  const bool reusable = !broken && resetForReuse(conn);
  if (!reusable) {
    // Before finishing it: a new connection may be allocated at the same address.
    {
      std::lock_guard lock(mutex_);
      prepared_.erase(conn);
    }
    finish(conn);
  }
  {
    std::lock_guard lock(mutex_);
    if (reusable) {
      idle_.push_back(conn);
    } else {
      --open_;
    }
  }
  available_.notify_one();
}

}  // namespace berth::core
