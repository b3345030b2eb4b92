#include "edge_address.hpp"

namespace berth::scheduler {

std::optional<EdgeAddress> edgeAddress(std::string_view listen) {
  size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string host(listen.substr(0, colon));
  std::string_view port_text = listen.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : port_text) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  if (host.front() == '[') {
    if (host.back() != ']' || host.size() < 3) return std::nullopt;
    if (host == "[::]") host = "[::1]";
  } else if (host.find(':') != std::string::npos) {
    return std::nullopt;  // an IPv6 address without brackets
  } else if (host == "0.0.0.0" || host == "*") {
    host = "127.0.0.1";
  }
  return EdgeAddress{host, port};
}

}  // namespace berth::scheduler
