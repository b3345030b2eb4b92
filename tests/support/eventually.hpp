// Polling for an effect that lands asynchronously (a file written by another process, the edge
// reloading, a release built), never to judge how fast it lands.
#pragma once
#include <chrono>
#include <thread>

namespace berth::testing {

// Polls pred() every `poll` until it holds or `limit` has passed; returns whether it held (it is
// asked once more after the limit, so a slow machine still sees a late effect).
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(20),
                std::chrono::milliseconds poll = std::chrono::milliseconds(100)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(poll);
  }
  return pred();
}

}  // namespace berth::testing
