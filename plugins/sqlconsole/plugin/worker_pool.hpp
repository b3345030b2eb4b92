// The plugin's own threads for database work: a 15-second query or a 256 MB import must not
// hold one of the core's server threads. Handlers hand the request over with answerLater().
//
// Fair shares: every task belongs to a key (a project, see keyOf below). Each key runs at most
// `per_key_running` tasks at once and keeps the rest in a queue of its own (at most
// `per_key_queue`); a free thread takes the next task of the keys that have work and are under
// their cap, in turn (round robin). So one project's slow statements hold at most its own share
// of the threads, and another project's work never waits behind its queue. The threads, lanes
// and limits are berth::common::WorkerPool's; what is the console's is here: the key of a
// request, the words of a refusal, and handing a Request and its Responder to the pool.
#pragma once
#include <berth/common/worker_pool.hpp>
#include <berth/plugin.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace berth::sqlconsole {

struct PoolLimits : common::PoolLimits {
  // threads 8: how many tasks run at once, all keys together; perKeyRunning 2: how many of one
  // key's tasks run at once; perKeyQueue 32: how many of one key's tasks may wait (more are
  // refused); totalQueue 512: how many tasks may wait, all keys together.
  PoolLimits() : common::PoolLimits{8, 2, 32, 512} {}
  // The words of a refusal: what the pool runs ("database requests", "imports and exports"),
  // and the configuration keys of its limits, named in the 503's message.
  std::string what = "database requests";
  std::string runningKey = "sqlconsole.project_concurrency";  // empty: not configurable
  std::string queueKey = "sqlconsole.project_queue";
  int retryAfterSeconds = 1;
};

class WorkerPool {
 public:
  using Posted = common::WorkerPool::Posted;
  // key_of: which key a request's task belongs to (called on the thread that posts it).
  // Destroying the pool finishes what is queued, then joins.
  WorkerPool(PoolLimits limits, std::function<std::string(const berth::Request&)> key_of);

  Posted post(const std::string& key, std::function<void()> task) {
    return pool_.post(key, std::move(task));
  }

  std::string keyOf(const berth::Request& request) const { return key_of_(request); }
  // The 503 for a refused post: its message names the limit, Retry-After says when to retry.
  berth::Error refusal(Posted why) const;
  const PoolLimits& limits() const { return limits_; }

 private:
  PoolLimits limits_;
  std::function<std::string(const berth::Request&)> key_of_;
  common::WorkerPool pool_;  // last: its threads are joined before the rest goes
};

// Runs work(request, responder) on the pool, in the lane of pool.keyOf(request). A berth::Error
// it throws is the answer; any other exception answers 500 and is logged with the request id. A
// refused post answers 503 with Retry-After (WorkerPool::refusal).
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
