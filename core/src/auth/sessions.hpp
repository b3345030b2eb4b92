// Console sign-in: one-time sign-in codes and browser sessions (core migration 4).
//
// A sign-in code (berthd account login-link) is 32 random characters; only its SHA-256 digest
// is stored, it works once and expires. A session is started by a code or by a valid API
// token; its cookie holds 43 random characters of which only the digest is stored. A session
// ends when it has been idle for sessions.idle_minutes, sessions.max_hours after it started,
// on DELETE /session, or when its account is removed (cascade). Every end reaches every node
// through NOTIFY berth_auth (a trigger on core.sessions); the node that ends a session also
// empties its own cache before it answers.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "auth/accounts.hpp"

namespace berth::core {

inline constexpr const char* kSessionCookie = "__Host-berth_session";

struct StartedSession {
  std::string value;  // the cookie's value, in clear, this once
  std::string account_id;
  std::string email;
  int64_t expires_at = 0;  // the absolute end
};

class Sessions {
 public:
  Sessions(Pool& pool, const Settings& settings) : pool_(pool), settings_(settings) {}
  void useCache(AuthCache* cache) { cache_ = cache; }

  // The code of a one-time sign-in link for that user; AccountError when there is none.
  std::string createSignInCode(const std::string& email, int minutes);
  // Marks the code used and starts a session; nullopt when the code is unknown, used or expired.
  std::optional<StartedSession> redeemCode(const std::string& code);
  StartedSession start(const std::string& account_id, const std::string& email);
  // The cookie's value -> caller (token_id empty). Unavailable when the database failed.
  TokenCheck check(const std::string& value);
  // Ends the session of that cookie value; true when there was one.
  bool end(const std::string& value);

  int64_t idleSeconds() const { return int64_t{settings_.session_idle_minutes} * 60; }
  int64_t maxSeconds() const { return int64_t{settings_.session_max_hours} * 3600; }

 private:
  Pool& pool_;
  const Settings& settings_;
  AuthCache* cache_ = nullptr;
};

// Failed sign-in attempts per client address: a bucket of `burst` attempts, one more every
// `refill` seconds. A throttled address is refused even with a good code or token.
class SignInThrottle {
 public:
  SignInThrottle(int burst, int64_t refill_seconds) : burst_(burst), refill_(refill_seconds) {}
  // 0 when the address may try now, else the seconds to wait (Retry-After).
  int64_t retryAfter(const std::string& address, int64_t now);
  void failed(const std::string& address, int64_t now);

 private:
  struct Bucket {
    double tokens = 0;
    int64_t at = 0;
  };
  Bucket& refill(const std::string& address, int64_t now);
  int burst_;
  int64_t refill_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

// The value of the cookie `name` in a Cookie header, or empty.
std::string cookieValue(const std::string* cookie_header, const std::string& name);

}  // namespace berth::core
