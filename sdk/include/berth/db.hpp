// SPDX-License-Identifier: MIT
/** @file
 *  The control-plane database, reached through the core's connection pool.
 *
 *      berth::Db db = services().db();
 *      db.exec("insert into hello.visits (at) values ($1)", now);
 *      berth::DbResult r = db.exec("select count(*) from hello.visits");
 *      int64_t visits = r.get<int64_t>(0, 0);
 *
 *  Parameters travel as text ($1, $2, ...): strings, integers, floating point, bool ("true" /
 *  "false"), nlohmann::json (its text, for json/jsonb columns), and std::nullopt / nullptr /
 *  an empty std::optional for SQL NULL.
 *
 *  Errors: a statement the database refuses throws berth::DbError (message and SQLSTATE); a
 *  database that cannot be reached throws berth::Error(503, "could not reach the database").
 *  A DbError that escapes a handler is logged with its SQL details and answered as 500
 *  "internal error": SQL text is not for the caller's eyes. Catch it to answer better, for
 *  example a 409 on a unique violation.
 *
 *  THREADING: Db is a cheap handle; use it from any thread. A Transaction holds one connection
 *  and belongs to one thread at a time.
 */
#ifndef BERTH_DB_HPP
#define BERTH_DB_HPP

#include <berth/error.hpp>
#include <berth/host_ref.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace berth {

/** A statement the database refused. status() is 500; sqlstate() tells what happened. */
class DbError : public Error {
 public:
  DbError(std::string message, std::string sqlstate)
      : Error(500, std::move(message)), sqlstate_(std::move(sqlstate)) {}

  /** The five-character SQLSTATE, e.g. "23505". */
  const std::string& sqlstate() const noexcept { return sqlstate_; }

  bool isUniqueViolation() const noexcept { return sqlstate_ == "23505"; }
  bool isForeignKeyViolation() const noexcept { return sqlstate_ == "23503"; }
  bool isSerializationFailure() const noexcept { return sqlstate_ == "40001"; }

 private:
  std::string sqlstate_;
};

namespace detail {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
inline constexpr bool kAlwaysFalse = false;

/** One statement parameter as text; std::nullopt is SQL NULL. */
template <class T>
std::optional<std::string> toDbParam(const T& value) {
  using U = std::decay_t<T>;
  if constexpr (std::is_array_v<T>) {
    return std::string(value);  // a string literal
  } else if constexpr (std::is_same_v<U, std::nullptr_t> || std::is_same_v<U, std::nullopt_t>) {
    return std::nullopt;
  } else if constexpr (std::is_same_v<U, bool>) {
    return std::string(value ? "true" : "false");
  } else if constexpr (std::is_integral_v<U>) {
    return std::to_string(value);
  } else if constexpr (std::is_floating_point_v<U>) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", static_cast<double>(value));
    return std::string(text);
  } else if constexpr (IsOptional<U>::value) {
    if (!value) return std::nullopt;
    return toDbParam(*value);
  } else if constexpr (std::is_same_v<U, nlohmann::json>) {
    return dumpJson(value);
  } else if constexpr (std::is_same_v<U, const char*> || std::is_same_v<U, char*>) {
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    return std::string(std::string_view(value));
  } else {
    static_assert(kAlwaysFalse<U>, "berth::Db: unsupported parameter type");
  }
}

}  // namespace detail

/** A statement parameter list built at run time (for statements assembled by code). */
using DbParams = std::vector<std::optional<std::string>>;

/** The rows of one statement, as text. Move-only; frees the core's result when it goes.
 *  LIFETIME: the string_views it hands out die with it. */
class DbResult {
 public:
  /** OWNERSHIP: takes the result and frees it with the core's db_result_free. */
  DbResult(const berth_host_api* api, berth_db_result* result) noexcept
      : api_(api), result_(result) {}
  ~DbResult() { reset(); }
  DbResult(DbResult&& other) noexcept
      : api_(other.api_), result_(std::exchange(other.result_, nullptr)) {}
  DbResult& operator=(DbResult&& other) noexcept {
    if (this != &other) {
      reset();
      api_ = other.api_;
      result_ = std::exchange(other.result_, nullptr);
    }
    return *this;
  }
  DbResult(const DbResult&) = delete;
  DbResult& operator=(const DbResult&) = delete;

