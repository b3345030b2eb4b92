/** @file berth/cluster.hpp
 *  Several berthd nodes on one control plane, as a plugin sees them. Built on the ABI as it is
 *  (core settings and a reserved response header); needs a core that knows them (one whose
 *  coreSetting("cluster.node_id") answers).
 *
 *  Core settings (Services::coreSetting):
 *  - "cluster.node_id": this node's id in core.nodes, new at every start of berthd;
 *  - "cluster.node_address": the address other nodes' edges reach this node's project traffic
 *    at (cluster.node_address in berth.yaml, else the edge's listen address; "" when it
 *    listens on a wildcard address and none was given);
 *  - "cluster.nodes": the live nodes (heartbeat younger than 5 s, read every second) as JSON,
 *    [{"id": ..., "address": "10.0.0.5:8080", "labels": {"region": "eu"}}];
 *  - "cluster.forward_proof": the cluster secret the edges send as X-Berth-Forwarded with a
 *    request forwarded to another node (forwardedByNode() compares it).
 *
 *  proxyToNode() answers a project-host request by forwarding it to a live node's edge: the
 *  reserved header X-Berth-Proxy-Node names the node, and the core finds its registered
 *  address (a plugin never names an address); the client's method, Host, path, query and body
 *  go on, the answer streams back. The core refuses (500) a proxy to this node itself or on the
 *  API host, and answers 503 with Retry-After when the node is not live. */
#pragma once
#include <berth/http.hpp>
#include <berth/services.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace berth {

/** This node's id; "" when the core runs no cluster registry. */
inline std::string thisNodeId(const Services& services) {
  return services.coreSetting("cluster.node_id").value_or("");
}

/** True when another node's edge forwarded this request (X-Berth-Forwarded carries the cluster
 *  secret, compared in constant time). Such a request is to be served here, never forwarded
 *  again: that is the loop guard. A client cannot send it without the secret. */
inline bool forwardedByNode(const Services& services, const Request& request) {
  std::optional<std::string> given = request.header("x-berth-forwarded");
  if (!given) return false;
  const std::string proof = services.coreSetting("cluster.forward_proof").value_or("");
  if (proof.empty() || given->size() != proof.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < proof.size(); ++i)
    difference |= static_cast<unsigned char>((*given)[i] ^ proof[i]);
  return difference == 0;
}

/** Has the edge forward the request to the edge of the live node `node_id` (see the file
 *  comment). The body "1" of the PROXY answer is not used. */
inline void proxyToNode(Responder& responder, std::string_view node_id) {
  responder.proxy(1, {{"X-Berth-Proxy-Node", std::string(node_id)}});
}

}  // namespace berth
