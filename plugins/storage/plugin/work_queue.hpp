// A few threads of the plugin's own for work that must not hold a server thread: storing an
// upload hashes, copies or fsyncs up to 64 MB, and the core's server threads also carry other
// requests. stop() finishes what was queued and joins the threads (the plugin's stop()).
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace berth::storage {

class WorkQueue {
 public:
  WorkQueue() = default;
  ~WorkQueue() { stop(); }
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void start(size_t threads);
  // Runs `work` on one of the threads; false once stopped (the caller then runs it itself).
  // `work` must not throw.
  bool post(std::function<void()> work);
  void stop();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

}  // namespace berth::storage
