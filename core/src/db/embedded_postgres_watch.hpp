// Keeps berthd's embedded PostgreSQL running: a postmaster that dies (killed, crashed, OOM)
// is started again on the same directory and port, so the pools, whose broken connections
// answer 503 meanwhile, reconnect by themselves. Without it berthd answered 503 to every
// request until it was restarted by hand.
#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "db/embedded_postgres.hpp"

namespace berth::core {

class EmbeddedPostgresWatch {
 public:
  // Checks every `period` that the postmaster of `cluster` (which must outlive the watch) lives.
  EmbeddedPostgresWatch(EmbeddedPostgres& cluster, std::string dir,
                        std::chrono::milliseconds period = std::chrono::seconds(1));
  ~EmbeddedPostgresWatch();  // stops the thread
  EmbeddedPostgresWatch(const EmbeddedPostgresWatch&) = delete;
  EmbeddedPostgresWatch& operator=(const EmbeddedPostgresWatch&) = delete;

 private:
  void run();

  EmbeddedPostgres& cluster_;
  std::string dir_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// Whether the postmaster named by <dir>/data/postmaster.pid runs (a zombie does not).
bool embeddedPostmasterRuns(const std::string& dir);

}  // namespace berth::core
