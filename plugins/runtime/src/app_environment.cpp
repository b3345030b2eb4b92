#include "app_environment.hpp"

namespace berth::runtime {
namespace {

bool isPlatformName(const std::string& name) {
  return name == "PORT" || name == "HOME" || name == "PATH" || name == "DATABASE_URL" ||
         name.starts_with("PG");
}

bool isNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::map<std::string, std::string> appEnvironment(const AppEnvironmentInput& input) {
  std::map<std::string, std::string> env;
  env["PORT"] = std::to_string(input.port);
  env["HOME"] = input.release_dir;
  env["PATH"] = input.release_dir + "/node_modules/.bin:/usr/local/bin:/usr/bin:/bin";
  env["LANG"] = "C.UTF-8";
  if (!input.database_url.empty()) env["DATABASE_URL"] = input.database_url;
  for (const auto& [name, value] : input.pg)
    if (name.starts_with("PG")) env[name] = value;
  for (const auto& [name, value] : input.secrets)
    if (!isPlatformName(name)) env[name] = value;
  for (const auto& [name, value] : input.start_env)
    if (!isPlatformName(name)) env[name] = value;
  return env;
}

std::vector<std::string> expandArguments(const std::vector<std::string>& argv,
                                         const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const auto& arg : argv) {
    std::string text;
    for (std::size_t i = 0; i < arg.size();) {
      if (arg[i] != '$') {
        text += arg[i++];
        continue;
      }
      std::size_t start = i + 1;
      bool braced = start < arg.size() && arg[start] == '{';
      if (braced) ++start;
      std::size_t end = start;
      while (end < arg.size() && isNameChar(arg[end])) ++end;
      const std::string name = arg.substr(start, end - start);
      const bool closed = !braced || (end < arg.size() && arg[end] == '}');
      auto found = env.find(name);
      if (name.empty() || !closed || found == env.end()) {
        text += arg[i++];  // left as written
        continue;
      }
      text += found->second;
      i = braced ? end + 1 : end;
    }
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace berth::runtime
