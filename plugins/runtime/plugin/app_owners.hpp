// Which node runs each project's process app when several berthd share the control plane
// (runtime.app_owners, migration 0007). One node owns a project's app at a time: the node a
// request reaches claims it in one statement, which succeeds when nobody owns it, this node
// does, or the owner has not renewed for kClaimLasts (app_owner_rules.hpp). The owner renews
// every second while the app runs (Gateway::idleRound) and releases it when the app stops
// (idle stop, deletion, a new release, this node's stop); a claim its node forgot (a crash)
// goes with the next round's sweep, a dead node's with the expiry, or at once when the owner
// is not a live node with an address (a berthd killed and started again has a new node id).
//
// Off (every node serves locally, as with one node) when the core offers no node id or no
// cluster secret (core setting cluster.node_id, cluster.forward_proof).
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "app_owner_rules.hpp"
#include "context.hpp"

namespace berth::runtime {

class AppOwners {
 public:
  explicit AppOwners(const Context& context) : context_(context) {}

  // Reads this node's id from the core (start() has run by the first request).
  bool enabled();
  const std::string& nodeId();

  // Claims the project's app for this node. "" when this node holds the claim now, else the
  // owner's node id. Another node's answer is remembered for kRememberOwner, so a node that
  // proxies every request of a project asks the database about once a second, not per request.
  // @throw what the database throws (the gateway then serves locally: see Gateway::serveApp).
  std::string claim(const std::string& project_id);
  // The idle round: renews the claims of the apps running here, drops this node's claims
  // not renewed for kDropUnrenewedAfter (apps that stopped or crashed).
  void renew(const std::vector<std::string>& running);
  void release(const std::string& project_id);
  void releaseAll();  // this node stops

  static constexpr std::chrono::milliseconds kRememberOwner{1000};

 private:
  // Drops the claims of the berthd that ran on this data_dir before (runtime/node names it).
  void forgetPredecessor();
  // A live node with a registered address (core setting cluster.nodes).
  bool reachable(const std::string& node_id) const;
  const Context& context_;
  std::mutex mutex_;
  bool read_ = false;
  std::string node_id_;  // "" when off
  struct Remembered {
    std::string owner;
    std::chrono::steady_clock::time_point until;
  };
  std::map<std::string, Remembered> others_;  // project id -> another node's claim
};

}  // namespace berth::runtime
