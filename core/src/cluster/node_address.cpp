#include "cluster/node_address.hpp"

#include <arpa/inet.h>

#include <charconv>

namespace berth::core {

namespace {

bool isIpv4(const std::string& text) {
  in_addr out{};
  return ::inet_pton(AF_INET, text.c_str(), &out) == 1;
}

bool isIpv6(const std::string& text) {
  in6_addr out{};
  return ::inet_pton(AF_INET6, text.c_str(), &out) == 1;
}

// 0.0.0.0 and :: name no machine another node could reach.
bool isUnspecified(const std::string& host) {
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return v4.s_addr == 0;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_UNSPECIFIED(&v6);
  return false;
}

}  // namespace

bool isNodeAddress(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view port_text = address.substr(colon + 1);
  int port = 0;
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() ||
      port < 1 || port > 65535)
    return false;
  const std::string host(address.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    const std::string inner = host.substr(1, host.size() - 2);
    return isIpv6(inner) && !isUnspecified(inner);
  }
  return isIpv4(host) && !isUnspecified(host);
}

std::string defaultNodeAddress(const std::string& host, uint16_t port) {
  const std::string p = std::to_string(port);
  if (host == "localhost") return "127.0.0.1:" + p;
  // A wildcard says nothing about how the others reach this node: cluster.node_address must.
  if (host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]") return "";
  std::string address = (isIpv6(host) ? "[" + host + "]" : host) + ":" + p;
  return isNodeAddress(address) ? address : "";
}

}  // namespace berth::core
