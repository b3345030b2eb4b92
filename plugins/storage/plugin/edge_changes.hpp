// Keeps this node's edge tree (edge_tree.hpp) true to changes any node makes. Every node shares
// one PostgreSQL and one blob store, but each keeps its own tree, and nginx sends from it
// without asking berthd, so a change heard from the database must reach the tree:
//
// - berth_storage_usage (migration 0002: a blob row inserted, updated or deleted, with the
//   project's id): the project's entries are checked against the record on a work thread, and
//   those whose file is gone or names other bytes are removed. Entries for the current bytes
//   stay, so a node hearing its own change keeps the link it just made. "*" (a truncate) drops
//   the whole tree.
// - berth_project_domains (the projects plugin's migration 0006: a custom domain row added,
//   verified, moved or removed, with the project's id): the hosts kept in memory and the
//   project's host links go; the next miss on a host it still has puts one back.
// - pg.listening drops the whole tree and trusts it again; pg.not_listening drops it and adds
//   nothing until then: changes made meanwhile were not heard.
//
// A link made from a read that predates a change is checked after it is made (FileHandlers'
// publishChecked), and host links from a lookup that predates a domain change are refused
// (EdgeTree::hostGeneration), so no race leaves old bytes linked.
#pragma once
#include <berth/plugin.hpp>

#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "context.hpp"

namespace berth::storage {

// The projects plugin's NOTIFY when a custom domain row changes (its 0006_domains_notify.sql).
inline constexpr const char* kDomainsChannel = "berth_project_domains";

class EdgeChanges {
 public:
  explicit EdgeChanges(Context& context) : c_(context) {}

  // Hooks both channels (in registerAll; the callbacks run after start()).
  void listen(berth::Registrar& r);

  // A blob row of the project changed: its entries are checked on a work thread. Checks asked
  // for while one is queued share it.
  void filesChanged(std::string_view project_id);
  // A domain row of the project changed.
  void domainsChanged(std::string_view project_id);

 private:
  // Removes the project's entries the record no longer names (run on a work thread).
  void check(const std::string& project_id);

  Context& c_;
  std::mutex mutex_;
  std::set<std::string> queued_;  // projects whose check has not begun
};

}  // namespace berth::storage
