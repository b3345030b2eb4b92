// Which addresses a node may register for the other nodes' edges (cluster/live_nodes.hpp):
// pure, with no dependency beyond the C library, so the config loader (and its fuzz target)
// can check cluster.node_address with it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace berth::core {

// An address nginx can proxy to without a resolver: an IPv4 literal or a bracketed IPv6
// literal, then ':' and a port 1-65535. ("10.0.0.5:8080", "[fd00::5]:8080")
bool isNodeAddress(std::string_view address);
// The address registered by default: `listen` when it is such an address and not a wildcard
// (0.0.0.0, [::]) nor loopback-by-name; "localhost:P" becomes "127.0.0.1:P". "" otherwise.
std::string defaultNodeAddress(const std::string& host, uint16_t port);

}  // namespace berth::core
