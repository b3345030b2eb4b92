// login, logout, whoami, link, context ls|use, tokens ls|create|revoke.
#include <unistd.h>

#include <ctime>

#include <berth/common/text.hpp>
#include "command.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

// scheme://host[:port] of a URL.
std::string originOf(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return trimSlash(url);
  auto path = url.find_first_of("/?#", scheme + 3);
  return path == std::string::npos ? url : url.substr(0, path);
}

bool isSigninCode(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string cookieValue(const std::string& set_cookie) {
  auto eq = set_cookie.find('=');
  if (eq == std::string::npos) return "";
  auto semi = set_cookie.find(';', eq);
  return set_cookie.substr(0, semi);  // "name=value"
}

std::string hostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "this machine";
  return buf;
}

// Signs in with a sign-in link's one-time code and makes an API token with the session; the
// session is ended again. The console's headers go along because a cookie request other than
// GET must carry them (berth holds the cookie itself, so it is no cross-site request).
json tokenFromCode(const std::string& url, const std::string& code) {
  HttpClient api(url, "");
  HttpRequest start;
  start.method = "POST";
  start.target = "/session";
  start.content_type = "application/json";
  start.body = json({{"code", code}}).dump();
  start.send_body = true;
  start.timeout_seconds = 60;
  auto r = api.send(start);
  if (r.status == 401) throw CliError(kExitNotSignedIn, refusalText(r));
  throwIfRefused(r);
  std::string cookie = cookieValue(r.header("set-cookie"));
  if (cookie.empty()) throw CliError(kExitRefused, "the API started no session");
  std::vector<std::string> console = {"Cookie: " + cookie, "Origin: " + originOf(url),
                                      "X-Berth-Console: 1"};
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  HttpRequest make;
  make.method = "POST";
  make.target = "/tokens";
  make.content_type = "application/json";
  make.body = json({{"name", "berth CLI on " + hostName() + ", " + stamp}}).dump();
  make.send_body = true;
  make.headers = console;
  make.timeout_seconds = 60;
  auto t = api.send(make);
  HttpRequest end;
  end.method = "DELETE";
  end.target = "/session";
  end.headers = console;
  end.timeout_seconds = 30;
  try {
    api.send(end);
  } catch (const CliError&) {
    // The session ends by itself when idle; the token is what matters.
  }
  throwIfRefused(t);
  return t.json();
}

int login(Context& ctx) {
  std::string secret;
  if (stdinIsTerminal())
    secret = ask("Paste an API token (bth_...) or a console sign-in link: ", true);
  else
    secret = common::trimmed(readAllStdin());
  if (secret.empty())
    throw usageError("no token given: pipe a token or a sign-in link on stdin, or paste one");
  std::string url = ctx.settings.url;
  std::string token, token_id;
  if (secret.rfind("bth_", 0) == 0) {
    token = secret;
  } else {
    std::string code = secret;
    auto at = secret.find("#code=");
    if (at != std::string::npos) {
      code = secret.substr(at + 6);
      code = code.substr(0, code.find('&'));
      // The link names the API it came from; --url still wins.
      if (!ctx.args.has("url")) url = originOf(secret);
    } else if (!isSigninCode(secret)) {
      throw usageError("that is neither an API token (bth_...) nor a sign-in link");
    }
    auto made = tokenFromCode(url, code);
    token = made.value("token", "");
    token_id = made.value("id", "");
  }
  HttpClient api(url, token);
  json me = api.get("/me");
  std::string name = ctx.args.get("context", ctx.settings.context);
  auto& entry = ctx.config.contexts[name];
  // A token berth made before is replaced: revoke it rather than leave it live and unknown.
  if (!entry.token_id.empty() && entry.token != token && trimSlash(entry.url) == url) {
    try {
      HttpClient(url, entry.token).del("/tokens/" + urlEncode(entry.token_id));
    } catch (const CliError&) {
    }
  }
  entry.url = url;
  entry.token = token;
  entry.token_id = token_id;
  entry.email = me.value("email", "");
  ctx.config.current = name;
  saveConfig(ctx.config);
  if (ctx.out.json()) {
    ctx.out.printJson({{"context", name}, {"url", url}, {"me", me}});
  } else {
    ctx.out.line("signed in to " + url + " as " + me.value("email", "?") + " (context " + name +
                 ")");
  }
  return kExitOk;
}

