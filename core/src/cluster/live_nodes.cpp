#include "cluster/live_nodes.hpp"

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
