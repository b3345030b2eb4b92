// The berthd nodes that serve from an auth cache, and the wait that puts an auth change (a
// revoked token, a removed or demoted member) in force on all of them before the command or
// route that made it returns.
//
// NOTIFY berth_auth empties every node's cache, but a moment after the commit: without a wait
// the next request could still be answered from a cache. So (core migration 5):
// - every auth change bumps core.auth_changes.n in its own transaction and sends the new number
//   as the notification's payload; the row lock keeps the numbers in commit order;
// - every serving berthd is a row of core.nodes. Its NodeHeartbeat writes heartbeat_at every
//   second, and `applied`, the last change its cache has caught up with: at once after a
//   notification empties the cache, and at each beat, which also reads n and empties the cache
//   when it is behind (so a lost notification costs at most a beat);
// - a node serves from its cache only while its last beat began less than kCacheLease ago: a
//   node that was paused (or cut from the database) asks the database until it has beaten again
//   and caught up;
// - waitUntilInForce() reads n after the change's commit and waits until every node's `applied`
//   reaches it. A node whose heartbeat is older than kGoneAfter (> kCacheLease) is not live: its
//   row is removed (only if it has not beaten meanwhile), so its lease has run out and its next
//   beat registers it afresh with an emptied cache. A live node that has not confirmed within
//   the bound makes the wait throw NotInForce.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/pool.hpp"

namespace berth::core {

class AuthCache;

inline constexpr std::chrono::milliseconds kHeartbeatEvery{1000};
// A node serves from its cache only this long after its last successful beat began.
inline constexpr std::chrono::milliseconds kCacheLease{4000};
// A node whose heartbeat is older is not live (longer than the lease, so its cache is off).
inline constexpr std::chrono::milliseconds kGoneAfter{5000};
// How long a revoking command waits by default: past kGoneAfter, so a node that stopped
// beating is found gone rather than making the command fail.
inline constexpr std::chrono::milliseconds kDefaultInForceBound{10000};

// The change is committed, but a live node has not confirmed it within the bound.
class NotInForce : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InForce {
  int64_t change = 0;  // the core.auth_changes.n waited for
  std::chrono::milliseconds waited{0};
  int confirmed = 0;              // live nodes that have applied it
  std::vector<std::string> gone;  // nodes found not live ("host pid N"), removed from core.nodes
};

// Waits until every live node has applied every auth change committed so far; call it after
// the commit. Throws NotInForce after `bound`, DbError / DbUnavailable when the database fails.
InForce waitUntilInForce(Pool& pool, std::chrono::milliseconds bound);

// This berthd's row in core.nodes, beaten every second on a connection of its own; removed on
// stop(). It keeps `cache` caught up and its lease renewed, registers this node's project
// address and labels, and reads the live nodes at each beat (cluster/live_nodes.hpp).
class NodeHeartbeat {
 public:
  NodeHeartbeat(std::string database_url, AuthCache& cache);
  ~NodeHeartbeat();
  NodeHeartbeat(const NodeHeartbeat&) = delete;
  NodeHeartbeat& operator=(const NodeHeartbeat&) = delete;

  void start();
  void stop();  // joins the thread and removes the row
  // The cache has applied a newer change: record it now rather than at the next beat.
  void wake();
  const std::string& id() const { return id_; }

 private:
  void loop();
  void beat();
  void readLiveNodes();  // after each beat: the live nodes' addresses (live_nodes.hpp)

  AuthCache& cache_;
  Pool pool_;
  std::string id_;
  std::string host_;
  int64_t written_ = -1;  // the `applied` last written (loop thread only)
  bool registered_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace berth::core
