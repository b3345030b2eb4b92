#include "cli/admin_commands.hpp"

#include <iostream>

#include <nlohmann/json.hpp>

#include "app/control_plane.hpp"
#include "auth/accounts.hpp"
#include "db/migrator.hpp"
#include "http/router.hpp"
#include "plugin/plugin_manager.hpp"

namespace berth::core {

namespace {

nlohmann::json accountJson(const Account& a) {
  nlohmann::json j = {{"id", a.id},
                      {"slug", a.slug},
                      {"plan", a.plan},
                      {"kind", a.is_team ? "team" : "user"},
                      {"created_at", a.created_at}};
  if (!a.email.empty()) j["email"] = a.email;
  return j;
}

std::optional<int> optionalInt(const CommandLine& cl, const std::string& name) {
  std::string v = cl.get(name);
  if (v.empty()) return std::nullopt;
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return n;
  } catch (const std::exception&) {
    throw UsageError("--" + name + " takes a whole number, got " + v);
  }
}

}  // namespace

int runAdminCommand(const CommandLine& cl, const Settings& settings) {
  const std::string cmd = cl.command();
  static const std::vector<std::string> known = {"migrate",      "account create", "token create",
                                                 "token revoke", "team create",    "team add",
                                                 "team remove"};
  if (std::find(known.begin(), known.end(), cmd) == known.end())
    throw UsageError("unknown command: " + cmd);

  ControlPlane cp = ControlPlane::open(settings);
  Accounts accounts(*cp.pool, settings);
  nlohmann::json out;
  if (cmd == "migrate") {
    CoreParts parts;
    parts.settings = &settings;
    parts.pool = cp.pool.get();
    parts.accounts = &accounts;
    Router router;
    PluginManager plugins(parts);
    plugins.loadAll(settings.plugins.dir, settings.plugins.enabled, router);
    plugins.applyConfig();
    out = {{"applied", applyMigrations(*cp.pool, plugins.migrations())}};
  } else if (cmd == "account create") {
    out = accountJson(accounts.createAccount(cl.require("email"), cl.get("plan"), cl.get("slug")));
  } else if (cmd == "token create") {
    std::string token = accounts.createToken(cl.require("email"), cl.get("name"),
                                             optionalInt(cl, "expires-in-days"));
    std::cout << token << std::endl;
    cp.close();
    return 0;
  } else if (cmd == "token revoke") {
    accounts.revokeToken(cl.require("email"), cl.require("name"));
    out = {{"revoked", true}, {"name", cl.require("name")}};
  } else if (cmd == "team create") {
    out = accountJson(accounts.createTeam(cl.require("slug"), cl.require("owner"), cl.get("plan")));
  } else if (cmd == "team add") {
    accounts.addMember(cl.require("team"), cl.require("email"), cl.require("role"));
    out = {
        {"team", cl.require("team")}, {"email", cl.require("email")}, {"role", cl.require("role")}};
  } else if (cmd == "team remove") {
    accounts.removeMember(cl.require("team"), cl.require("email"));
    out = {{"team", cl.require("team")}, {"email", cl.require("email")}, {"removed", true}};
  }
  std::cout << out.dump() << std::endl;
  cp.close();
  return 0;
}

}  // namespace berth::core
