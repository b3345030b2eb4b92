// Token checks and memberships kept in memory between requests, so an authenticated request
// does not ask the database who is calling every time.
//
// Correctness before speed: every change to accounts, tokens or memberships sends NOTIFY
// berth_auth when it commits (triggers of core migrations 2 and 5, so an operator's own SQL
// counts too), and every berthd on the database LISTENs (on the core's one listening connection,
// app/change_listener.hpp, which hands this cache what it hears) and empties its cache when one
// arrives.
// The payload is the change's number (core.auth_changes.n); the cache records the last one it
// has applied, and its NodeHeartbeat (cluster/auth_nodes.hpp) writes that to core.nodes, where
// a revoking command waits for every live node to reach its change. Answers are served only
// while listening and within the heartbeat's lease (a paused node asks the database until it
// has caught up). A generation counter keeps a lookup that raced with a clear from putting its
// (possibly stale) answer back. A token's expiry is checked on every hit; an entry is also
// re-read after `max_age` so last_used_at stays right to the minute.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "http/http_types.hpp"

namespace berth::core {

struct Account;
class NodeHeartbeat;

inline constexpr const char* kAuthChannel = "berth_auth";

class AuthCache {
 public:
  struct Token {
    Caller caller;
    std::optional<int64_t> expires_at;  // epoch seconds
    int64_t checked_at = 0;             // when the database last confirmed it
  };

  AuthCache(std::string database_url, std::chrono::seconds max_age);
  ~AuthCache();  // removes this node from core.nodes
  AuthCache(const AuthCache&) = delete;
  AuthCache& operator=(const AuthCache&) = delete;

  // Starts the node's heartbeat; lookups miss until the core's listener has connected and the
  // first beat has renewed the lease.
  void start();

  // What the core's listener hears on kAuthChannel (its thread, one at a time).
  void heardListening();
  void heard(std::string_view payload);  // a change's number
  void heardNotListening();

  // The generation to pass to the put calls: read it before asking the database.
  uint64_t generation() const { return generation_.load(); }

  // A token still valid at `now` and confirmed less than max_age ago.
  std::optional<Caller> token(const std::string& digest, int64_t now);
  void putToken(const std::string& digest, Token token, uint64_t generation);

  std::optional<std::vector<Account>> memberships(const std::string& user_id);
  void putMemberships(const std::string& user_id, std::vector<Account> accounts,
                      uint64_t generation);

  void clear();
  bool listening() const { return listening_.load(); }

  // The last auth change (core.auth_changes.n) this cache has caught up with: every change up
  // to it had committed when the cache was last emptied.
  int64_t applied() const { return applied_.load(); }
  // Empties the cache because every change up to `change` has committed, and records it.
  void catchUp(int64_t change);
  // Answers may be served until `until` (the heartbeat's lease); endLease() stops them now.
  void renewLease(std::chrono::steady_clock::time_point until);
  void endLease() { lease_until_ = 0; }

 private:
  std::string url_;
  int64_t max_age_;
  std::atomic<uint64_t> generation_{1};
  std::atomic<bool> listening_{false};
  std::atomic<int64_t> applied_{0};
  std::atomic<int64_t> lease_until_{0};  // steady_clock ticks
  bool serving() const;
  std::mutex mutex_;
  std::unordered_map<std::string, Token> tokens_;
  std::unordered_map<std::string, std::vector<Account>> memberships_;
  std::unique_ptr<NodeHeartbeat> node_;
};

}  // namespace berth::core
