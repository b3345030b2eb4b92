#include "app/core_routes.hpp"

#include "http/reference_routes.hpp"
#include "http/session_routes.hpp"

namespace berth::core {

void addCoreRoutes(Router& router, const CoreRouteParts& parts) {
  addSessionRoutes(router, *parts.sessions, *parts.accounts, *parts.sign_in_throttle);
  addAccountRoutes(router, *parts.accounts, parts.usage);
  addReferenceRoutes(router, parts.share_dir);
}

}  // namespace berth::core
