#include "plugin/db_bridge.hpp"

#include <exception>
#include <memory>
#include <vector>

#include "log/logging.hpp"
#include "plugin/abi_views.hpp"

namespace berth::core {
namespace {

// Handed out when not even a result object can be allocated; freeing it does nothing.
berth_db_result& outOfMemoryResult() {
  static berth_db_result result{BERTH_DB_UNAVAILABLE, PgResult{}, "out of memory", ""};
  return result;
}

bool hasRows(const berth_db_result* result) {
  return result != nullptr && result->status == BERTH_DB_OK && result->rows.get() != nullptr;
}

std::vector<Param> bindParams(const berth_str* params, size_t param_count) {
  if (param_count > 0 && params == nullptr)
    throw std::invalid_argument("param_count without params");
  std::vector<Param> bound;
  bound.reserve(param_count);
  for (size_t i = 0; i < param_count; ++i)
    bound.push_back(isAbsent(params[i]) ? Param{} : Param{copy(params[i])});
  return bound;
}

PgResult run(Pool* pool, berth_db_session* session, berth_str sql, const berth_str* params,
             size_t param_count) {
  std::vector<Param> bound = bindParams(params, param_count);
  if (session != nullptr) return session->lease.exec(copy(sql), bound);
  if (pool == nullptr) throw DbUnavailable("the database is not up yet");
  return pool->exec(copy(sql), bound);
}

}  // namespace

int32_t openDbSession(Pool* pool, berth_db_session** out) noexcept {
  if (out == nullptr) return BERTH_ERR;
  *out = nullptr;
  if (pool == nullptr) return BERTH_ERR;
  try {
    *out = std::make_unique<berth_db_session>(pool->acquire()).release();
    return BERTH_OK;
  } catch (const std::exception& e) {
    logLine(*getLogger("db"), spdlog::level::warn, "", "",
            std::string("a plugin could not open a database session: ") + e.what());
    return BERTH_ERR;
  } catch (...) {
    return BERTH_ERR;
  }
}

void closeDbSession(berth_db_session* session) noexcept {
  if (session == nullptr) return;
  std::unique_ptr<berth_db_session> owned(session);
  try {
    // The connection goes back to the pool, so a transaction left open must not leak into the
    // next borrower.
    switch (PQtransactionStatus(owned->lease.conn())) {
      case PQTRANS_IDLE:
        break;
      case PQTRANS_INTRANS:
      case PQTRANS_INERROR:
        owned->lease.exec("ROLLBACK");
        break;
      default:
        owned->lease.markBroken();
        break;  // busy or lost: do not reuse it
    }
  } catch (...) {
    owned->lease.markBroken();
  }
}

berth_db_result* execDb(Pool* pool, berth_db_session* session, berth_str sql,
                        const berth_str* params, size_t param_count) noexcept {
  std::unique_ptr<berth_db_result> result;
  try {
    result = std::make_unique<berth_db_result>();
  } catch (...) {
    return &outOfMemoryResult();
  }
  try {
    result->rows = run(pool, session, sql, params, param_count);
  } catch (const DbError& e) {
    result->status = BERTH_DB_SQL_ERROR;
    result->error = e.what();
    result->sqlstate = e.sqlstate();
  } catch (const DbUnavailable& e) {
    result->status = BERTH_DB_UNAVAILABLE;
    result->error = e.what();
  } catch (const std::exception& e) {
    // Not the database's doing (bad arguments, allocation): the statement did not run.
    result->status = BERTH_DB_UNAVAILABLE;
    result->error = e.what();
    logLine(*getLogger("db"), spdlog::level::err, "", "",
            std::string("a plugin statement could not run: ") + e.what());
  } catch (...) {
    result->status = BERTH_DB_UNAVAILABLE;
    result->error = "unknown failure";
  }
  return result.release();
}

uint32_t dbResultStatus(const berth_db_result* result) noexcept {
  return result == nullptr ? static_cast<uint32_t>(BERTH_DB_UNAVAILABLE) : result->status;
}

berth_str dbResultError(const berth_db_result* result) noexcept {
  return result == nullptr || result->error.empty() ? kAbsent : borrow(result->error);
}

berth_str dbResultSqlstate(const berth_db_result* result) noexcept {
  return result == nullptr || result->sqlstate.empty() ? kAbsent : borrow(result->sqlstate);
}

int64_t dbResultRows(const berth_db_result* result) noexcept {
  return hasRows(result) ? result->rows.rows() : 0;
}

int32_t dbResultColumns(const berth_db_result* result) noexcept {
  return hasRows(result) ? result->rows.columns() : 0;
}

berth_str dbResultColumnName(const berth_db_result* result, int32_t column) noexcept {
  if (!hasRows(result) || column < 0 || column >= result->rows.columns()) return kAbsent;
  const char* name = PQfname(result->rows.get(), column);
  return name == nullptr ? kAbsent : berth_str{name, std::char_traits<char>::length(name)};
}

berth_str dbResultValue(const berth_db_result* result, int64_t row, int32_t column) noexcept {
  if (!hasRows(result) || row < 0 || row >= result->rows.rows() || column < 0 ||
      column >= result->rows.columns())
    return kAbsent;
  const int r = static_cast<int>(row);
  if (result->rows.isNull(r, column)) return kAbsent;
  return berth_str{PQgetvalue(result->rows.get(), r, column),
                   static_cast<size_t>(PQgetlength(result->rows.get(), r, column))};
}

int64_t dbResultAffected(const berth_db_result* result) noexcept {
  try {
    return hasRows(result) ? result->rows.affected() : 0;
  } catch (...) {
    return 0;
  }
}

void dbResultFree(berth_db_result* result) noexcept {
  if (result == &outOfMemoryResult()) return;
  std::unique_ptr<berth_db_result> owned(result);
}

}  // namespace berth::core
