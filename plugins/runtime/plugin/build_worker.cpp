#include "build_worker.hpp"

namespace berth::runtime {

bool BuildWorker::post(BuildJob job) {
  std::lock_guard lock(mutex_);
  if (stopping_) return false;
  if (threads_.empty())
    for (unsigned i = 0; i < thread_count_; ++i) threads_.emplace_back([this] { loop(); });
  queue_.push_back(std::move(job));
  wake_.notify_one();
  return true;
}

std::vector<BuildJob> BuildWorker::stop() {
  std::vector<BuildJob> never_started;
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    never_started.assign(queue_.begin(), queue_.end());
    queue_.clear();
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (auto& thread : threads) thread.join();
  return never_started;
}

void BuildWorker::loop() {
  while (true) {
    BuildJob job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    // run_ catches what a build throws; a build never ends a worker thread.
    run_(job);
  }
}

}  // namespace berth::runtime
