#include <berth/common/worker_pool.hpp>

namespace berth::common {

WorkerPool::WorkerPool(PoolLimits limits, Start start) : limits_(limits), start_(start) {
  if (limits_.perKeyRunning == 0) limits_.perKeyRunning = 1;
  if (start_ == Start::Now) startThreads();
}

WorkerPool::~WorkerPool() {
  stop(Leftovers::Finish);
}

void WorkerPool::startThreads() {
  running_ = true;
  stopped_ = false;
  threads_.reserve(limits_.threads);
  for (size_t i = 0; i < limits_.threads; ++i) threads_.emplace_back([this] { run(); });
}

void WorkerPool::start() {
  std::lock_guard lock(mutex_);
  if (!running_) startThreads();
}

void WorkerPool::start(size_t threads) {
  std::lock_guard lock(mutex_);
  if (running_) return;
  limits_.threads = threads;
  startThreads();
}

void WorkerPool::markReady(const std::string& key, Lane& lane) {
  if (lane.ready || lane.waiting.empty() || lane.running >= limits_.perKeyRunning) return;
  lane.ready = true;
  ready_.push_back(key);
}

WorkerPool::Posted WorkerPool::post(const std::string& key, Task task) {
  {
    std::lock_guard lock(mutex_);
    if (!running_ && !stopped_ && start_ == Start::OnFirstPost) startThreads();
    if (!running_) return Posted::NotRunning;
    Lane& lane = lanes_[key];
    if (lane.waiting.size() >= limits_.perKeyQueue) {
      if (lane.waiting.empty() && lane.running == 0) lanes_.erase(key);
      return Posted::KeyQueueFull;
    }
    if (waiting_ >= limits_.totalQueue) {
      if (lane.waiting.empty() && lane.running == 0) lanes_.erase(key);
      return Posted::PoolFull;
    }
    lane.waiting.push_back(std::move(task));
    ++waiting_;
    markReady(key, lane);
  }
  wake_.notify_one();
  return Posted::Queued;
}

std::vector<WorkerPool::Task> WorkerPool::stop(Leftovers leftovers) {
  std::vector<Task> dropped;
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    running_ = false;
    stopped_ = true;
    if (leftovers == Leftovers::Drop) {
      for (auto it = lanes_.begin(); it != lanes_.end();) {
        Lane& lane = it->second;
        for (Task& task : lane.waiting) dropped.push_back(std::move(task));
        lane.waiting.clear();
        lane.ready = false;
        it = lane.running == 0 ? lanes_.erase(it) : std::next(it);
      }
      ready_.clear();
      waiting_ = 0;
    }
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (auto& thread : threads) thread.join();
  return dropped;
}

void WorkerPool::run() {
  for (;;) {
    Task task;
    std::string key;
    bool more = false;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return !running_ || !ready_.empty(); });
      if (ready_.empty()) return;  // stopping, and nothing left that may run
      key = std::move(ready_.front());
      ready_.pop_front();
      Lane& lane = lanes_[key];
      lane.ready = false;
      task = std::move(lane.waiting.front());
      lane.waiting.pop_front();
      --waiting_;
      ++lane.running;
      markReady(key, lane);  // its next task waits for its next turn, behind the other keys
      more = !ready_.empty();
    }
    if (more) wake_.notify_one();
    task();
    task = nullptr;  // what it held goes before the lane counts it done
    {
      std::lock_guard lock(mutex_);
      Lane& lane = lanes_[key];
      --lane.running;
      if (lane.waiting.empty() && lane.running == 0) {
        lanes_.erase(key);
        continue;
      }
      markReady(key, lane);
    }
    wake_.notify_one();
  }
}

}  // namespace berth::common