  int64_t rows() const { return api_->db_result_rows(result_); }
  int columns() const { return api_->db_result_columns(result_); }
  bool empty() const { return rows() == 0; }
  /** Rows changed by an insert, update or delete. */
  int64_t affected() const { return api_->db_result_affected(result_); }

  std::string_view columnName(int column) const {
    checkColumn(column);
    return detail::toView(api_->db_result_column_name(result_, column));
  }

  /** The index of a named column. @throw Error 500 when there is none (a bug in the SQL). */
  int column(std::string_view name) const {
    for (int c = 0, n = columns(); c < n; ++c)
      if (detail::toView(api_->db_result_column_name(result_, c)) == name) return c;
    throw Error(500, "the result has no column \"" + std::string(name) + "\"");
  }

  /** A value as text; std::nullopt for SQL NULL. */
  std::optional<std::string_view> value(int64_t row, int column) const {
    checkRow(row);
    checkColumn(column);
    berth_str text = api_->db_result_value(result_, row, column);
    if (!detail::isPresent(text)) return std::nullopt;
    return detail::toView(text);
  }
  std::optional<std::string_view> value(int64_t row, std::string_view name) const {
    return value(row, column(name));
  }

  bool isNull(int64_t row, int column) const { return !value(row, column).has_value(); }

  /** A value converted to T: std::string, std::string_view, an integer type, bool, double,
   *  nlohmann::json, or std::optional of one of those (std::nullopt for NULL).
   *  @throw Error 500 for NULL into a non-optional T, or text that is not a T. */
  template <class T>
  T get(int64_t row, int column) const {
    std::optional<std::string_view> text = value(row, column);
    if constexpr (detail::IsOptional<T>::value) {
      if (!text) return std::nullopt;
      return convert<typename T::value_type>(*text, column);
    } else {
      if (!text) throw Error(500, "column \"" + std::string(columnName(column)) + "\" is NULL");
      return convert<T>(*text, column);
    }
  }
  template <class T>
  T get(int64_t row, std::string_view name) const {
    return get<T>(row, column(name));
  }

  /** The ABI handle, for what the C++ layer does not wrap. */
  const berth_db_result* raw() const noexcept { return result_; }

 private:
  void reset() noexcept {
    if (result_ != nullptr) api_->db_result_free(std::exchange(result_, nullptr));
  }
  void checkRow(int64_t row) const {
    if (row < 0 || row >= rows())
      throw Error(500, "row " + std::to_string(row) + " is out of range");
  }
  void checkColumn(int column) const {
    if (column < 0 || column >= columns())
      throw Error(500, "column " + std::to_string(column) + " is out of range");
  }
  [[noreturn]] void badValue(int column, std::string_view text, const char* type) const {
    throw Error(500, "column \"" + std::string(columnName(column)) + "\": \"" + std::string(text) +
                         "\" is not " + type);
  }

  template <class T>
  T convert(std::string_view text, int column) const {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::string(text);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return text;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (text == "t" || text == "true") return true;
      if (text == "f" || text == "false") return false;
      badValue(column, text, "a boolean");
    } else if constexpr (std::is_integral_v<T>) {
      T number{};
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (ec != std::errc() || end != text.data() + text.size())
        badValue(column, text, "an integer in range");
      return number;
    } else if constexpr (std::is_floating_point_v<T>) {
      std::string copy(text);
      char* end = nullptr;
      double number = std::strtod(copy.c_str(), &end);
      if (copy.empty() || end != copy.c_str() + copy.size()) badValue(column, text, "a number");
      return static_cast<T>(number);
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
      nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
      if (parsed.is_discarded()) badValue(column, text, "JSON");
      return parsed;
    } else {
      static_assert(detail::kAlwaysFalse<T>, "berth::DbResult::get: unsupported type");
    }
  }

  const berth_host_api* api_;
  berth_db_result* result_;
};

