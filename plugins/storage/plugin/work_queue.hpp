// A few threads of the plugin's own for work that must not hold a server thread: storing an
// upload hashes, copies or fsyncs up to 64 MB, and the core's server threads also carry other
// requests. stop() finishes what was queued and joins the threads (the plugin's stop()). The
// threads and the queue are a berth::common::WorkerPool's (one lane, started by start()).
#pragma once
#include <berth/common/worker_pool.hpp>

#include <functional>

namespace berth::storage {

class WorkQueue {
 public:
  void start(size_t threads) { pool_.start(threads); }
  // Runs `work` on one of the threads; false before start() and once stopped (the caller then
  // runs it itself). `work` must not throw.
  bool post(std::function<void()> work) {
    return pool_.post(std::move(work)) == common::WorkerPool::Posted::Queued;
  }
  void stop() { pool_.stop(); }

 private:
  common::WorkerPool pool_{common::PoolLimits{}, common::WorkerPool::Start::Later};
};

}  // namespace berth::storage
