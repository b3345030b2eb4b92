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

// Whether a pattern's segments match the path's, without allocating: most routes do not, and
// every request is tried against every route.
bool matches(const std::vector<std::string>& pattern, const std::vector<std::string_view>& path) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const std::string& p = pattern[i];
    if (i >= path.size()) return false;
    if (!p.empty() && p[0] == '*') return !path[i].empty() || i + 1 < path.size();
    if (!p.empty() && p[0] == ':') {
      if (path[i].empty()) return false;
    } else if (p != path[i]) {
      return false;
    }
  }
  return pattern.size() == path.size();
}

// The parameters of a pattern that matches().
std::map<std::string, std::string> paramsOf(const std::vector<std::string>& pattern,
                                            const std::vector<std::string_view>& path,
                                            std::string_view raw_path) {
  std::map<std::string, std::string> found;
  size_t offset = raw_path.empty() || raw_path[0] != '/' ? 0 : 1;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const std::string& p = pattern[i];
    if (!p.empty() && p[0] == '*') {
      found[p.substr(1)] = std::string(raw_path.substr(offset));
      break;
    }
    if (!p.empty() && p[0] == ':') found[p.substr(1)] = std::string(path[i]);
    offset += path[i].size() + 1;
  }
  return found;
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
  Compiled compiled;
  for (std::string_view segment : splitPath(route.pattern)) compiled.segments.emplace_back(segment);
  for (const std::string& segment : compiled.segments) {
    if (!segment.empty() && (segment[0] == ':' || segment[0] == '*')) break;
    ++compiled.literal_prefix;
  }
  compiled_.push_back(std::move(compiled));
  routes_.push_back(std::make_unique<Route>(std::move(route)));
}

RouteMatch Router::match(const std::string& method, const std::string& path,
                         bool project_host) const {
  RouteMatch result;
  auto parts = splitPath(path);
  // Literal segments beat parameters: prefer the route with the most literal prefix.
  int best_score = -1;
  size_t best = 0;
  for (size_t i = 0; i < routes_.size(); ++i) {
    const Route& r = *routes_[i];
    if (r.project_host != project_host || !matches(compiled_[i].segments, parts)) continue;
    bool method_ok =
        r.method == method || r.method == "*" || (method == "HEAD" && r.method == "GET");
    if (!method_ok) {
      result.allowed.push_back(r.method);
      continue;
    }
    int score = compiled_[i].literal_prefix;
    if (r.method == method) score += 1000;  // an exact method beats "*"
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  if (best_score >= 0) {
    result.kind = RouteMatch::Kind::Found;
    result.route = routes_[best].get();
    result.params = paramsOf(compiled_[best].segments, parts, path);
  }
  if (result.kind != RouteMatch::Kind::Found && !result.allowed.empty())
    result.kind = RouteMatch::Kind::MethodNotAllowed;
  return result;
}

}  // namespace berth::core
