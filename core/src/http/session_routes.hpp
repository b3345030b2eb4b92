// The console's sign-in routes, served by the core itself:
//   POST /session    {code} or Authorization: Bearer bth_...  -> 201 and the session cookie
//   DELETE /session  ends the session of the cookie            -> 204
#pragma once
#include "auth/accounts.hpp"
#include "auth/sessions.hpp"
#include "http/router.hpp"

namespace berth::core {

void addSessionRoutes(Router& router, Sessions& sessions, Accounts& accounts,
                      SignInThrottle& throttle);

}  // namespace berth::core
