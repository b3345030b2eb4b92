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

  // Answers through reply exactly once (possibly later, from another thread).
  void dispatch(std::shared_ptr<HttpRequest> request, Reply reply) const;

 private:
  const Router& router_;
  const HostRouting& hosts_;
  TokenChecker checker_;
};

// "Bearer <token>" -> token; empty when the header is absent or of another scheme.
std::string bearerToken(const std::string* authorization);

}  // namespace berth::core
