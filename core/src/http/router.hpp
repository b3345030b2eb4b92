// Method + path routing for the management API and for project hosts. Patterns are segments,
// ":name" takes one segment, a final "*name" takes the rest (at least one segment).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/http_types.hpp"

namespace berth::core {

enum class BodyKind { None, Json, Raw };

struct FieldRule {
  std::string name;
  int type = 0;  // berth_field_type
  bool required = false;
};

struct Route {
  std::string method;  // "GET" ... or "*" (project hosts: any method)
  std::string pattern;
  std::string owner;  // plugin id or "core"
  bool is_public = false;
  bool project_host = false;
  BodyKind body = BodyKind::None;
  uint64_t max_body_bytes = 0;
  std::vector<FieldRule> fields;
  Handler handler;
};

struct RouteMatch {
  enum class Kind { Found, NotFound, MethodNotAllowed } kind = Kind::NotFound;
  const Route* route = nullptr;
  std::map<std::string, std::string> params;
  std::vector<std::string> allowed;  // for 405
};

class Router {
 public:
  // Throws std::runtime_error when the same method and pattern is already taken (naming both
  // owners) or the pattern is malformed.
  void add(Route route);
  // Only routes of the given side (project_host or API) are considered.
  RouteMatch match(const std::string& method, const std::string& path, bool project_host) const;
  const std::vector<std::unique_ptr<Route>>& routes() const { return routes_; }

 private:
  // Each route's pattern, split once when it is added (matching runs for every request).
  struct Compiled {
    std::vector<std::string> segments;
    int literal_prefix = 0;  // literal segments before the first parameter: more wins
  };
  std::vector<std::unique_ptr<Route>> routes_;
  std::vector<Compiled> compiled_;  // by index in routes_
};

}  // namespace berth::core
