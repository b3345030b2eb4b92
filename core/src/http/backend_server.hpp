// Pistache on a private loopback port behind the nginx edge. It copies each request into an
// HttpRequest, hands it to the Dispatcher, and sends the answer from whichever thread gives it.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "http/dispatcher.hpp"

namespace Pistache::Http {
class Endpoint;
}

namespace berth::core {

struct BackendState;

class BackendServer {
 public:
  BackendServer(const Dispatcher& dispatcher, int threads, size_t max_request_bytes);
  ~BackendServer();

  void start(uint16_t port);  // 127.0.0.1:port; 0 picks a free port
  uint16_t port() const { return port_; }

  // From now on new requests get 503 with Connection: close.
  void beginDrain();
  // Waits until every request in flight has been answered; false on timeout.
  bool waitIdle(std::chrono::milliseconds timeout);
  void stop();
  int inFlight() const;

 private:
  std::shared_ptr<BackendState> state_;
  std::unique_ptr<Pistache::Http::Endpoint> endpoint_;
  int threads_;
  size_t max_request_bytes_;
  uint16_t port_ = 0;
};

}  // namespace berth::core
