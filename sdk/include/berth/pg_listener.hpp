/** LISTEN on a PostgreSQL channel, on a connection and a thread of its own, header-only (no ABI;
 *  whoever includes it links libpq). The core's auth cache and a plugin's own caches of
 *  control-plane rows use it the same way: keep answers only while listening, drop them on
 *  each notification, and drop everything when (re)connected or disconnected, since anything
 *  may have changed while nobody listened.
 *
 *  THREADING: the callbacks run on the listener's thread, one at a time. */
#pragma once
#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace berth {

class PgListener {
 public:
  struct Callbacks {
    std::function<void()> connected;                         // listening (again)
    std::function<void(std::string_view payload)> notified;  // one notification
    std::function<void()> disconnected;                      // not listening any more
    std::function<void()> unreachable;  // a connection failed after listening or at the start
  };

  /** channel: a plain identifier (it is pasted into LISTEN). */
  PgListener(std::string database_url, std::string channel, Callbacks callbacks)
      : url_(std::move(database_url)),
        channel_(std::move(channel)),
        callbacks_(std::move(callbacks)) {}
  ~PgListener() { stop(); }
  PgListener(const PgListener&) = delete;
  PgListener& operator=(const PgListener&) = delete;

  /** False when no thread could be started (the callers keep nothing then). */
  bool start() {
    if (thread_.joinable()) return true;
    if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    stopping_ = false;
    thread_ = std::thread([this] { loop(); });
    return true;
  }

  void stop() {
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

 private:
  struct ConnFinish {
    void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
  };

  static bool command(PGconn* conn, const std::string& sql, ExecStatusType expected) {
    PGresult* r = PQexec(conn, sql.c_str());
    bool ok = PQresultStatus(r) == expected;
    PQclear(r);
    return ok;
  }

  static void call(const std::function<void()>& fn) {
    if (fn) fn();
  }

  void loop() {
    bool reported = false;
    while (!stopping_) {
      // Named, so an operator (or a test) tells which connection listens for what.
      const std::string name = "berth listen " + channel_;
      const char* keywords[] = {"dbname", "application_name", nullptr};
      const char* values[] = {url_.c_str(), name.c_str(), nullptr};
      std::unique_ptr<PGconn, ConnFinish> conn(PQconnectdbParams(keywords, values, 1));
      if (conn && PQstatus(conn.get()) == CONNECTION_OK &&
          command(conn.get(), "LISTEN " + channel_, PGRES_COMMAND_OK)) {
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

  // Until the connection is lost or stop().
  void listen(PGconn* conn) {
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
        std::string payload = n->extra != nullptr ? n->extra : "";
        PQfreemem(n);
        if (callbacks_.notified) callbacks_.notified(payload);
      }
      if (PQstatus(conn) != CONNECTION_OK) return;
    }
  }

  std::string url_;
  std::string channel_;
  Callbacks callbacks_;
  std::atomic<bool> stopping_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace berth
