// parseListen: the "host:port" form of server.listen and of plugin keys such as a DNS resolver.
#include <arpa/inet.h>

#include <string>

#include "config/config_text.hpp"
#include "config/settings.hpp"

namespace berth::core {
namespace {

bool isIpv4(const std::string& host) {
  // inet_pton, unlike inet_aton, takes only the full dotted quad: "1.2.3" and "0x7f.1" fail.
  in_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1;
}

bool isBracketedIpv6(const std::string& host) {
  if (host.size() < 3 || host.front() != '[' || host.back() != ']') return false;
  in6_addr address{};
  return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &address) == 1;
}

}  // namespace

ListenAddress parseListen(const std::string& value, const std::string& what) {
  const std::string malformed = what + ": expected host:port, got \"" + value + "\"";
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos) throw ConfigError(malformed);
  const std::string host = value.substr(0, colon);
  const std::string port_text = value.substr(colon + 1);
  if (host != "localhost" && !isIpv4(host) && !isBracketedIpv6(host)) {
    throw ConfigError(what + ": expected host:port with an IPv4 address, localhost or [IPv6] " +
                      "as host, got \"" + value + "\"");
  }
  const auto port = parseInteger(port_text);
  if (port_text.empty() || port_text.front() == '+' || port_text.front() == '-' || !port) {
    throw ConfigError(malformed);
  }
  if (*port > 65535) {
    throw ConfigError(what + ": port must be from 0 to 65535, got \"" + value + "\"");
  }
  ListenAddress address;
  address.host = host;
  address.port = static_cast<uint16_t>(*port);
  return address;
}

}  // namespace berth::core
