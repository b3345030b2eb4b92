// LISTEN on PostgreSQL channels, on a connection and a thread of its own. The core keeps one:
// its auth cache and every plugin that hooks "pg.notify:<channel>" hear the control-plane
// database through it (app/change_listener.hpp), so no plugin holds the database's URL. Whoever
// keeps answers by it keeps them only while listening, drops them on each notification, and
// drops everything when (re)connected or disconnected, since anything may have changed while
// nobody listened. The connection's application_name is "berth listen", so an operator (or a
// test) tells which backend it is.
//
// THREADING: the callbacks run on the listener's thread, one at a time.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

struct pg_conn;  // libpq's PGconn

namespace berth::core {

inline constexpr const char* kListenerName = "berth listen";

class PgListener {
 public:
  struct Callbacks {
    std::function<void()> connected;  // listening on every channel (again)
    std::function<void(std::string_view channel, std::string_view payload)> notified;
    std::function<void()> disconnected;  // not listening any more
    std::function<void()> unreachable;   // a connection failed after listening or at the start
  };

  PgListener(std::string database_url, std::vector<std::string> channels, Callbacks callbacks);
  ~PgListener() { stop(); }
  PgListener(const PgListener&) = delete;
  PgListener& operator=(const PgListener&) = delete;

  // False when no thread could be started (the callers keep nothing then).
  bool start();
  // Joins the thread; `disconnected` has run when it was listening.
  void stop();

 private:
  void loop();
  void listen(pg_conn* conn);  // until the connection is lost or stop()

  std::string url_;
  std::vector<std::string> channels_;
  Callbacks callbacks_;
  std::atomic<bool> stopping_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace berth::core
