#include "http/body_checks.hpp"
#include "util/ascii.hpp"

#include <algorithm>
#include <cctype>

#include <berth/abi.h>
#include <nlohmann/json.hpp>

namespace berth::core {

bool isJsonContentType(const std::string& content_type) {
  std::string mime = content_type.substr(0, content_type.find(';'));
  mime.erase(
      std::remove_if(mime.begin(), mime.end(), [](unsigned char c) { return std::isspace(c); }),
      mime.end());
  return asciiLower(std::move(mime)) == "application/json";
}

namespace {

const char* typeName(int type) {
  switch (type) {
    case BERTH_FIELD_STRING:
      return "a string";
    case BERTH_FIELD_BOOL:
      return "a boolean";
    case BERTH_FIELD_INT:
      return "an integer";
    case BERTH_FIELD_ARRAY:
      return "an array";
    case BERTH_FIELD_OBJECT:
      return "an object";
    case BERTH_FIELD_NUMBER:
      return "a number";
  }
  return "a value";
}

bool hasType(const nlohmann::json& v, int type) {
  switch (type) {
    case BERTH_FIELD_STRING:
      return v.is_string();
    case BERTH_FIELD_BOOL:
      return v.is_boolean();
    case BERTH_FIELD_INT:
      return v.is_number_integer();
    case BERTH_FIELD_ARRAY:
      return v.is_array();
    case BERTH_FIELD_OBJECT:
      return v.is_object();
    case BERTH_FIELD_NUMBER:
      return v.is_number();
  }
  return true;
}

}  // namespace

std::string bodyTooLargeMessage(uint64_t limit_bytes) {
  constexpr uint64_t kMiB = 1024 * 1024;
  std::string limit = std::to_string(limit_bytes) + " bytes";
  if (limit_bytes >= kMiB && limit_bytes % kMiB == 0)
    limit = std::to_string(limit_bytes / kMiB) + " MB";
  else if (limit_bytes >= 1024 && limit_bytes % 1024 == 0)
    limit = std::to_string(limit_bytes / 1024) + " KB";
  return "the request body is too large for this route (limit " + limit + ")";
}

std::optional<HttpResponse> checkJsonBody(const HttpRequest& request,
                                          const std::vector<FieldRule>& fields,
                                          uint64_t max_body_bytes) {
  if (max_body_bytes > 0 && request.body.size() > max_body_bytes)
    return HttpResponse::error(413, bodyTooLargeMessage(max_body_bytes));
  const std::string* ct = request.header("content-type");
  if (!ct || !isJsonContentType(*ct))
    return HttpResponse::plain(415, "Content-Type must be application/json");
  auto body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return HttpResponse::error(400, "the body is not valid JSON");
  if (fields.empty()) return std::nullopt;
  if (!body.is_object()) return HttpResponse::plain(422, "the body must be a JSON object");
  for (const auto& f : fields) {
    auto it = body.find(f.name);
    if (it == body.end() || it->is_null()) {
      if (f.required) return HttpResponse::plain(422, "missing field: " + f.name);
      continue;
    }
    if (!hasType(*it, f.type))
      return HttpResponse::plain(422, "field " + f.name + " must be " + typeName(f.type));
  }
  return std::nullopt;
}

}  // namespace berth::core
