#include "http/account_routes.hpp"

#include <berth/abi.h>

#include <optional>

#include "log/logging.hpp"

namespace berth::core {

namespace {

constexpr uint64_t kAccountBodyLimit = 16 * 1024;
constexpr size_t kMaxTokenName = 100;
constexpr int kMaxTokenDays = 3650;
// Teams one person may own: each team is an account with its own plan and project limit, so
// the number a person makes through the API is bounded (an operator's `berthd team create` is
// not).
constexpr int kMaxOwnedTeams = 10;

nlohmann::json optionalNumber(const std::optional<int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json tokenJson(const TokenRecord& t) {
  return {{"id", t.id},
          {"name", t.name},
          {"created_at", t.created_at},
          {"expires_at", optionalNumber(t.expires_at)},
          {"last_used_at", optionalNumber(t.last_used_at)}};
}

HttpResponse noStore(HttpResponse r) {
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse noContent() {
  HttpResponse r;
  r.status = 204;
  return r;
}

// A route of the account: the handler's refusals (AccountError) are 400s, a failure of the
// database a 503, and so is a change that takes rights away but that a live node has not
// confirmed in time (NotInForce; the Accounts calls wait until every node has applied it), so
// that no handler leaks an exception to the dispatcher.
using AccountHandler = std::function<HttpResponse(const HttpRequest&)>;

Route accountRoute(const std::string& method, const std::string& pattern, AccountHandler handler) {
  Route route;
  route.method = method;
  route.pattern = pattern;
  route.owner = "core";
  route.handler = [handler = std::move(handler), label = method + " " + pattern](
                      std::shared_ptr<HttpRequest> request, Reply reply) {
    try {
      reply(handler(*request));
    } catch (const NotInForce& e) {
      // The change is made; that it is not yet in force everywhere is the server's trouble.
      logLine(*getLogger("core"), spdlog::level::err, request->request_id, "",
              label + ": " + e.what());
      reply(HttpResponse::error(503, e.what()));
    } catch (const AccountError& e) {
      reply(HttpResponse::error(400, e.what()));
    } catch (const std::exception& e) {
      logLine(*getLogger("core"), spdlog::level::err, request->request_id, "",
              label + " failed: " + e.what());
      reply(HttpResponse::error(503, "could not reach the account database; try again"));
    }
  };
  return route;
}

Route jsonRoute(const std::string& method, const std::string& pattern,
                std::vector<FieldRule> fields, AccountHandler handler) {
  Route route = accountRoute(method, pattern, std::move(handler));
  route.body = BodyKind::Json;
  route.max_body_bytes = kAccountBodyLimit;
  route.fields = std::move(fields);
  return route;
}

// The team of that slug as the caller sees it: nullopt for a stranger, as for no team at all.
std::optional<Account> callersTeam(Accounts& accounts, const HttpRequest& request) {
  const std::string& slug = request.path_params.at("slug");
  for (Account& a : accounts.memberships(request.caller.account_id))
    if (a.is_team && a.slug == slug) return std::move(a);
  return std::nullopt;
}

HttpResponse noSuchTeam(const HttpRequest& request) {
  return HttpResponse::error(404, "no team called " + request.path_params.at("slug"));
}

HttpResponse notAManager(const Account& team) {
  return HttpResponse::error(
      403, "only the owner or an admin of the team " + team.slug + " may change its members");
}

nlohmann::json memberJson(const Member& m) {
  return {{"account", m.account}, {"email", m.email}, {"role", m.role}};
}

}  // namespace

std::string roleName(int role) {
  if (role == BERTH_ROLE_OWNER) return "owner";
  if (role == BERTH_ROLE_ADMIN) return "admin";
  return "member";
}

void addAccountRoutes(Router& router, Accounts& accounts, AccountUsage usage) {
  router.add(accountRoute("GET", "/me", [&accounts, usage](const HttpRequest& request) {
    nlohmann::json me;
    nlohmann::json teams = nlohmann::json::array();
    for (const Account& a : accounts.memberships(request.caller.account_id)) {
      if (a.is_team) {
        teams.push_back({{"slug", a.slug}, {"role", roleName(a.role)}});
        continue;
      }
      if (a.id != request.caller.account_id) continue;
      int64_t limit = accounts.planLimit(a.plan);
      me = {{"id", a.id},
            {"email", a.email},
            {"slug", a.slug},
            {"plan", a.plan},
            {"project_limit", limit >= 0 ? nlohmann::json(limit) : nlohmann::json(nullptr)},
            {"projects_used", 0}};
    }
    if (me.is_null()) return HttpResponse::error(401, "that token is not valid, or has expired");
    if (usage) {
      nlohmann::json extra = usage(request.caller.account_id);
      if (extra.is_object())
        for (auto& [key, value] : extra.items()) me[key] = value;
    }
    me["teams"] = std::move(teams);
    return HttpResponse::json(200, me.dump());
  }));

  router.add(accountRoute("GET", "/tokens", [&accounts](const HttpRequest& request) {
    nlohmann::json list = nlohmann::json::array();
    for (const TokenRecord& t : accounts.tokens(request.caller.account_id))
      list.push_back(tokenJson(t));
    return noStore(HttpResponse::json(200, nlohmann::json{{"tokens", list}}.dump()));
  }));

  router.add(jsonRoute(
      "POST", "/tokens",
      {FieldRule{"name", BERTH_FIELD_STRING, true},
       FieldRule{"expires_in_days", BERTH_FIELD_INT, false}},
      [&accounts](const HttpRequest& request) {
        auto body = nlohmann::json::parse(request.body);
        std::string name = body.at("name").get<std::string>();
        if (name.empty() || name.size() > kMaxTokenName)
          return HttpResponse::error(400, "a token's name is 1 to 100 characters");
        std::optional<int> days;
        if (body.contains("expires_in_days") && !body["expires_in_days"].is_null()) {
          int64_t d = body["expires_in_days"].get<int64_t>();
          if (d <= 0 || d > kMaxTokenDays)
            return HttpResponse::error(400, "expires_in_days is a whole number of days from 1 to " +
                                                std::to_string(kMaxTokenDays));
          days = static_cast<int>(d);
        }
        try {
          CreatedToken created = accounts.createTokenFor(request.caller.account_id, name, days);
          nlohmann::json out = tokenJson(created.record);
          out["token"] = created.token;
          return noStore(HttpResponse::json(201, out.dump()));
        } catch (const TokenNameTaken& e) {
          return HttpResponse::error(409, e.what());
        }
      }));

  router.add(accountRoute("DELETE", "/tokens/:id", [&accounts](const HttpRequest& request) {
    const std::string& id = request.path_params.at("id");
    if (!accounts.revokeTokenById(request.caller.account_id, id))
      return HttpResponse::error(404, "no token with id " + id);
    return noContent();
  }));

  router.add(accountRoute("GET", "/teams", [&accounts](const HttpRequest& request) {
    nlohmann::json teams = nlohmann::json::array();
    for (const Account& a : accounts.memberships(request.caller.account_id))
      if (a.is_team)
        teams.push_back({{"slug", a.slug}, {"role", roleName(a.role)}, {"plan", a.plan}});
    return HttpResponse::json(200, nlohmann::json{{"teams", teams}}.dump());
  }));

  // A new team owned by the caller, on the first (smallest) plan of the configuration.
  router.add(jsonRoute(
      "POST", "/teams", {FieldRule{"slug", BERTH_FIELD_STRING, true}},
      [&accounts](const HttpRequest& request) {
        std::string email;
        int owned = 0;
        for (const Account& a : accounts.memberships(request.caller.account_id)) {
          if (a.is_team && a.role == BERTH_ROLE_OWNER) ++owned;
          if (!a.is_team && a.id == request.caller.account_id) email = a.email;
        }
        if (email.empty())
          return HttpResponse::error(401, "that token is not valid, or has expired");
        if (owned >= kMaxOwnedTeams)
          return HttpResponse::error(409, "you own " + std::to_string(owned) +
                                              " teams, the most one account may make through "
                                              "the API; the operator can make more with "
                                              "berthd team create");
        auto body = nlohmann::json::parse(request.body);
        Account team = accounts.createTeam(body.at("slug").get<std::string>(), email, "");
        return HttpResponse::json(
            201,
            nlohmann::json{{"slug", team.slug}, {"role", "owner"}, {"plan", team.plan}}.dump());
      }));

  router.add(accountRoute("GET", "/teams/:slug/members", [&accounts](const HttpRequest& request) {
    auto team = callersTeam(accounts, request);
    if (!team) return noSuchTeam(request);
    nlohmann::json list = nlohmann::json::array();
    for (const Member& m : accounts.members(team->id)) list.push_back(memberJson(m));
    return HttpResponse::json(200, nlohmann::json{{"members", list}}.dump());
  }));

  router.add(jsonRoute(
      "POST", "/teams/:slug/members",
      {FieldRule{"email", BERTH_FIELD_STRING, true}, FieldRule{"role", BERTH_FIELD_STRING, true}},
      [&accounts](const HttpRequest& request) {
        auto team = callersTeam(accounts, request);
        if (!team) return noSuchTeam(request);
        if (team->role < BERTH_ROLE_ADMIN) return notAManager(*team);
        auto body = nlohmann::json::parse(request.body);
        accounts.addMember(team->slug, body.at("email").get<std::string>(),
                           body.at("role").get<std::string>());
        nlohmann::json list = nlohmann::json::array();
        for (const Member& m : accounts.members(team->id)) list.push_back(memberJson(m));
        return HttpResponse::json(200, nlohmann::json{{"members", list}}.dump());
      }));

  router.add(accountRoute(
      "DELETE", "/teams/:slug/members/:account", [&accounts](const HttpRequest& request) {
        auto team = callersTeam(accounts, request);
        if (!team) return noSuchTeam(request);
        if (team->role < BERTH_ROLE_ADMIN) return notAManager(*team);
        const std::string& who = request.path_params.at("account");
        for (const Member& m : accounts.members(team->id)) {
          if (m.account != who) continue;
          accounts.removeMember(team->slug, m.email);
          return noContent();
        }
        return HttpResponse::error(404, "no member " + who + " in the team " + team->slug);
      }));
}

}  // namespace berth::core
