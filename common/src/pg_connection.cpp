#include "berth/common/pg_connection.hpp"

#include "berth/common/sql_text.hpp"

namespace berth::common {

PgConnection PgConnection::connect(const Keywords& keywords,
                                   std::optional<std::chrono::seconds> default_connect_timeout) {
  std::string timeout;
  std::vector<const char*> keys;
  std::vector<const char*> values;
  if (default_connect_timeout) {
    timeout = std::to_string(default_connect_timeout->count());
    keys.push_back("connect_timeout");
    values.push_back(timeout.c_str());
  }
  for (const auto& [key, value] : keywords) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  return PgConnection(PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1));
}

PgConnection& PgConnection::operator=(PgConnection&& other) noexcept {
  if (this != &other) {
    reset();
    conn_ = std::exchange(other.conn_, nullptr);
  }
  return *this;
}

bool PgConnection::ok() const noexcept {
  return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK;
}

std::string PgConnection::error() const {
  if (conn_ == nullptr) return "out of memory";
  return pqMessage(PQerrorMessage(conn_));
}

void PgConnection::dropNotices() noexcept {
  if (conn_ != nullptr)
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
}

void PgConnection::reset() noexcept {
  if (conn_ != nullptr) PQfinish(std::exchange(conn_, nullptr));
}

}  // namespace berth::common
