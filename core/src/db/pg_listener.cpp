#include "db/pg_listener.hpp"

#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>
#include <berth/common/pg_connection.hpp>

#include <cerrno>
#include <chrono>

namespace berth::core {

namespace {

bool command(PGconn* conn, const std::string& sql, ExecStatusType expected) {
  PGresult* r = PQexec(conn, sql.c_str());
  bool ok = PQresultStatus(r) == expected;
  PQclear(r);
  return ok;
}

// Every channel in one statement, each quoted as an identifier.
bool listenOn(PGconn* conn, const std::vector<std::string>& channels) {
  std::string sql;
  for (const auto& channel : channels) {
    char* quoted = PQescapeIdentifier(conn, channel.c_str(), channel.size());
    if (quoted == nullptr) return false;
    sql += "LISTEN " + std::string(quoted) + ";";
    PQfreemem(quoted);
  }
  return sql.empty() || command(conn, sql, PGRES_COMMAND_OK);
}

void call(const std::function<void()>& fn) {
  if (fn) fn();
}

}  // namespace

PgListener::PgListener(std::string database_url, std::vector<std::string> channels,
                       Callbacks callbacks)
    : url_(std::move(database_url)),
      channels_(std::move(channels)),
      callbacks_(std::move(callbacks)) {}

bool PgListener::start() {
  if (thread_.joinable()) return true;
  if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
  return true;
}

void PgListener::stop() {
  stopping_ = true;
  if (stop_pipe_[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] ssize_t ignored = ::write(stop_pipe_[1], &byte, 1);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (int& fd : stop_pipe_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

void PgListener::loop() {
  bool reported = false;
  while (!stopping_) {
    // application_name after the URL, so it names this connection whatever the URL says.
    common::PgConnection conn =
        common::PgConnection::connect({{"dbname", url_}, {"application_name", kListenerName}});
    if (conn.ok() && listenOn(conn.get(), channels_)) {
      reported = false;
      call(callbacks_.connected);
      listen(conn.get());
      call(callbacks_.disconnected);
    } else if (!reported) {
      call(callbacks_.unreachable);
      reported = true;
    }
    std::unique_lock lock(wake_mutex_);
    wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_.load(); });
  }
}

void PgListener::listen(PGconn* conn) {
  const int socket = PQsocket(conn);
  while (!stopping_) {
    pollfd fds[2] = {{socket, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    int ready = ::poll(fds, 2, 30000);
    if (ready < 0 && errno != EINTR) return;
    if (stopping_) return;
    // Quiet for 30 s: make sure the connection is still there.
    if (ready == 0 && !command(conn, "SELECT 1", PGRES_TUPLES_OK)) return;
    if (!PQconsumeInput(conn)) return;
    while (PGnotify* n = PQnotifies(conn)) {
      const std::string channel = n->relname != nullptr ? n->relname : "";
      const std::string payload = n->extra != nullptr ? n->extra : "";
      PQfreemem(n);
      if (callbacks_.notified) callbacks_.notified(channel, payload);
    }
    if (PQstatus(conn) != CONNECTION_OK) return;
  }
}

}  // namespace berth::core
