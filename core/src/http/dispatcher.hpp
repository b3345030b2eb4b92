// What berthd does with a request once it is copied out of Pistache: host side, route, token,
// body checks, then the handler. Independent of Pistache so that it is tested directly.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "auth/accounts.hpp"
#include "http/host_routing.hpp"
#include "http/http_types.hpp"
#include "http/router.hpp"

namespace berth::core {

class Dispatcher {
 public:
  using TokenChecker = std::function<TokenCheck(const std::string& token)>;

  Dispatcher(const Router& router, const HostRouting& hosts, TokenChecker checker);

  // Accept the console's session cookie (auth/sessions.hpp) on API routes: never on project
  // traffic, never beside an Authorization header; a request other than GET or HEAD must also
  // show it comes from the console (Sec-Fetch-Site: same-origin, or an Origin equal to
  // api_origin, and X-Berth-Console: 1). Without this call cookies are ignored.
  void useSessions(TokenChecker session_checker, std::string api_origin);

  // Answers through reply exactly once (possibly later, from another thread).
  void dispatch(std::shared_ptr<HttpRequest> request, Reply reply) const;

 private:
  const Router& router_;
  const HostRouting& hosts_;
  TokenChecker checker_;
  TokenChecker session_checker_;
  std::string api_origin_;
};

// "Bearer <token>" -> token; empty when the header is absent or of another scheme.
std::string bearerToken(const std::string* authorization);

}  // namespace berth::core
