// The wall-clock limit of an import or export (sqlconsole.transfer_timeout_seconds). A thread of
// its own waits for the deadline; from then on it runs the stop action it was given (cancel the
// statement in flight) at once and again every second, until the transfer is over, so a
// statement that starts after a cancel request went by is stopped too.
#pragma once
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace berth::sqlconsole {

class TransferClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TransferClock(std::chrono::seconds limit);
  ~TransferClock();
  TransferClock(const TransferClock&) = delete;
  TransferClock& operator=(const TransferClock&) = delete;

  // What to do at the deadline (nullptr: nothing). Once this returns, the previous action is
  // not running and will not run again.
  void onExpiry(std::function<void()> stop);
  // Cancels whatever conn runs (PQcancel) at the deadline. Call stopWatching() before conn is
  // handed to anyone else.
  void cancelOnExpiry(PGconn* conn);
  void stopWatching() { onExpiry(nullptr); }

  bool expired() const { return Clock::now() >= deadline_; }
  Clock::time_point deadline() const { return deadline_; }
  // Set from the deadline on (for a loop that polls it, e.g. the one waiting for pg_dump).
  const std::atomic<bool>& expiredFlag() const { return expired_flag_; }
  std::chrono::seconds limit() const { return limit_; }

 private:
  void run();

  std::chrono::seconds limit_;
  Clock::time_point deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<void()> stop_;
  bool done_ = false;
  std::atomic<bool> expired_flag_{false};
  std::thread thread_;
};

// Cancels what conn runs at the clock's deadline, for as long as it lives (declare it after the
// connection's lease, so it stops watching before the connection goes back to the pool).
class CancelOnExpiry {
 public:
  CancelOnExpiry(TransferClock& clock, PGconn* conn) : clock_(clock) { clock.cancelOnExpiry(conn); }
  ~CancelOnExpiry() { clock_.stopWatching(); }
  CancelOnExpiry(const CancelOnExpiry&) = delete;
  CancelOnExpiry& operator=(const CancelOnExpiry&) = delete;

 private:
  TransferClock& clock_;
};

// "the export ran longer than 600 seconds (sqlconsole.transfer_timeout_seconds) and was stopped"
std::string ranTooLong(const std::string& what, std::chrono::seconds limit);

// ---- implementation (inline: header only) ----

inline TransferClock::TransferClock(std::chrono::seconds limit)
    : limit_(limit), deadline_(Clock::now() + limit) {
  thread_ = std::thread([this] { run(); });
}

inline TransferClock::~TransferClock() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    stop_ = nullptr;
  }
  wake_.notify_all();
  thread_.join();
}

inline void TransferClock::onExpiry(std::function<void()> stop) {
  std::lock_guard lock(mutex_);  // the thread runs the action under it
  stop_ = std::move(stop);
}

inline void TransferClock::cancelOnExpiry(PGconn* conn) {
  std::shared_ptr<PGcancel> cancel(PQgetCancel(conn), &PQfreeCancel);
  if (!cancel) return;
  onExpiry([cancel] {
    char error[256];
    PQcancel(cancel.get(), error, sizeof error);
  });
}

inline void TransferClock::run() {
  std::unique_lock lock(mutex_);
  if (wake_.wait_until(lock, deadline_, [this] { return done_; })) return;
  expired_flag_ = true;
  for (;;) {
    if (stop_) stop_();
    if (wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) return;
  }
}

inline std::string ranTooLong(const std::string& what, std::chrono::seconds limit) {
  return "the " + what + " ran longer than " + std::to_string(limit.count()) +
         " seconds (sqlconsole.transfer_timeout_seconds) and was stopped";
}

}  // namespace berth::sqlconsole
