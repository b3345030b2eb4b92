#include "worker_pool.hpp"

namespace berth::sqlconsole {

WorkerPool::WorkerPool(PoolLimits limits, std::function<std::string(const berth::Request&)> key_of)
    : limits_(std::move(limits)), key_of_(std::move(key_of)), pool_(limits_) {
  static_cast<common::PoolLimits&>(limits_) = pool_.limits();  // as applied, for refusal()
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
