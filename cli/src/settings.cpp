#include "settings.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "errors.hpp"

extern char** environ;

namespace berth::client {

namespace fs = std::filesystem;

Environment processEnvironment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

std::string trimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

static std::string envValue(const Environment& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

Settings resolveSettings(const Args& args, const ConfigFile& config, const Environment& env,
                         const std::string& cwd) {
  Settings s;
  s.context = args.get("context", envValue(env, "BERTH_CONTEXT"));
  if (s.context.empty()) s.context = config.current.empty() ? "default" : config.current;
  s.context_known = config.contexts.count(s.context) > 0;
  ContextEntry ctx;
  if (auto it = config.contexts.find(s.context); it != config.contexts.end()) ctx = it->second;

  std::string url = args.get("url", envValue(env, "BERTH_URL"));
  if (url.empty()) {
    s.url = trimSlash(ctx.url.empty() ? kDefaultUrl : ctx.url);
    s.token = ctx.token;
  } else {
    s.url = trimSlash(url);
    if (trimSlash(ctx.url) == s.url) {
      s.token = ctx.token;
    } else {
      for (const auto& [name, c] : config.contexts)
        if (trimSlash(c.url) == s.url) {
          s.token = c.token;
          s.context = name;
          break;
        }
    }
  }
  if (std::string t = envValue(env, "BERTH_TOKEN"); !t.empty()) s.token = t;

  s.project = args.get("project", envValue(env, "BERTH_PROJECT"));
  if (s.project.empty())
    if (auto linked = linkedProject(cwd)) s.project = *linked;
  return s;
}

std::optional<std::string> linkedProject(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  while (!p.empty()) {
    fs::path file = p / ".berth" / "project.json";
    std::ifstream in(file);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      auto j = nlohmann::json::parse(text.str(), nullptr, false);
      if (j.is_object() && j.contains("project") && j["project"].is_string())
        return j["project"].get<std::string>();
      throw usageError(file.string() + " names no project; run berth link PROJECT again");
    }
    if (p == p.root_path()) break;
    p = p.parent_path();
  }
  return std::nullopt;
}

void writeLink(const std::string& dir, const std::string& project, const std::string& url) {
  fs::path folder = fs::path(dir) / ".berth";
  std::error_code ec;
  fs::create_directories(folder, ec);
  std::ofstream out(folder / "project.json", std::ios::trunc);
  out << nlohmann::json({{"project", project}, {"url", url}}).dump(2) << "\n";
  if (!out) throw usageError("could not write " + (folder / "project.json").string());
}

}  // namespace berth::client
