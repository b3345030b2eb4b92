// The control-plane database through the ABI: sessions that hold a pooled connection, and
// results that carry either rows or the error the database gave.
#pragma once
#include <cstddef>
#include <string>

#include <berth/abi.h>

#include "db/pool.hpp"

struct berth_db_session {
  explicit berth_db_session(berth::core::Lease lease) : lease(std::move(lease)) {}
  berth::core::Lease lease;
};

struct berth_db_result {
  uint32_t status = BERTH_DB_OK;  // berth_db_status
  berth::core::PgResult rows;
  std::string error;
  std::string sqlstate;
};

namespace berth::core {

// pool may be null (the database is not up yet): sessions fail, statements answer UNAVAILABLE.
int32_t openDbSession(Pool* pool, berth_db_session** out) noexcept;
// Rolls back a transaction the plugin left open, then gives the connection back.
void closeDbSession(berth_db_session* session) noexcept;
// Never returns NULL (the ABI promises a result to free).
berth_db_result* execDb(Pool* pool, berth_db_session* session, berth_str sql,
                        const berth_str* params, size_t param_count) noexcept;

uint32_t dbResultStatus(const berth_db_result* result) noexcept;
berth_str dbResultError(const berth_db_result* result) noexcept;
berth_str dbResultSqlstate(const berth_db_result* result) noexcept;
int64_t dbResultRows(const berth_db_result* result) noexcept;
int32_t dbResultColumns(const berth_db_result* result) noexcept;
berth_str dbResultColumnName(const berth_db_result* result, int32_t column) noexcept;
berth_str dbResultValue(const berth_db_result* result, int64_t row, int32_t column) noexcept;
int64_t dbResultAffected(const berth_db_result* result) noexcept;
void dbResultFree(berth_db_result* result) noexcept;

}  // namespace berth::core
