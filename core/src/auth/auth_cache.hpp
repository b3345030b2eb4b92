// Token checks and memberships kept in memory between requests, so an authenticated request
// does not ask the database who is calling every time.
//
// Correctness before speed: every change to accounts, tokens or memberships sends NOTIFY
// berth_auth when it commits (triggers of core migration 2, so an operator's own SQL counts
// too), and every berthd on the database LISTENs and empties its cache when one arrives: a
// revocation reaches every node within moments. While the listening connection is down
// nothing is served from the cache. A generation counter keeps a lookup that raced with a
// clear from putting its (possibly stale) answer back. A token's expiry is checked on every
// hit; an entry is also re-read after `max_age` so last_used_at stays right to the minute.
#pragma once
#include <berth/pg_listener.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/http_types.hpp"

namespace berth::core {

struct Account;

inline constexpr const char* kAuthChannel = "berth_auth";

class AuthCache {
 public:
  struct Token {
    Caller caller;
    std::optional<int64_t> expires_at;  // epoch seconds
    int64_t checked_at = 0;             // when the database last confirmed it
  };

  AuthCache(std::string database_url, std::chrono::seconds max_age);
  ~AuthCache();  // stops listening
  AuthCache(const AuthCache&) = delete;
  AuthCache& operator=(const AuthCache&) = delete;

  // Starts the listening thread; lookups miss until it is listening.
  void start();

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

 private:
  std::string url_;
  int64_t max_age_;
  std::atomic<uint64_t> generation_{1};
  std::atomic<bool> listening_{false};
  std::mutex mutex_;
  std::unordered_map<std::string, Token> tokens_;
  std::unordered_map<std::string, std::vector<Account>> memberships_;
  std::unique_ptr<berth::PgListener> listener_;
};

}  // namespace berth::core
