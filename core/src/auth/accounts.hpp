// Accounts, teams, memberships, plans and API tokens (core.* tables).
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "auth/auth_cache.hpp"
#include "cluster/auth_nodes.hpp"
#include "config/settings.hpp"
#include "db/pool.hpp"
#include "http/http_types.hpp"

namespace berth::core {

// A refusal of an admin command or a lookup ("no account with email x").
class AccountError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Account {
  std::string id;
  std::string slug;
  std::string email;  // empty for teams
  std::string plan;
  bool is_team = false;
  int role = 2;  // in membership listings (berth_role)
  int64_t created_at = 0;
};

// A token's record, never its value (GET /tokens).
struct TokenRecord {
  std::string id;
  std::string name;
  int64_t created_at = 0;
  std::optional<int64_t> expires_at;
  std::optional<int64_t> last_used_at;
};

// A new token: its record and, this once, its value.
struct CreatedToken {
  TokenRecord record;
  std::string token;
};

// A live token of the account already has that name.
class TokenNameTaken : public AccountError {
 public:
  using AccountError::AccountError;
};

// A team's member (GET /teams/{slug}/members).
struct Member {
  std::string account;  // the user's account id
  std::string email;
  std::string role;  // owner, admin or member
};

struct TokenCheck {
  enum class Result { Ok, Invalid, Unavailable } result = Result::Invalid;
  Caller caller;
};

// A token or session the cache already knows answers without the database: fills `check` and
// says so. `cache` may be null.
bool answeredFromCache(AuthCache* cache, const std::string& key, int64_t now, TokenCheck& check);

class Accounts {
 public:
  Accounts(Pool& pool, const Settings& settings) : pool_(pool), settings_(settings) {}

  // Serve token checks and memberships from this cache (berthd serve). Triggers on the core
  // tables (core migration 2) tell every node's cache of any change.
  void useCache(AuthCache* cache) { cache_ = cache; }
  // How long a change that takes rights away waits to be in force on every node (below).
  void setInForceBound(std::chrono::milliseconds bound) { in_force_bound_ = bound; }

  Account createAccount(const std::string& email, const std::string& plan, const std::string& slug);
  // Returns the token text (bth_...); only its SHA-256 digest is stored.
  std::string createToken(const std::string& email, const std::string& name,
                          std::optional<int> expires_in_days);
  // The same for an account by id (POST /tokens); the name is required. Throws
  // TokenNameTaken when a live token of the account has it.
  CreatedToken createTokenFor(const std::string& account_id, const std::string& name,
                              std::optional<int> expires_in_days);
  // Changes that take rights away (revokeToken, revokeTokenById, removeMember, addMember, which
  // may lower a role) return only once the change is in force on every live node
  // (waitUntilInForce, cluster/auth_nodes.hpp): the next request to any node is refused. They
  // throw NotInForce, the change made, when a live node does not confirm within the bound.
  InForce revokeToken(const std::string& email, const std::string& name);
  // Revokes one of the account's live tokens; nullopt when it has none with that id.
  std::optional<InForce> revokeTokenById(const std::string& account_id,
                                         const std::string& token_id);
  // The account's tokens not revoked (expired ones included), oldest first.
  std::vector<TokenRecord> tokens(const std::string& account_id);
  Account createTeam(const std::string& slug, const std::string& owner_email,
                     const std::string& plan);
  InForce addMember(const std::string& team_slug, const std::string& email,
                    const std::string& role);
  InForce removeMember(const std::string& team_slug, const std::string& email);
  // A team's members, owner first, then by e-mail.
  std::vector<Member> members(const std::string& team_id);

  // Bearer token -> caller. Unavailable when the database could not be asked.
  TokenCheck checkToken(const std::string& token);

  std::optional<Account> find(const std::string& id_or_slug);
  std::vector<Account> memberships(const std::string& user_account_id);
  // -1 no limit, -2 unknown plan
  int64_t planLimit(const std::string& plan) const;

 private:
  Pool& pool_;
  const Settings& settings_;
  AuthCache* cache_ = nullptr;
  std::chrono::milliseconds in_force_bound_ = kDefaultInForceBound;

  // This node's cache forgets at once; then every node's (waitUntilInForce).
  InForce inForce();
};

std::string sha256Hex(const std::string& data);
std::string randomAlnum(size_t length);  // [A-Za-z0-9], from a secure source
std::string randomHex(size_t bytes);

}  // namespace berth::core
