#include "worker_pool.hpp"

namespace berth::sqlconsole {

WorkerPool::WorkerPool(size_t threads, size_t queue_limit) : queue_limit_(queue_limit) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

bool WorkerPool::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= queue_limit_) return false;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

namespace {

using Work = std::function<void(const berth::Request&, berth::Responder&)>;

// work on the pool, its errors answered: a berth::Error as it says, anything else 500 (logged).
bool post(WorkerPool& pool, const berth::Logger& logger,
          const std::shared_ptr<berth::Exchange>& exchange, Work work) {
  std::string request_id = exchange->request.id();
  return pool.post([exchange, logger, request_id, work = std::move(work)] {
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
  if (!post(pool, logger, exchange, std::move(work)))
    exchange->responder.error(503, "the database console is busy; try again");
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
  if (!post(pool, logger, exchange, std::move(rest)))
    exchange->responder.error(503, "the database console is busy; try again");
}

}  // namespace berth::sqlconsole
