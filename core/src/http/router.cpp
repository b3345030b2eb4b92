#include "http/router.hpp"

#include <stdexcept>

namespace berth::core {

namespace {

std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  if (!path.empty() && path[0] == '/') i = 1;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    parts.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

void checkPattern(const std::string& pattern) {
  if (pattern.empty() || pattern[0] != '/')
    throw std::runtime_error("route pattern must start with '/': " + pattern);
  auto parts = splitPath(pattern);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto p = parts[i];
    if ((p.size() == 1 && (p[0] == ':' || p[0] == '*')))
      throw std::runtime_error("route pattern has an unnamed parameter: " + pattern);
    if (!p.empty() && p[0] == '*' && i + 1 != parts.size())
      throw std::runtime_error("'*' may only end a route pattern: " + pattern);
  }
}

// Matches one pattern; fills params on success.
bool matchPattern(const std::string& pattern, const std::vector<std::string_view>& path,
                  std::string_view raw_path, std::map<std::string, std::string>& params) {
  auto pat = splitPath(pattern);
  std::map<std::string, std::string> found;
  size_t offset = raw_path.empty() || raw_path[0] != '/' ? 0 : 1;
  for (size_t i = 0; i < pat.size(); ++i) {
    std::string_view p = pat[i];
    if (!p.empty() && p[0] == '*') {
      if (i >= path.size()) return false;
      std::string_view rest = raw_path.substr(offset);
      if (rest.empty()) return false;
      found[std::string(p.substr(1))] = std::string(rest);
      params = std::move(found);
      return true;
    }
    if (i >= path.size()) return false;
    if (!p.empty() && p[0] == ':') {
      if (path[i].empty()) return false;
      found[std::string(p.substr(1))] = std::string(path[i]);
    } else if (p != path[i]) {
      return false;
    }
    offset += path[i].size() + 1;
  }
  if (pat.size() != path.size()) return false;
  params = std::move(found);
  return true;
}

}  // namespace

void Router::add(Route route) {
  checkPattern(route.pattern);
  for (const auto& r : routes_) {
    if (r->pattern == route.pattern && r->method == route.method &&
        r->project_host == route.project_host)
      throw std::runtime_error("route " + route.method + " " + route.pattern + " is claimed by " +
                               r->owner + " and by " + route.owner);
  }
  routes_.push_back(std::make_unique<Route>(std::move(route)));
}

RouteMatch Router::match(const std::string& method, const std::string& path,
                         bool project_host) const {
  RouteMatch result;
  auto parts = splitPath(path);
  // Literal segments beat parameters: prefer the route with the most literal prefix.
  int best_score = -1;
  for (const auto& r : routes_) {
    if (r->project_host != project_host) continue;
    std::map<std::string, std::string> params;
    if (!matchPattern(r->pattern, parts, path, params)) continue;
    bool method_ok =
        r->method == method || r->method == "*" || (method == "HEAD" && r->method == "GET");
    if (!method_ok) {
      result.allowed.push_back(r->method);
      continue;
    }
    int score = 0;
    for (auto seg : splitPath(r->pattern)) {
      if (!seg.empty() && (seg[0] == ':' || seg[0] == '*')) break;
      ++score;
    }
    if (r->method == method) score += 1000;  // an exact method beats "*"
    if (score > best_score) {
      best_score = score;
      result.kind = RouteMatch::Kind::Found;
      result.route = r.get();
      result.params = std::move(params);
    }
  }
  if (result.kind != RouteMatch::Kind::Found && !result.allowed.empty())
    result.kind = RouteMatch::Kind::MethodNotAllowed;
  return result;
}

}  // namespace berth::core
