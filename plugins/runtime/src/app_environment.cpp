#include "app_environment.hpp"

#include <string_view>

#include <berth/util/percent_decode.hpp>

namespace berth::runtime {

bool isPlatformName(const std::string& name) {
  return name == "PORT" || name == "HOME" || name == "TMPDIR" || name == "PATH" ||
         name == "DATABASE_URL" || name.starts_with("PG") || name == "BERTH_URL";
}

namespace {

bool isNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Percent-decoding as libpq reads a URL: a bad escape is kept as written (libpq would refuse
// the URL anyway).
std::string decoded(std::string_view text) {
  return *berth::percentDecode(text, {.keep_malformed = true});
}

}  // namespace

std::map<std::string, std::string> pgEnvironment(const std::string& database_url) {
  std::map<std::string, std::string> env;
  std::string_view rest = database_url;
  if (rest.starts_with("postgresql://"))
    rest.remove_prefix(13);
  else if (rest.starts_with("postgres://"))
    rest.remove_prefix(11);
  else
    return env;
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view path;
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view user_info = rest.substr(0, at);
    rest = rest.substr(at + 1);
    auto colon = user_info.find(':');
    env["PGUSER"] = decoded(user_info.substr(0, colon));
    if (colon != std::string_view::npos) env["PGPASSWORD"] = decoded(user_info.substr(colon + 1));
  }
  std::string_view host = rest, port;
  if (rest.starts_with('[')) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return {};
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (!host.empty()) env["PGHOST"] = decoded(host);
  if (!port.empty()) env["PGPORT"] = decoded(port);
  if (!path.empty()) env["PGDATABASE"] = decoded(path);
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    auto eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = pair.substr(0, eq);
    if (key == "hostaddr") env["PGHOSTADDR"] = decoded(pair.substr(eq + 1));
    if (key == "sslmode") env["PGSSLMODE"] = decoded(pair.substr(eq + 1));
  }
  return env;
}

std::map<std::string, std::string> appEnvironment(const AppEnvironmentInput& input) {
  std::map<std::string, std::string> env;
  env["PORT"] = std::to_string(input.port);
  if (input.home.empty()) {
    env["HOME"] = input.release_dir;
  } else {
    env["HOME"] = input.home;
    env["TMPDIR"] = input.home + "/tmp";
  }
  env["PATH"] = input.release_dir + "/node_modules/.bin:/usr/local/bin:/usr/bin:/bin";
  env["LANG"] = "C.UTF-8";
  if (!input.database_url.empty()) env["DATABASE_URL"] = input.database_url;
  for (const auto& [name, value] : input.pg)
    if (name.starts_with("PG")) env[name] = value;
  if (!input.public_url.empty()) env["BERTH_URL"] = input.public_url;
  for (const auto& [name, value] : input.secrets)
    if (!isPlatformName(name)) env[name] = value;
  for (const auto& [name, value] : input.options)
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
