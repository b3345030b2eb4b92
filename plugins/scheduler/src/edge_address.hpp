// Where a node sends its schedule runs: berthd's own listener (server.listen), so a run passes
// through the edge and the project gateway like any request. A wildcard bind address is
// reached on loopback.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth::scheduler {

struct EdgeAddress {
  std::string host;  // as it goes into a URL: 127.0.0.1, localhost, [::1]
  int port = 0;

  std::string baseUrl() const { return "http://" + host + ":" + std::to_string(port); }
};

// "127.0.0.1:8080", "0.0.0.0:80", "[::]:8080", "localhost:8080"; nothing for text that is not
// host:port with a port 1..65535.
std::optional<EdgeAddress> edgeAddress(std::string_view listen);

}  // namespace berth::scheduler
