#include "http/dispatcher.hpp"

#include <algorithm>

#include "auth/sessions.hpp"
#include "http/body_checks.hpp"
#include "util/ascii.hpp"

namespace berth::core {

Dispatcher::Dispatcher(const Router& router, const HostRouting& hosts, TokenChecker checker)
    : router_(router), hosts_(hosts), checker_(std::move(checker)) {}

void Dispatcher::useSessions(TokenChecker session_checker, std::string api_origin) {
  session_checker_ = std::move(session_checker);
  api_origin_ = std::move(api_origin);
}

namespace {

// A cookie rides along with any request the browser makes to the API's site, including a form
// posted by a page on a project host (the same site): only the console's own requests show
// these headers, and a page elsewhere cannot set them without the API's consent (CORS).
bool fromTheConsole(const HttpRequest& request, const std::string& api_origin) {
  const std::string* site = request.header("sec-fetch-site");
  const std::string* origin = request.header("origin");
  bool same_origin =
      (site && *site == "same-origin") || (origin && !api_origin.empty() && *origin == api_origin);
  const std::string* console = request.header("x-berth-console");
  return same_origin && console && *console == "1";
}

}  // namespace

std::string bearerToken(const std::string* authorization) {
  if (!authorization) return {};
  const std::string& v = *authorization;
  if (v.size() < 7) return {};
  if (asciiLower(v.substr(0, 7)) != "bearer ") return {};
  std::string token = v.substr(7);
  token.erase(0, token.find_first_not_of(' '));
  while (!token.empty() && token.back() == ' ') token.pop_back();
  return token;
}

void Dispatcher::dispatch(std::shared_ptr<HttpRequest> request, Reply reply) const {
  // What came through the edge's project server block (every project_listen address, and
  // project hosts on the main listener) is project traffic whatever Host it shows: the block
  // is the edge's fact, the Host header the client's. The backend believes X-Berth-Edge only
  // from a request that carries the edge's proof.
  const std::string* edge = request->header("x-berth-edge");
  request->project_traffic = (edge && *edge == "project") || hosts_.isProjectHost(request->host);
  RouteMatch match = router_.match(request->method, request->path, request->project_traffic);

  if (match.kind == RouteMatch::Kind::NotFound) {
    reply(HttpResponse::error(
        404, request->project_traffic ? "nothing is served here" : "no such route"));
    return;
  }
  if (match.kind == RouteMatch::Kind::MethodNotAllowed) {
    auto response = HttpResponse::error(405, "method not allowed");
    std::string allow;
    for (const auto& m : match.allowed) allow += (allow.empty() ? "" : ", ") + m;
    response.headers.emplace_back("Allow", allow);
    reply(std::move(response));
    return;
  }
  const Route& route = *match.route;
  request->path_params = std::move(match.params);

  std::string session;
  if (session_checker_ && !request->project_traffic && !route.project_host)
    session = cookieValue(request->header("cookie"), kSessionCookie);
  if (!session.empty() && !route.is_public) {
    if (request->header("authorization")) {
      reply(HttpResponse::error(
          400, "send either the session cookie or an Authorization header, not both"));
      return;
    }
    if (request->method != "GET" && request->method != "HEAD" &&
        !fromTheConsole(*request, api_origin_)) {
      reply(HttpResponse::error(403,
                                "a request signed in by the session cookie must come from the "
                                "console (Sec-Fetch-Site: same-origin or the API's Origin, and "
                                "X-Berth-Console: 1)"));
      return;
    }
    TokenCheck check = session_checker_(session);
    if (check.result == TokenCheck::Result::Unavailable) {
      reply(HttpResponse::error(503, "could not check your session"));
      return;
    }
    if (check.result != TokenCheck::Result::Ok) {
      reply(HttpResponse::error(401, "your session has ended; sign in again"));
      return;
    }
    request->caller = std::move(check.caller);
  } else if (!route.is_public && !route.project_host) {
    std::string token = bearerToken(request->header("authorization"));
    if (token.empty()) {
      reply(HttpResponse::error(401, "sign in first"));
      return;
    }
    TokenCheck check = checker_(token);
    if (check.result == TokenCheck::Result::Unavailable) {
      reply(HttpResponse::error(503, "could not check your session"));
      return;
    }
    if (check.result != TokenCheck::Result::Ok) {
      reply(HttpResponse::error(401, "that token is not valid, or has expired"));
      return;
    }
    request->caller = std::move(check.caller);
  }

  if (route.body == BodyKind::Json) {
    if (auto refusal = checkJsonBody(*request, route.fields, route.max_body_bytes)) {
      reply(std::move(*refusal));
      return;
    }
  }
  route.handler(std::move(request), std::move(reply));
}

}  // namespace berth::core
