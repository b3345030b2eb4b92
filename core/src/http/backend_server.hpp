// Pistache on a private loopback port behind the nginx edge. It copies each request into an
// HttpRequest, hands it to the Dispatcher, and sends the answer from whichever thread gives it.
// A request without the edge's proof (X-Berth-Edge-Proof, see edge_trust.hpp) is answered 403
// and goes no further; one naming a body file that is not a spooled body of the edge's body
// folder (berth/util/spooled_body.hpp) is answered 400.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "http/dispatcher.hpp"

namespace Pistache::Http {
class Endpoint;
}

namespace berth::core {

struct BackendState;

class BackendServer {
 public:
  // edge_proof: the secret nginx adds to every request (empty: every request is refused);
  // body_dir: the folder nginx spools bodies to.
  BackendServer(const Dispatcher& dispatcher, int threads, size_t max_request_bytes,
                std::string edge_proof, std::string body_dir);
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
