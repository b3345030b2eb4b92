// The account routes, served by the core itself (it owns accounts, tokens and teams; no plugin
// does). They go into the same Router as the plugins' routes, so the dispatcher makes the same
// checks on them: the caller's token or session, Content-Type (415) and declared fields (422).
//   GET    /me                                 the caller, its plan and its teams
//   GET    /tokens                             the caller's tokens, never their values
//   POST   /tokens {name, expires_in_days?}    201, the token in clear this once
//   DELETE /tokens/{id}                        204; refused at once on this node
//   GET    /teams                              the caller's teams and roles
//   GET    /teams/{slug}/members               any member; a stranger gets 404
//   POST   /teams/{slug}/members {email, role} owners and admins; a member gets 403
//   DELETE /teams/{slug}/members/{account}     owners and admins; a member gets 403
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "auth/accounts.hpp"
#include "http/router.hpp"

namespace berth::core {

// What the plugins add to GET /me about an account (a JSON object merged into the answer),
// or an empty object.
using AccountUsage = std::function<nlohmann::json(const std::string& account_id)>;

void addAccountRoutes(Router& router, Accounts& accounts, AccountUsage usage);

// The name of a berth_role value: owner, admin or member.
std::string roleName(int role);

}  // namespace berth::core
