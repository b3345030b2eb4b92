#include "http/session_routes.hpp"

#include <berth/abi.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "http/dispatcher.hpp"

namespace berth::core {

namespace {

constexpr uint64_t kSessionBodyLimit = 4096;

int64_t nowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string cookie(const std::string& value, int64_t max_age) {
  return std::string(kSessionCookie) + "=" + value +
         "; Path=/; Max-Age=" + std::to_string(max_age) + "; Secure; HttpOnly; SameSite=Strict";
}

HttpResponse noStore(HttpResponse r) {
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

void startSession(Sessions& sessions, Accounts& accounts, SignInThrottle& throttle,
                  const HttpRequest& request, const Reply& reply) {
  int64_t now = nowSeconds();
  if (int64_t wait = throttle.retryAfter(request.peer, now); wait > 0) {
    auto r = HttpResponse::error(429, "too many failed sign-in attempts; try again later");
    r.headers.emplace_back("Retry-After", std::to_string(wait));
    reply(std::move(r));
    return;
  }
  std::optional<StartedSession> started;
  if (const std::string* authorization = request.header("authorization")) {
    TokenCheck check = accounts.checkToken(bearerToken(authorization));
    if (check.result == TokenCheck::Result::Unavailable) {
      reply(HttpResponse::error(503, "could not check your session"));
      return;
    }
    if (check.result != TokenCheck::Result::Ok) {
      throttle.failed(request.peer, now);
      reply(HttpResponse::error(401, "that token is not valid, or has expired"));
      return;
    }
    started = sessions.start(check.caller.account_id, check.caller.email);
  } else {
    auto body = nlohmann::json::parse(request.body, nullptr, false);
    std::string code;
    if (body.is_object() && body.contains("code") && body["code"].is_string())
      code = body["code"].get<std::string>();
    if (code.empty()) {
      reply(HttpResponse::error(400, "send a sign-in code, or an API token as Bearer"));
      return;
    }
    started = sessions.redeemCode(code);
    if (!started) {
      throttle.failed(request.peer, now);
      reply(
          HttpResponse::error(401, "that sign-in link is not valid, was used already, or expired"));
      return;
    }
  }
  nlohmann::json out = {{"account", started->account_id},
                        {"email", started->email},
                        {"expires_at", started->expires_at},
                        {"idle_minutes", sessions.idleSeconds() / 60}};
  auto r = noStore(HttpResponse::json(201, out.dump()));
  r.headers.emplace_back("Set-Cookie", cookie(started->value, started->expires_at - now));
  reply(std::move(r));
}

}  // namespace

void addSessionRoutes(Router& router, Sessions& sessions, Accounts& accounts,
                      SignInThrottle& throttle) {
  Route post;
  post.method = "POST";
  post.pattern = "/session";
  post.owner = "core";
  post.is_public = true;  // it checks the code or the token itself
  post.body = BodyKind::Json;
  post.max_body_bytes = kSessionBodyLimit;
  post.fields = {FieldRule{"code", BERTH_FIELD_STRING, false}};
  post.handler = [&sessions, &accounts, &throttle](std::shared_ptr<HttpRequest> request,
                                                   Reply reply) {
    try {
      startSession(sessions, accounts, throttle, *request, reply);
    } catch (const std::exception&) {
      reply(HttpResponse::error(503, "could not start a session; try again"));
    }
  };
  router.add(std::move(post));

  Route del;
  del.method = "DELETE";
  del.pattern = "/session";
  del.owner = "core";
  del.handler = [&sessions](std::shared_ptr<HttpRequest> request, Reply reply) {
    std::string value = cookieValue(request->header("cookie"), kSessionCookie);
    if (value.empty()) {
      reply(HttpResponse::error(400, "this request carries no session cookie"));
      return;
    }
    try {
      sessions.end(value);
    } catch (const std::exception&) {
      reply(HttpResponse::error(503, "could not end the session; try again"));
      return;
    }
    HttpResponse r;
    r.status = 204;
    r.headers.emplace_back("Set-Cookie", cookie("", 0));
    reply(noStore(std::move(r)));
  };
  router.add(std::move(del));
}

}  // namespace berth::core
