#include "auth/auth_cache.hpp"

#include <charconv>
#include <memory>

#include "auth/accounts.hpp"
#include "cluster/auth_nodes.hpp"

namespace berth::core {

namespace {

// Caches are small: a bound keeps a flood of distinct valid tokens from growing it forever.
constexpr size_t kMaxEntries = 100000;

}  // namespace

AuthCache::AuthCache(std::string database_url, std::chrono::seconds max_age)
    : url_(std::move(database_url)), max_age_(max_age.count()) {}

AuthCache::~AuthCache() {
  if (node_) node_->stop();  // a clean stop: others stop waiting for this node
}

void AuthCache::start() {
  if (node_) return;
  node_ = std::make_unique<NodeHeartbeat>(url_, *this);
  node_->start();
}

void AuthCache::heardListening() {
  clear();  // anything may have changed while nobody listened
  listening_ = true;
}

void AuthCache::heard(std::string_view payload) {
  int64_t change = 0;
  auto [end, error] = std::from_chars(payload.data(), payload.data() + payload.size(), change);
  if (error != std::errc() || end != payload.data() + payload.size()) {
    clear();  // a change without a number (a trigger older than migration 5)
    return;
  }
  catchUp(change);
  if (node_) node_->wake();
}

void AuthCache::heardNotListening() {
  listening_ = false;
  clear();
}

bool AuthCache::serving() const {
  return listening_.load() &&
         std::chrono::steady_clock::now().time_since_epoch().count() < lease_until_.load();
}

void AuthCache::catchUp(int64_t change) {
  clear();
  int64_t seen = applied_.load();
  while (seen < change && !applied_.compare_exchange_weak(seen, change)) {
  }
}

void AuthCache::renewLease(std::chrono::steady_clock::time_point until) {
  lease_until_ = until.time_since_epoch().count();
}

std::optional<Caller> AuthCache::token(const std::string& digest, int64_t now) {
  if (!serving()) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = tokens_.find(digest);
  if (it == tokens_.end()) return std::nullopt;
  const Token& t = it->second;
  if ((t.expires_at && *t.expires_at <= now) || now - t.checked_at >= max_age_) {
    tokens_.erase(it);
    return std::nullopt;
  }
  return t.caller;
}

void AuthCache::putToken(const std::string& digest, Token token, uint64_t generation) {
  if (!listening_) return;
  std::lock_guard lock(mutex_);
  if (generation != generation_.load()) return;
  if (tokens_.size() >= kMaxEntries) tokens_.clear();
  tokens_[digest] = std::move(token);
}

std::optional<std::vector<Account>> AuthCache::memberships(const std::string& user_id) {
  if (!serving()) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = memberships_.find(user_id);
  if (it == memberships_.end()) return std::nullopt;
  return it->second;
}

void AuthCache::putMemberships(const std::string& user_id, std::vector<Account> accounts,
                               uint64_t generation) {
  if (!listening_) return;
  std::lock_guard lock(mutex_);
  if (generation != generation_.load()) return;
  if (memberships_.size() >= kMaxEntries) memberships_.clear();
  memberships_[user_id] = std::move(accounts);
}

void AuthCache::clear() {
  std::lock_guard lock(mutex_);
  ++generation_;
  tokens_.clear();
  memberships_.clear();
}

}  // namespace berth::core
