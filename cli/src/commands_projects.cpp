// projects ls|create|info|set|rm, regions, templates ls|install.
#include <chrono>
#include <thread>

#include "command.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

std::string liveText(const json& p) {
  if (!p.contains("live") || !p["live"].is_object()) return "-";
  return p["live"].value("id", "").substr(0, 8);
}

int projectsLs(Context& ctx) {
  json r = ctx.api().get("/projects");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto projects = r.value("projects", json::array());
  for (const auto& p : projects)
    rows.push_back({p.value("name", ""), p.value("url", ""), p.value("region", ""),
                    ctx.out.status(p.value("state", "")), liveText(p),
                    p["team"].is_string() ? p["team"].get<std::string>() : "-"});
  ctx.out.table({"NAME", "URL", "REGION", "STATE", "LIVE", "TEAM"}, rows);
  return kExitOk;
}

void printProject(Context& ctx, const json& p) {
  if (ctx.out.json()) {
    ctx.out.printJson(p);
    return;
  }
  auto row = [&](const std::string& k, const std::string& v) {
    ctx.out.line(ctx.out.bold(k) + std::string(k.size() < 10 ? 10 - k.size() : 1, ' ') + v);
  };
  row("name", p.value("name", ""));
  row("url", p.value("url", ""));
  row("region", p.value("region", ""));
  row("state", ctx.out.status(p.value("state", "")));
  row("cmd", p.value("cmd", "").empty() ? "-" : p.value("cmd", ""));
  row("runtime", p["runtime"].is_string() ? p["runtime"].get<std::string>() : "-");
  row("live", p.contains("live") && p["live"].is_object()
                  ? p["live"].value("id", "") + " (" + formatTime(p["live"]["created_at"]) + ")"
                  : "-");
  row("database", std::to_string(p.value("db_bytes", 0)) + " bytes");
  row("files", std::to_string(p.value("files_count", 0)) + " (" +
                   std::to_string(p.value("files_bytes", 0)) + " bytes)");
  row("cache", p.value("cache_enabled", false)
                   ? "on, " + std::to_string(p.value("cache_ttl", 0)) + " s"
                   : "off");
  row("team", p["team"].is_string() ? p["team"].get<std::string>() : "-");
  row("created", formatTime(p["created_at"]));
}

int projectsCreate(Context& ctx) {
  json body = {{"name", ctx.word(0)}};
  if (auto team = ctx.args.value("team")) body["team"] = *team;
  json p = ctx.api().post("/projects", body);
  json change = json::object();
  if (auto region = ctx.args.value("region")) change["region"] = *region;
  if (auto cmd = ctx.args.value("cmd")) change["cmd"] = *cmd;
  std::string name = p.value("name", "");
  if (!change.empty()) p = ctx.api().patch("/projects/" + urlEncode(name), change);
  if (ctx.out.json()) {
    ctx.out.printJson(p);
  } else {
    ctx.out.line("created " + name + " at " + p.value("url", ""));
    ctx.out.note("berth link " + name + " links this folder to it");
  }
  return kExitOk;
}

int projectsInfo(Context& ctx) {
  std::string name = ctx.words.empty() ? ctx.project() : ctx.word(0);
  printProject(ctx, ctx.api().get("/projects/" + urlEncode(name)));
  return kExitOk;
}

json settingValue(const std::string& key, const std::string& value) {
  if (key == "region" || key == "cmd") return value;
  if (key == "ignore_dockerfile" || key == "cache_enabled") {
    if (value == "true" || value == "on" || value == "yes" || value == "1") return true;
    if (value == "false" || value == "off" || value == "no" || value == "0") return false;
    throw usageError(key + " is true or false");
  }
  if (key == "cache_ttl") {
    try {
      size_t used = 0;
      long long n = std::stoll(value, &used);
      if (used == value.size()) return n;
    } catch (const std::exception&) {
    }
    throw usageError("cache_ttl is a whole number of seconds");
  }
  throw usageError("unknown setting " + key +
                   "; one of region, cmd, ignore_dockerfile, cache_enabled, cache_ttl");
}

int projectsSet(Context& ctx) {
  size_t first = 0;
  std::string name;
  if (!ctx.words.empty() && ctx.words[0].find('=') == std::string::npos) {
    name = ctx.words[0];
    first = 1;
  } else {
    name = ctx.project();
  }
  json change = json::object();
  for (size_t i = first; i < ctx.words.size(); ++i) {
    auto eq = ctx.words[i].find('=');
    if (eq == std::string::npos) throw usageError("expected KEY=VALUE, got " + ctx.words[i]);
    std::string key = ctx.words[i].substr(0, eq);
    change[key] = settingValue(key, ctx.words[i].substr(eq + 1));
  }
  if (change.empty()) throw usageError("usage: berth projects set [NAME] KEY=VALUE...");
  printProject(ctx, ctx.api().patch("/projects/" + urlEncode(name), change));
  return kExitOk;
}

