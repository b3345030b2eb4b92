// One libpq connection, owned: PQfinish when its owner goes. The core's pool, the projects
// plugin's superuser connections and the SQL console's sessions all connect through it; each
// keeps its own statements, errors and reuse rules on top.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace berth::common {

class PgConnection {
 public:
  // Connection keywords in order, as PQconnectdbParams takes them with expand_dbname: a
  // "dbname" holding a URL expands in place, so keywords before it are defaults the URL may
  // override and keywords after it override the URL.
  using Keywords = std::vector<std::pair<std::string, std::string>>;

  // Connects (blocking). `default_connect_timeout`, when given, goes first, so a connect_timeout
  // in the URL or in `keywords` wins over it. Never throws: check ok(), and error() says why.
  static PgConnection connect(const Keywords& keywords,
                              std::optional<std::chrono::seconds> default_connect_timeout = {});

  PgConnection() noexcept = default;
  // Takes ownership of a connection made elsewhere (or nullptr).
  explicit PgConnection(PGconn* conn) noexcept : conn_(conn) {}
  PgConnection(PgConnection&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}
  PgConnection& operator=(PgConnection&& other) noexcept;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;
  ~PgConnection() { reset(); }

  PGconn* get() const noexcept { return conn_; }
  explicit operator bool() const noexcept { return conn_ != nullptr; }
  // Connected and healthy (CONNECTION_OK).
  bool ok() const noexcept;
  // libpq's last error for this connection without its trailing newline; "out of memory" when
  // libpq could not even allocate the connection.
  std::string error() const;
  // Notices ("does not exist, skipping") dropped instead of printed to stderr, libpq's default.
  void dropNotices() noexcept;
  // Gives the connection up without finishing it.
  PGconn* release() noexcept { return std::exchange(conn_, nullptr); }
  // Finishes the connection held (if any).
  void reset() noexcept;

 private:
  PGconn* conn_ = nullptr;
};

}  // namespace berth::common
