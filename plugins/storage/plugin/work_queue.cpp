#include "work_queue.hpp"

namespace berth::storage {

void WorkQueue::start(size_t threads) {
  std::lock_guard lock(mutex_);
  stopping_ = false;
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

bool WorkQueue::post(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || threads_.empty()) return false;
    queue_.push_back(std::move(work));
  }
  wake_.notify_one();
  return true;
}

void WorkQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
  threads_.clear();
}

void WorkQueue::run() {
  while (true) {
    std::function<void()> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued is done
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
  }
}

}  // namespace berth::storage
