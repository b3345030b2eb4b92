// Runs plugins' periodic jobs on a bounded pool of threads the core owns. A job never overlaps
// itself; what it throws is caught and logged; stop() asks every job to stop and joins.
#pragma once
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "plugin/plugin_manager.hpp"

// The core links berth_common privately: its own headers name the pool, never include it.
namespace berth::common {
class WorkerPool;
}

namespace berth::core {

class JobRunner {
 public:
  explicit JobRunner(int threads);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  void start(std::vector<JobDecl> jobs);
  void stop();
  // How many ticks of a job have finished (for tests and diagnostics).
  int runs(const std::string& job_id) const;

 private:
  struct Entry {
    JobDecl decl;
    std::chrono::steady_clock::time_point next;
    bool running = false;
    int runs = 0;
  };
  void dueJobsLoop();
  // A due job's tick, on a worker: runs it, then sets when it is due again.
  void runEntry(size_t index);

  int threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Entry> entries_;
  std::atomic<bool> stop_{false};
  std::thread due_jobs_thread_;
  std::unique_ptr<common::WorkerPool>
      workers_;  // one lane: the due-jobs thread posts due jobs in turn
};

}  // namespace berth::core