int logout(Context& ctx) {
  auto it = ctx.config.contexts.find(ctx.settings.context);
  if (it == ctx.config.contexts.end() || it->second.token.empty()) {
    ctx.out.note("not signed in (context " + ctx.settings.context + ")");
    return kExitOk;
  }
  bool revoked = false;
  if (!it->second.token_id.empty()) {
    try {
      HttpClient(it->second.url, it->second.token).del("/tokens/" + urlEncode(it->second.token_id));
      revoked = true;
    } catch (const CliError& e) {
      ctx.out.note("the token was not revoked on the server: " + std::string(e.what()));
    }
  }
  it->second.token.clear();
  it->second.token_id.clear();
  saveConfig(ctx.config);
  if (ctx.out.json())
    ctx.out.printJson({{"context", it->first}, {"signed_out", true}, {"revoked", revoked}});
  else
    ctx.out.line("signed out of " + it->second.url + " (context " + it->first + ")" +
                 (revoked ? "; its token is revoked" : ""));
  return kExitOk;
}

int whoami(Context& ctx) {
  json me = ctx.api().get("/me");
  if (ctx.out.json()) {
    ctx.out.printJson(me);
    return kExitOk;
  }
  std::string limit = me["project_limit"].is_number()
                          ? std::to_string(me["project_limit"].get<int64_t>())
                          : std::string("unlimited");
  ctx.out.line(me.value("email", "?") + " (" + me.value("slug", "?") + ", " +
               me.value("plan", "?") + " plan, " + std::to_string(me.value("projects_used", 0)) +
               " of " + limit + " projects)");
  ctx.out.line("api: " + ctx.settings.url + " (context " + ctx.settings.context + ")");
  if (!ctx.settings.project.empty()) ctx.out.line("project: " + ctx.settings.project);
  return kExitOk;
}

int link(Context& ctx) {
  std::string name = ctx.word(0);
  if (name.empty()) {
    if (!stdinIsTerminal()) throw usageError("usage: berth link PROJECT");
    json list = ctx.api().get("/projects");
    auto projects = list.value("projects", json::array());
    if (projects.empty()) throw usageError("you have no project yet; berth projects create NAME");
    for (size_t i = 0; i < projects.size(); ++i)
      ctx.out.note("  " + std::to_string(i + 1) + ") " + projects[i].value("name", ""));
    std::string pick = ask("Link this folder to which project (number or name)? ");
    name = pick;
    try {
      size_t n = std::stoul(pick);
      if (n >= 1 && n <= projects.size()) name = projects[n - 1].value("name", "");
    } catch (const std::exception&) {
    }
  }
  json p = ctx.api().get("/projects/" + urlEncode(name));
  writeLink(".", p.value("name", name), ctx.settings.url);
  if (ctx.out.json())
    ctx.out.printJson({{"project", p.value("name", name)}, {"url", p.value("url", "")}});
  else
    ctx.out.line("linked this folder to " + p.value("name", name) + " (" + p.value("url", "") +
                 "); .berth/project.json");
  return kExitOk;
}

int contextLs(Context& ctx) {
  if (ctx.out.json()) {
    json list = json::array();
    for (const auto& [name, e] : ctx.config.contexts)
      list.push_back({{"name", name},
                      {"url", e.url},
                      {"email", e.email},
                      {"signed_in", !e.token.empty()},
                      {"current", name == ctx.settings.context}});
    ctx.out.printJson({{"contexts", list}});
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, e] : ctx.config.contexts)
    rows.push_back({name == ctx.settings.context ? "*" : "", name, e.url, e.email,
                    e.token.empty() ? "no" : "yes"});
  ctx.out.table({"", "NAME", "URL", "EMAIL", "SIGNED IN"}, rows);
  return kExitOk;
}