namespace detail {

/** Runs one statement on a session (NULL: any pooled connection) and checks the outcome. */
inline DbResult execChecked(const HostRef& host, berth_db_session* session, std::string_view sql,
                            const DbParams& params) {
  std::vector<berth_str> raw;
  raw.reserve(params.size());
  for (const auto& param : params) raw.push_back(param ? toStr(*param) : absentStr());
  DbResult result(host.api, host.api->db_exec(host.host, session, toStr(sql),
                                              raw.empty() ? nullptr : raw.data(), raw.size()));
  if (result.raw() == nullptr) throw Error(503, "could not reach the database");
  switch (host.api->db_result_status(result.raw())) {
    case BERTH_DB_OK:
      return result;
    case BERTH_DB_SQL_ERROR:
      throw DbError(std::string(toView(host.api->db_result_error(result.raw()))),
                    std::string(toView(host.api->db_result_sqlstate(result.raw()))));
    default:
      throw Error(503, "could not reach the database");
  }
}

template <class... P>
DbParams toDbParams(const P&... params) {
  return DbParams{toDbParam(params)...};
}

}  // namespace detail

/** Statements on one held connection, inside BEGIN ... COMMIT. Move-only.
 *  Rolls back when destroyed before commit(), so an exception undoes the work. */
class Transaction {
 public:
  /** Opens a session and begins. @throw Error 503 when the database cannot be reached. */
  explicit Transaction(HostRef host) : host_(host) {
    if (host_.api->db_session_open(host_.host, &session_) != BERTH_OK || session_ == nullptr) {
      session_ = nullptr;
      throw Error(503, "could not reach the database");
    }
    try {
      detail::execChecked(host_, session_, "BEGIN", {});
    } catch (...) {
      close();
      throw;
    }
  }
  ~Transaction() {
    if (session_ == nullptr) return;
    if (!done_) {
      try {
        detail::execChecked(host_, session_, "ROLLBACK", {});
      } catch (...) {
        // The connection is being given back either way; the pool discards broken ones.
      }
    }
    close();
  }
  Transaction(Transaction&& other) noexcept
      : host_(other.host_), session_(std::exchange(other.session_, nullptr)), done_(other.done_) {}
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  template <class... P>
  DbResult exec(std::string_view sql, const P&... params) {
    return execParams(sql, detail::toDbParams(params...));
  }
  DbResult execParams(std::string_view sql, const DbParams& params) {
    if (session_ == nullptr || done_) throw Error(500, "the transaction is over");
    return detail::execChecked(host_, session_, sql, params);
  }

  void commit() {
    if (session_ == nullptr || done_) throw Error(500, "the transaction is over");
    done_ = true;  // a failed COMMIT has rolled back: nothing is left to undo
    detail::execChecked(host_, session_, "COMMIT", {});
  }
  void rollback() {
    if (session_ == nullptr || done_) return;
    done_ = true;
    detail::execChecked(host_, session_, "ROLLBACK", {});
  }

 private:
  void close() noexcept {
    if (session_ != nullptr) host_.api->db_session_close(std::exchange(session_, nullptr));
  }

  HostRef host_;
  berth_db_session* session_ = nullptr;
  bool done_ = false;
};

/** The control-plane database. A cheap handle; each exec runs on a pooled connection. */
class Db {
 public:
  Db() = default;
  explicit Db(HostRef host) : host_(host) {}

  /** Runs one statement with $1.. parameters. */
  template <class... P>
  DbResult exec(std::string_view sql, const P&... params) const {
    return execParams(sql, detail::toDbParams(params...));
  }
  DbResult execParams(std::string_view sql, const DbParams& params) const {
    requireBound();
    return detail::execChecked(host_, nullptr, sql, params);
  }

  /** Begins a transaction on a connection of its own. */
  Transaction begin() const {
    requireBound();
    return Transaction(host_);
  }

  /** Runs fn(Transaction&) and commits when it returns; rolls back when it throws.
   *  @return what fn returns. */
  template <class F>
  auto transaction(F&& fn) const {
    Transaction tx = begin();
    if constexpr (std::is_void_v<decltype(fn(tx))>) {
      fn(tx);
      tx.commit();
    } else {
      auto result = fn(tx);
      tx.commit();
      return result;
    }
  }

 private:
  void requireBound() const {
    if (!host_.bound()) throw Error(503, "could not reach the database");
  }

  HostRef host_;
};

}  // namespace berth

#endif  // BERTH_DB_HPP
