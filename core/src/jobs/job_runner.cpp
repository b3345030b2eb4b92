#include "jobs/job_runner.hpp"

#include <berth/common/worker_pool.hpp>

#include "log/logging.hpp"

namespace berth::core {

JobRunner::JobRunner(int threads) : threads_(threads < 1 ? 1 : threads) {}

JobRunner::~JobRunner() {
  stop();
}

void JobRunner::start(std::vector<JobDecl> jobs) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    for (auto& j : jobs) {
      Entry e;
      e.next = j.run_on_start ? now : now + j.period;
      e.decl = std::move(j);
      entries_.push_back(std::move(e));
    }
  }
  if (entries_.empty()) return;
  workers_ = std::make_unique<common::WorkerPool>(
      common::PoolLimits{.threads = std::min<size_t>(threads_, entries_.size())});
  due_jobs_thread_ = std::thread([this] { dueJobsLoop(); });
}

void JobRunner::dueJobsLoop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    auto now = std::chrono::steady_clock::now();
    auto next_wake = now + std::chrono::seconds(60);
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      if (e.running) continue;
      if (e.next <= now) {
        e.running = true;
        workers_->post([this, i] { runEntry(i); });
      } else if (e.next < next_wake) {
        next_wake = e.next;
      }
    }
    wake_.wait_until(lock, next_wake);
  }
}

void JobRunner::runEntry(size_t index) {
  if (stop_) return;  // due, but stop() has begun: it does not start
  std::unique_lock lock(mutex_);
  auto run = entries_[index].decl.run;
  std::string id = entries_[index].decl.id;
  lock.unlock();
  try {
    run(stop_);
  } catch (const std::exception& e) {
    logLine(*getLogger("jobs"), spdlog::level::err, "", "", "job " + id + " failed: " + e.what());
  } catch (...) {
    logLine(*getLogger("jobs"), spdlog::level::err, "", "", "job " + id + " failed");
  }
  lock.lock();
  Entry& e = entries_[index];
  e.running = false;
  e.runs++;
  e.next = std::chrono::steady_clock::now() + e.decl.period;
  wake_.notify_all();
}

void JobRunner::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stop_.exchange(true)) return;
    wake_.notify_all();
  }
  if (due_jobs_thread_.joinable()) due_jobs_thread_.join();
  // Running jobs see stop_ and end; due ones never start.
  if (workers_) workers_->stop(common::WorkerPool::Leftovers::Drop);
}

int JobRunner::runs(const std::string& job_id) const {
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_)
    if (e.decl.id == job_id) return e.runs;
  return 0;
}

}  // namespace berth::core