int contextUse(Context& ctx) {
  std::string name = ctx.word(0);
  if (!ctx.config.contexts.count(name))
    throw usageError("no context called " + name + "; berth login --context " + name + " makes it");
  ctx.config.current = name;
  saveConfig(ctx.config);
  if (ctx.out.json())
    ctx.out.printJson({{"current_context", name}});
  else
    ctx.out.line("now using context " + name + " (" + ctx.config.contexts[name].url + ")");
  return kExitOk;
}

int tokensLs(Context& ctx) {
  json r = ctx.api().get("/tokens");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto tokens = r.value("tokens", json::array());
  for (const auto& t : tokens)
    rows.push_back({t.value("id", ""), t.value("name", ""), formatTime(t["created_at"]),
                    formatTime(t["expires_at"]), formatTime(t["last_used_at"])});
  ctx.out.table({"ID", "NAME", "CREATED", "EXPIRES", "LAST USED"}, rows);
  return kExitOk;
}

int tokensCreate(Context& ctx) {
  json body = {{"name", ctx.word(0)}};
  if (auto days = ctx.args.value("expires-in-days")) {
    try {
      body["expires_in_days"] = std::stoll(*days);
    } catch (const std::exception&) {
      throw usageError("--expires-in-days takes a whole number of days");
    }
  }
  json r = ctx.api().post("/tokens", body);
  if (ctx.out.json()) {
    ctx.out.printJson(r);
  } else {
    ctx.out.line(r.value("token", ""));
    ctx.out.note("token " + r.value("name", "") + " (" + r.value("id", "") +
                 "): shown this once; keep it somewhere safe");
  }
  return kExitOk;
}

int tokensRevoke(Context& ctx) {
  std::string id = ctx.word(0);
  confirmOrThrow(ctx.yes(), "revoke the token " + id);
  ctx.api().del("/tokens/" + urlEncode(id));
  if (ctx.out.json())
    ctx.out.printJson({{"revoked", id}});
  else
    ctx.out.line("revoked token " + id);
  return kExitOk;
}

}  // namespace

void addAuthCommands(std::vector<Command>& out) {
  out.push_back({"login",
                 "berth login [--url URL] [--context NAME]",
                 "sign in with an API token or a console sign-in link (from stdin or pasted)",
                 {},
                 0,
                 0,
                 login});
  out.push_back({"logout",
                 "berth logout",
                 "forget the context's token (revoking one berth made)",
                 {},
                 0,
                 0,
                 logout});
  out.push_back(
      {"whoami", "berth whoami", "the account, API and project in use", {}, 0, 0, whoami});
  out.push_back({"link",
                 "berth link [PROJECT]",
                 "link this folder to a project (.berth/project.json)",
                 {},
                 0,
                 1,
                 link});
  out.push_back(
      {"context ls", "berth context ls", "the named contexts of the config", {}, 0, 0, contextLs});
  out.push_back({"context use",
                 "berth context use NAME",
                 "make a context the current one",
                 {},
                 1,
                 1,
                 contextUse});
  out.push_back({"tokens ls", "berth tokens ls", "the account's API tokens", {}, 0, 0, tokensLs});
  out.push_back({"tokens create",
                 "berth tokens create NAME [--expires-in-days N]",
                 "make an API token (printed once)",
                 {"expires-in-days"},
                 1,
                 1,
                 tokensCreate});
  out.push_back({"tokens revoke",
                 "berth tokens revoke ID --yes",
                 "revoke an API token",
                 {},
                 1,
                 1,
                 tokensRevoke});
}

}  // namespace berth::client