int projectsRm(Context& ctx) {
  std::string name = ctx.word(0);
  confirmOrThrow(ctx.yes(), "delete the project " + name +
                                " with its releases, database, files, secrets and domains");
  ctx.api().del("/projects/" + urlEncode(name));
  if (ctx.out.json())
    ctx.out.printJson({{"deleted", name}});
  else
    ctx.out.line("deleted " + name);
  return kExitOk;
}

int regions(Context& ctx) {
  json r = ctx.anonymous().get("/regions");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::string def = r.value("default", "");
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("regions", json::array());
  for (const auto& g : list)
    rows.push_back({g.value("id", ""), g.value("name", ""), g.value("city", ""),
                    g.value("country", ""), g.value("id", "") == def ? "default" : ""});
  ctx.out.table({"ID", "NAME", "CITY", "COUNTRY", ""}, rows);
  return kExitOk;
}

int templatesLs(Context& ctx) {
  json r = ctx.anonymous().get("/app-templates");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("templates", json::array());
  for (const auto& t : list)
    rows.push_back({t.value("slug", ""), t.value("name", ""),
                    t.value("installable", false) ? "yes" : "no", t.value("description", "")});
  ctx.out.table({"SLUG", "NAME", "INSTALLABLE", "DESCRIPTION"}, rows);
  return kExitOk;
}

int templatesInstall(Context& ctx) {
  std::string slug = ctx.word(0);
  std::string path = ctx.projectPath() + "/app-templates/" + urlEncode(slug) + "/install";
  HttpRequest req;
  req.method = "POST";
  req.target = path;
  if (auto data = ctx.args.value("data")) {
    req.body = *data;
    req.send_body = true;
    req.content_type = "application/json";
  }
  auto r = ctx.api().send(req);
  throwIfRefused(r);
  json answer = r.json();
  if (r.status == 202) {
    // A long install goes on on the server; follow it.
    std::string last;
    while (true) {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      json st = ctx.api().get(path);
      std::string progress = st.value("progress", "");
      if (!progress.empty() && progress != last && !ctx.out.json()) ctx.out.note(progress);
      last = progress;
      std::string status = st.value("status", "");
      if (status == "failed")
        throw CliError(kExitRefused, st["error"].is_string() ? st["error"].get<std::string>()
                                                             : "the install failed");
      if (status != "installing") {
        answer = st.value("answer", st);
        break;
      }
    }
  }
  if (ctx.out.json()) {
    ctx.out.printJson(answer);
  } else {
    std::string url = answer.contains("project") && answer["project"].is_object()
                          ? answer["project"].value("url", "")
                          : "";
    ctx.out.line("installed " + slug + " on " + ctx.project() + (url.empty() ? "" : " at " + url));
  }
  return kExitOk;
}

}  // namespace

void addProjectCommands(std::vector<Command>& out) {
  out.push_back(
      {"projects ls", "berth projects ls", "your projects and your teams'", {}, 0, 0, projectsLs});
  out.push_back({"projects create",
                 "berth projects create NAME [--team T] [--region R] [--cmd C]",
                 "make a project (its name gets your slug)",
                 {"team", "region", "cmd"},
                 1,
                 1,
                 projectsCreate});
  out.push_back(
      {"projects info", "berth projects info [NAME]", "one project", {}, 0, 1, projectsInfo});
  out.push_back({"projects set",
                 "berth projects set [NAME] KEY=VALUE...",
                 "change region, cmd, ignore_dockerfile, cache_enabled, cache_ttl",
                 {},
                 1,
                 kManyWords,
                 projectsSet});
  out.push_back({"projects rm",
                 "berth projects rm NAME --yes",
                 "delete a project and all it holds",
                 {},
                 1,
                 1,
                 projectsRm});
  out.push_back(
      {"regions", "berth regions", "the regions a project can be set to", {}, 0, 0, regions});
  out.push_back({"templates ls", "berth templates ls", "the starter apps", {}, 0, 0, templatesLs});
  out.push_back({"templates install",
                 "berth templates install SLUG [-d JSON]",
                 "install a starter app into the project",
                 {"data"},
                 1,
                 1,
                 templatesInstall});
}

}  // namespace berth::client
