// The plugin's own threads for database work: a 15-second query or a 256 MB import must not
// hold one of the core's server threads. Handlers hand the request over with answerLater().
#pragma once
#include <berth/plugin.hpp>

#include <chrono>
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

// Short reads answer on the core thread that received them, without a hop to the pool and back
// (which cost a by-id read a fifth of berthd's time): answerSoon runs work(request, responder,
// RunOn::CoreThread) at once. Such work never waits for what may take long: where it would
// (a project, key or catalogue not kept, no idle connection, a statement not yet prepared, a
// refusal that needs the catalogue read again), it throws NeedsPool before it has sent or
// answered anything, and the same work runs again on the pool (RunOn::Pool), as answerLater
// runs it. The one thing it does wait for is its read's answer, and at most `wait`
// (sqlconsole.core_thread_wait_us); past that it throws FinishOnPool, whose `rest` takes the
// answer on the pool and answers. So a slow query holds a core thread (and the requests queued
// behind it on that thread's connections) for at most `wait`.
enum class RunOn { CoreThread, Pool };
struct NeedsPool {};
struct FinishOnPool {
  std::function<void(const berth::Request&, berth::Responder&)> rest;
};

// The debug line a read that moves to the pool leaves (with its request and project).
std::string movedToPoolMessage(std::chrono::microseconds wait);

void answerSoon(WorkerPool& pool, const berth::Logger& logger, berth::Request request,
                berth::Responder responder,
                std::function<void(const berth::Request&, berth::Responder&, RunOn)> work);

}  // namespace berth::sqlconsole
