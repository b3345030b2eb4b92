#include "worker_pool.hpp"

namespace berth::sqlconsole {

WorkerPool::WorkerPool(PoolLimits limits, std::function<std::string(const berth::Request&)> key_of)
    : limits_(std::move(limits)), key_of_(std::move(key_of)) {
  if (limits_.perKeyRunning == 0) limits_.perKeyRunning = 1;
  threads_.reserve(limits_.threads);
  for (size_t i = 0; i < limits_.threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void WorkerPool::markReady(const std::string& key, Lane& lane) {
  if (lane.ready || lane.waiting.empty() || lane.running >= limits_.perKeyRunning) return;
  lane.ready = true;
  ready_.push_back(key);
}

WorkerPool::Posted WorkerPool::post(const std::string& key, std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Posted::Stopping;
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

berth::Error WorkerPool::refusal(Posted why) const {
  std::string message;
  if (why == Posted::KeyQueueFull) {
    message = "this project already has " + std::to_string(limits_.perKeyQueue) + " " +
              limits_.what + " waiting (" + limits_.queueKey + ") behind the " +
              std::to_string(limits_.perKeyRunning) + " it may run at once" +
              (limits_.runningKey.empty() ? "" : " (" + limits_.runningKey + ")") +
              "; try again when some have answered";
  } else {
    message = "the database console is busy; try again";
  }
  return berth::Error(503, message)
      .withHeader("Retry-After", std::to_string(limits_.retryAfterSeconds));
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> task;
    std::string key;
    bool more = false;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !ready_.empty(); });
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

namespace {

using Work = std::function<void(const berth::Request&, berth::Responder&)>;

// work on the pool, its errors answered: a berth::Error as it says, anything else 500 (logged).
WorkerPool::Posted post(WorkerPool& pool, const berth::Logger& logger,
                        const std::shared_ptr<berth::Exchange>& exchange, Work work) {
  std::string request_id = exchange->request.id();
  return pool.post(
      pool.keyOf(exchange->request), [exchange, logger, request_id, work = std::move(work)] {
        try {
          work(exchange->request, exchange->responder);
        } catch (const berth::Error& e) {
          exchange->responder.error(e);
        } catch (const std::exception& e) {
          logger.write(berth::LogLevel::Error, request_id, std::string("sqlconsole: ") + e.what());
          exchange->responder.error(500, "internal error");
        }
      });
}

}  // namespace

void answerLater(WorkerPool& pool, const berth::Logger& logger, berth::Request request,
                 berth::Responder responder, Work work) {
  auto exchange = berth::Exchange::make(std::move(request), std::move(responder));
  const WorkerPool::Posted posted = post(pool, logger, exchange, std::move(work));
  if (posted != WorkerPool::Posted::Queued) exchange->responder.error(pool.refusal(posted));
}

std::string movedToPoolMessage(std::chrono::microseconds wait) {
  return "the database did not answer the read within " + std::to_string(wait.count()) +
         " us; a worker waits for it";
}

void answerSoon(WorkerPool& pool, const berth::Logger& logger, berth::Request request,
                berth::Responder responder,
                std::function<void(const berth::Request&, berth::Responder&, RunOn)> work) {
  auto exchange = berth::Exchange::make(std::move(request), std::move(responder));
  Work rest;
  try {
    work(exchange->request, exchange->responder, RunOn::CoreThread);
    return;
  } catch (const NeedsPool&) {
    rest = [work](const berth::Request& req, berth::Responder& resp) {
      work(req, resp, RunOn::Pool);
    };
  } catch (FinishOnPool& finish) {
    rest = std::move(finish.rest);
  } catch (const berth::Error& e) {
    exchange->responder.error(e);
    return;
  } catch (const std::exception& e) {
    logger.write(berth::LogLevel::Error, exchange->request.id(),
                 std::string("sqlconsole: ") + e.what());
    exchange->responder.error(500, "internal error");
    return;
  }
  const WorkerPool::Posted posted = post(pool, logger, exchange, std::move(rest));
  if (posted != WorkerPool::Posted::Queued) exchange->responder.error(pool.refusal(posted));
}

}  // namespace berth::sqlconsole
