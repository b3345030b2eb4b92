// The core's own routes (sessions, accounts, the API's reference), added to the router the
// plugins filled, by berthd serve and by berthd routes alike so the two never differ.
#pragma once
#include <string>

#include "auth/accounts.hpp"
#include "auth/sessions.hpp"
#include "http/account_routes.hpp"
#include "http/router.hpp"

namespace berth::core {

struct CoreRouteParts {
  Sessions* sessions = nullptr;
  Accounts* accounts = nullptr;
  SignInThrottle* sign_in_throttle = nullptr;
  AccountUsage usage;
  std::string share_dir;
};

// A plugin that claimed one of these routes stops the start (Router::add throws).
void addCoreRoutes(Router& router, const CoreRouteParts& parts);

}  // namespace berth::core
