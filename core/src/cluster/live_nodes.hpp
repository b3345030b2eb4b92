// What this node tells the other berthd nodes and what it knows of them (core migration 6).
//
// Each node registers in core.nodes (NodeHeartbeat) the address other nodes' edges proxy a
// project's traffic to (cluster.node_address, default the edge's project listen address) and
// its labels (cluster.labels). At each beat (every second) it reads the live nodes (heartbeat
// younger than kGoneAfter) and keeps them here: the core checks a plugin's "proxy to node"
// answer against them (a plugin names a node id, never an address), and plugins read them as
// the core setting cluster.nodes.
//
// The cluster secret (core.cluster_secret, made by the first node that starts) marks a request
// one node's edge forwarded to another: the edge sends it as X-Berth-Forwarded, the receiver
// serves such a request itself (never forwards it again). A client cannot forge the marker
// without the secret, which only the control plane, berthd and its nginx config hold.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/node_address.hpp"

namespace berth::core {

class Pool;

struct LiveNode {
  std::string id;
  std::string address;  // host:port, "" when the node gave none (it cannot be proxied to)
  nlohmann::json labels = nlohmann::json::object();
};

// Set once at start, before the heartbeat registers the node.
void setThisNode(std::string address, nlohmann::json labels);
std::string thisNodeAddress();
nlohmann::json thisNodeLabels();
void setThisNodeId(const std::string& id);  // NodeHeartbeat, at its construction
std::string thisNodeId();                   // "" before

// The live nodes as last read (each beat replaces them whole).
void setLiveNodes(std::vector<LiveNode> nodes);
std::vector<LiveNode> liveNodes();
// The address of a live node with that id, if it registered one.
std::optional<std::string> liveNodeAddress(const std::string& id);
// [{"id", "address", "labels"}] of the live nodes (core setting cluster.nodes).
std::string liveNodesJson();

// Reads core.cluster_secret, making it first when no node has (one statement, so two nodes
// starting at once agree); keeps it for clusterSecret().
const std::string& loadClusterSecret(Pool& pool);
const std::string& clusterSecret();  // "" before loadClusterSecret

}  // namespace berth::core
