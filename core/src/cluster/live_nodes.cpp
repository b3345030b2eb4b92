#include "cluster/live_nodes.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <mutex>

#include "auth/accounts.hpp"  // randomHex
#include "db/pool.hpp"

namespace berth::core {

namespace {

std::mutex& registryMutex() {
  static std::mutex mutex;
  return mutex;
}

struct Registry {
  std::string address;
  nlohmann::json labels = nlohmann::json::object();
  std::string id;
  std::vector<LiveNode> live;
  std::string secret;
};

Registry& registry() {
  static Registry r;
  return r;
}

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

void setThisNode(std::string address, nlohmann::json labels) {
  std::lock_guard lock(registryMutex());
  registry().address = std::move(address);
  registry().labels = std::move(labels);
}

std::string thisNodeAddress() {
  std::lock_guard lock(registryMutex());
  return registry().address;
}

nlohmann::json thisNodeLabels() {
  std::lock_guard lock(registryMutex());
  return registry().labels;
}

void setThisNodeId(const std::string& id) {
  std::lock_guard lock(registryMutex());
  registry().id = id;
}

std::string thisNodeId() {
  std::lock_guard lock(registryMutex());
  return registry().id;
}

void setLiveNodes(std::vector<LiveNode> nodes) {
  std::lock_guard lock(registryMutex());
  registry().live = std::move(nodes);
}

std::vector<LiveNode> liveNodes() {
  std::lock_guard lock(registryMutex());
  return registry().live;
}

std::optional<std::string> liveNodeAddress(const std::string& id) {
  std::lock_guard lock(registryMutex());
  for (const auto& node : registry().live)
    if (node.id == id && !node.address.empty()) return node.address;
  return std::nullopt;
}

std::string liveNodesJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& node : liveNodes())
    out.push_back({{"id", node.id}, {"address", node.address}, {"labels", node.labels}});
  return out.dump();
}

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

const std::string& loadClusterSecret(Pool& pool) {
  // 32 random bytes in hex; the first node's INSERT wins, every node reads the same row.
  auto r = pool.exec(
      "WITH made AS (INSERT INTO core.cluster_secret (secret) VALUES ($1) "
      "ON CONFLICT (only_row) DO NOTHING RETURNING secret) "
      "SELECT secret FROM made UNION ALL SELECT secret FROM core.cluster_secret",
      {randomHex(32)});
  // Another node's first INSERT, committed after this statement's snapshot: read it now.
  if (r.rows() == 0) r = pool.exec("SELECT secret FROM core.cluster_secret");
  std::lock_guard lock(registryMutex());
  registry().secret = r.value(0, 0);
  return registry().secret;
}

const std::string& clusterSecret() {
  std::lock_guard lock(registryMutex());
  return registry().secret;
}

}  // namespace berth::core
