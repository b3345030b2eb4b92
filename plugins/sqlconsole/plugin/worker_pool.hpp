// The plugin's own threads for database work: a 15-second query or a 256 MB import must not
// hold one of the core's server threads. Handlers hand the request over with answerLater().
#pragma once
#include <berth/plugin.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace berth::sqlconsole {

class WorkerPool {
 public:
  // threads: how many run at once; queue_limit: how many may wait (more answer 503).
  WorkerPool(size_t threads, size_t queue_limit);
  ~WorkerPool();  // finishes what is queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False when the queue is full or the pool is stopping.
  bool post(std::function<void()> task);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  size_t queue_limit_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Runs work(request, responder) on the pool. A berth::Error it throws is the answer; any other
// exception answers 500 and is logged with the request id. A full pool answers 503
// "the database console is busy; try again".
// LIFETIME: the Request is valid inside work until the Responder has answered.
void answerLater(WorkerPool& pool, const berth::Logger& logger, berth::Request request,
                 berth::Responder responder,
                 std::function<void(const berth::Request&, berth::Responder&)> work);

}  // namespace berth::sqlconsole
