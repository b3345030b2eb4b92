#include "auth/sessions.hpp"

#include <algorithm>
#include <cmath>

#include "util/ascii.hpp"

namespace berth::core {

namespace {

constexpr size_t kCodeLength = 32;
constexpr size_t kSessionLength = 43;
constexpr size_t kMaxThrottledAddresses = 100000;

int64_t nowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The cache holds sessions beside tokens; the prefix keeps the two digest spaces apart.
std::string cacheKey(const std::string& digest) {
  return "session:" + digest;
}

}  // namespace

std::string Sessions::createSignInCode(const std::string& email_in, int minutes) {
  if (minutes < 1 || minutes > 24 * 60)
    throw AccountError("--minutes must be from 1 to 1440, got " + std::to_string(minutes));
  std::string email = asciiLower(email_in);
  auto r = pool_.exec("SELECT id FROM core.accounts WHERE email = $1 AND kind = 'user'", {email});
  if (r.rows() == 0) throw AccountError("no account with e-mail " + email);
  int64_t now = nowSeconds();
  // Codes that can no longer be used are of no further interest.
  pool_.exec("DELETE FROM core.signin_codes WHERE expires_at < $1 OR used_at IS NOT NULL",
             {std::to_string(now - 86400)});
  std::string code = randomAlnum(kCodeLength);
  pool_.exec(
      "INSERT INTO core.signin_codes (digest, account_id, created_at, expires_at) "
      "VALUES ($1, $2, $3, $4)",
      {sha256Hex(code), r.value(0, 0), std::to_string(now),
       std::to_string(now + int64_t{minutes} * 60)});
  return code;
}

std::optional<StartedSession> Sessions::redeemCode(const std::string& code) {
  if (code.size() != kCodeLength) return std::nullopt;
  std::string now = std::to_string(nowSeconds());
  // One statement: of two requests with the same code, one finds used_at still NULL.
  auto r = pool_.exec(
      "WITH c AS (UPDATE core.signin_codes SET used_at = $2 WHERE digest = $1 "
      "AND used_at IS NULL AND expires_at > $2 RETURNING account_id) "
      "SELECT a.id, a.email FROM c JOIN core.accounts a ON a.id = c.account_id",
      {sha256Hex(code), now});
  if (r.rows() == 0) return std::nullopt;
  return start(r.value(0, 0), r.value(0, 1));
}

StartedSession Sessions::start(const std::string& account_id, const std::string& email) {
  int64_t now = nowSeconds();
  // Ended sessions are removed here. Only when there are some: every DELETE statement on the
  // table empties every node's auth cache, even one that removes nothing.
  std::vector<Param> ended = {std::to_string(now), std::to_string(idleSeconds())};
  if (pool_
          .exec("SELECT 1 FROM core.sessions WHERE expires_at <= $1 OR last_seen_at <= $1 - $2 "
                "LIMIT 1",
                ended)
          .rows() > 0)
    pool_.exec("DELETE FROM core.sessions WHERE expires_at <= $1 OR last_seen_at <= $1 - $2",
               ended);
  StartedSession s;
  s.value = randomAlnum(kSessionLength);
  s.account_id = account_id;
  s.email = email;
  s.expires_at = now + maxSeconds();
  pool_.exec(
      "INSERT INTO core.sessions (digest, account_id, created_at, last_seen_at, expires_at) "
      "VALUES ($1, $2, $3, $3, $4)",
      {sha256Hex(s.value), account_id, std::to_string(now), std::to_string(s.expires_at)});
  return s;
}

TokenCheck Sessions::check(const std::string& value) {
  TokenCheck check;
  if (value.size() != kSessionLength) return check;
  int64_t now = nowSeconds();
  std::string digest = sha256Hex(value);
  if (answeredFromCache(cache_, cacheKey(digest), now, check)) return check;
  uint64_t generation = cache_ != nullptr ? cache_->generation() : 0;
  try {
    // last_seen_at (the sliding lifetime) moves at most once a minute per session.
    auto r = pool_.exec(
        "WITH s AS (SELECT s.digest, s.account_id, a.email, s.expires_at, s.last_seen_at "
        "FROM core.sessions s JOIN core.accounts a ON a.id = s.account_id "
        "WHERE s.digest = $1 AND s.expires_at > $2 AND s.last_seen_at > $2 - $3), "
        "u AS (UPDATE core.sessions SET last_seen_at = $2 WHERE digest = (SELECT digest FROM s) "
        "AND last_seen_at < $2 - 60 RETURNING 1) "
        "SELECT account_id, email, expires_at FROM s",
        {digest, std::to_string(now), std::to_string(idleSeconds())});
    if (r.rows() == 0) return check;
    check.result = TokenCheck::Result::Ok;
    check.caller.authenticated = true;
    check.caller.account_id = r.value(0, 0);
    check.caller.email = r.value(0, 1);
    if (cache_ != nullptr) {
      // Kept no longer than either end allows from now; the cache re-reads it within a minute.
      int64_t until = std::min<int64_t>(std::stoll(r.value(0, 2)), now + idleSeconds());
      cache_->putToken(cacheKey(digest), AuthCache::Token{check.caller, until, now}, generation);
    }
  } catch (const std::exception&) {
    check.result = TokenCheck::Result::Unavailable;
  }
  return check;
}

bool Sessions::end(const std::string& value) {
  auto r = pool_.exec("DELETE FROM core.sessions WHERE digest = $1", {sha256Hex(value)});
  // The trigger tells every node when this commits; this node forgets it before it answers.
  if (cache_ != nullptr) cache_->clear();
  return r.affected() > 0;
}

SignInThrottle::Bucket& SignInThrottle::refill(const std::string& address, int64_t now) {
  if (buckets_.size() >= kMaxThrottledAddresses && buckets_.find(address) == buckets_.end()) {
    // Drop the buckets that are full again; they hold nothing.
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      if (it->second.tokens + double(now - it->second.at) / double(refill_) >= burst_)
        it = buckets_.erase(it);
      else
        ++it;
    }
  }
  auto [it, inserted] = buckets_.try_emplace(address);
  Bucket& b = it->second;
  if (inserted) {
    b.tokens = burst_;
    b.at = now;
  } else if (now > b.at) {
    b.tokens = std::min<double>(burst_, b.tokens + double(now - b.at) / double(refill_));
    b.at = now;
  }
  return b;
}

int64_t SignInThrottle::retryAfter(const std::string& address, int64_t now) {
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) return 0;
  Bucket& b = refill(address, now);
  if (b.tokens >= 1) return 0;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1 - b.tokens) * double(refill_))));
}

void SignInThrottle::failed(const std::string& address, int64_t now) {
  std::lock_guard lock(mutex_);
  Bucket& b = refill(address, now);
  b.tokens = std::max(0.0, b.tokens - 1);
}

std::string cookieValue(const std::string* header, const std::string& name) {
  if (header == nullptr) return {};
  const std::string& h = *header;
  size_t pos = 0;
  while (pos < h.size()) {
    size_t end = h.find(';', pos);
    if (end == std::string::npos) end = h.size();
    std::string part = h.substr(pos, end - pos);
    part.erase(0, part.find_first_not_of(' '));
    size_t eq = part.find('=');
    if (eq != std::string::npos && part.compare(0, eq, name) == 0 && eq == name.size()) {
      std::string v = part.substr(eq + 1);
      while (!v.empty() && v.back() == ' ') v.pop_back();
      return v;
    }
    pos = end + 1;
  }
  return {};
}

}  // namespace berth::core
