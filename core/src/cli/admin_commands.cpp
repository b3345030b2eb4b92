#include "cli/admin_commands.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/control_plane.hpp"
#include "app/core_routes.hpp"
#include "auth/accounts.hpp"
#include "auth/sessions.hpp"
#include "config/install_layout.hpp"
#include "db/migrator.hpp"
#include "http/route_listing.hpp"
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

// How the change waited for every node (cluster/auth_nodes.hpp).
nlohmann::json inForceJson(const InForce& f) {
  return {{"nodes", f.confirmed}, {"waited_ms", f.waited.count()}, {"nodes_gone", f.gone}};
}

// --wait-seconds: how long a change that takes rights away waits for every live node.
void setInForceBound(const CommandLine& cl, Accounts& accounts) {
  std::optional<int> seconds = optionalInt(cl, "wait-seconds");
  if (!seconds) return;
  if (*seconds < 0 || *seconds > 3600)
    throw UsageError("--wait-seconds takes a whole number of seconds from 0 to 3600");
  accounts.setInForceBound(std::chrono::seconds(*seconds));
}

bool isKeyText(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c); });
}

// secrets-key: the file that holds projects.secrets_key for a new install (scripts/start.sh).
// Nothing is made when the config sets projects.secrets_key itself (even to "", which keeps
// secrets off). Otherwise the file (--file, else projects.secrets_key_file, else
// data_dir/secrets.key) is made once, 0600, with 64 random hex characters, and its path printed.
int secretsKeyCommand(const CommandLine& cl, const Settings& settings) {
  nlohmann::json section = nlohmann::json::object();
  if (auto it = settings.plugin_sections.find("projects"); it != settings.plugin_sections.end())
    section = it->second;
  if (section.is_object() && section.contains("secrets_key")) return 0;
  std::string file = cl.get("file");
  if (file.empty() && section.is_object() && section.contains("secrets_key_file") &&
      section["secrets_key_file"].is_string())
    file = section["secrets_key_file"].get<std::string>();
  if (file.empty()) file = settings.data_dir + "/secrets.key";
  file = std::filesystem::absolute(file).lexically_normal().string();
  std::filesystem::create_directories(std::filesystem::path(file).parent_path());
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    std::string text = randomHex(32) + "\n";
    bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (::fsync(fd) != 0) written = false;
    ::close(fd);
    if (!written) {
      ::unlink(file.c_str());
      throw std::runtime_error("could not write " + file);
    }
  } else if (errno != EEXIST) {
    throw std::runtime_error("could not create " + file + ": " + std::strerror(errno));
  } else {
    // Made before: kept as it is (the secrets sealed under it depend on it), if it is sound.
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      throw std::runtime_error(file + " is not a regular file");
    if ((st.st_mode & 077) != 0)
      throw std::runtime_error(file + " is readable by others than its owner; make it 0600");
    std::ifstream in(file);
    std::string text;
    std::getline(in, text);
    if (!isKeyText(text))
      throw std::runtime_error(file + " does not hold 64 hexadecimal characters");
  }
  std::cout << file << std::endl;
  return 0;
}

// routes --json: what berthd serve would route, without a database: the plugins are loaded
// (registered, not started) and the core adds its own routes. The handlers never run here, so
// the accounts and sessions behind them get a pool that never connects.
int routesCommand(const CommandLine& cl, const Settings& settings) {
  if (cl.get("json") != "true") throw UsageError("routes needs --json (the only form it prints)");
  CoreParts parts;
  parts.settings = &settings;
  Router router;
  PluginManager plugins(parts);
  plugins.loadAll(settings.plugins.dir, settings.plugins.enabled, router);
  Pool never_connected("", 1, std::chrono::milliseconds(0));
  Accounts accounts(never_connected, settings);
  Sessions sessions(never_connected, settings);
  SignInThrottle throttle(1, 60);
  CoreRouteParts core;
  core.sessions = &sessions;
  core.accounts = &accounts;
  core.sign_in_throttle = &throttle;
  core.usage = [](const std::string&) { return nlohmann::json::object(); };
  core.share_dir = defaultShareDir();
  addCoreRoutes(router, core);
  std::cout << routeListing(router).dump(2) << std::endl;
  return 0;
}

}  // namespace

int runAdminCommand(const CommandLine& cl, const Settings& settings) {
  const std::string cmd = cl.command();
  static const std::vector<std::string> known = {
      "migrate",  "account create", "token create",       "token revoke", "team create",
      "team add", "team remove",    "account login-link", "secrets-key",  "routes"};
  if (std::find(known.begin(), known.end(), cmd) == known.end())
    throw UsageError("unknown command: " + cmd);
  if (cmd == "secrets-key") return secretsKeyCommand(cl, settings);
  if (cmd == "routes") return routesCommand(cl, settings);

  ControlPlane cp = ControlPlane::open(settings);
  Accounts accounts(*cp.pool, settings);
  setInForceBound(cl, accounts);
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
  } else if (cmd == "account login-link") {
    std::optional<int> minutes = optionalInt(cl, "minutes");
    Sessions sessions(*cp.pool, settings);
    std::string code = sessions.createSignInCode(cl.require("email"), minutes.value_or(15));
    std::cout << publicUrl(settings) << "/console/#code=" << code << std::endl;
    cp.close();
    return 0;
  } else if (cmd == "token create") {
    std::string token = accounts.createToken(cl.require("email"), cl.get("name"),
                                             optionalInt(cl, "expires-in-days"));
    std::cout << token << std::endl;
    cp.close();
    return 0;
  } else if (cmd == "token revoke") {
    // Returns once no node accepts the token any more (or fails saying which node did not
    // confirm): the next request is refused wherever it goes.
    InForce f = accounts.revokeToken(cl.require("email"), cl.require("name"));
    out = {{"revoked", true}, {"name", cl.require("name")}, {"in_force", inForceJson(f)}};
  } else if (cmd == "team create") {
    out = accountJson(accounts.createTeam(cl.require("slug"), cl.require("owner"), cl.get("plan")));
  } else if (cmd == "team add") {
    InForce f = accounts.addMember(cl.require("team"), cl.require("email"), cl.require("role"));
    out = {{"team", cl.require("team")},
           {"email", cl.require("email")},
           {"role", cl.require("role")},
           {"in_force", inForceJson(f)}};
  } else if (cmd == "team remove") {
    InForce f = accounts.removeMember(cl.require("team"), cl.require("email"));
    out = {{"team", cl.require("team")},
           {"email", cl.require("email")},
           {"removed", true},
           {"in_force", inForceJson(f)}};
  }
  std::cout << out.dump() << std::endl;
  cp.close();
  return 0;
}

}  // namespace berth::core
