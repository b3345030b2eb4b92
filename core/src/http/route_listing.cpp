#include "http/route_listing.hpp"

#include <berth/abi.h>

#include <algorithm>

namespace berth::core {

namespace {

const char* fieldTypeName(int type) {
  switch (type) {
    case BERTH_FIELD_STRING:
      return "string";
    case BERTH_FIELD_BOOL:
      return "boolean";
    case BERTH_FIELD_INT:
      return "integer";
    case BERTH_FIELD_ARRAY:
      return "array";
    case BERTH_FIELD_OBJECT:
      return "object";
    case BERTH_FIELD_NUMBER:
      return "number";
    default:
      return "unknown";
  }
}

const char* bodyName(BodyKind body) {
  switch (body) {
    case BodyKind::Json:
      return "json";
    case BodyKind::Raw:
      return "raw";
    default:
      return "none";
  }
}

}  // namespace

std::string openApiPath(const std::string& pattern) {
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    bool starts_segment = i == 0 || pattern[i - 1] == '/';
    if (starts_segment && (c == ':' || c == '*')) {
      size_t end = pattern.find('/', i);
      if (end == std::string::npos) end = pattern.size();
      out += "{" + pattern.substr(i + 1, end - i - 1) + "}";
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

nlohmann::json routeListing(const Router& router) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& route : router.routes()) {
    nlohmann::json fields = nlohmann::json::array();
    for (const FieldRule& field : route->fields)
      fields.push_back({{"name", field.name},
                        {"type", fieldTypeName(field.type)},
                        {"required", field.required}});
    list.push_back({{"method", route->method},
                    {"path", openApiPath(route->pattern)},
                    {"pattern", route->pattern},
                    {"owner", route->owner},
                    {"public", route->is_public},
                    {"host", route->project_host ? "project" : "api"},
                    {"body", bodyName(route->body)},
                    {"max_body_bytes", route->max_body_bytes},
                    {"fields", std::move(fields)}});
  }
  std::sort(list.begin(), list.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return std::tie(a["host"], a["path"], a["method"]) <
           std::tie(b["host"], b["path"], b["method"]);
  });
  return list;
}

}  // namespace berth::core
