#include "http/body_checks.hpp"
#include "util/ascii.hpp"

#include <algorithm>
#include <cctype>

#include <berth/abi.h>
#include <berth/util/body_fields.hpp>
#include <nlohmann/json.hpp>

namespace berth::core {

bool isJsonContentType(const std::string& content_type) {
  std::string mime = content_type.substr(0, content_type.find(';'));
  mime.erase(
      std::remove_if(mime.begin(), mime.end(), [](unsigned char c) { return std::isspace(c); }),
      mime.end());
  return asciiLower(std::move(mime)) == "application/json";
}

std::optional<std::string> fieldProblem(const nlohmann::json& body,
                                        const std::vector<FieldRule>& fields) {
  std::vector<berth::detail::FieldView> views;
  views.reserve(fields.size());
  for (const FieldRule& f : fields)
    views.push_back({f.name, static_cast<uint32_t>(f.type), f.required});
  return berth::detail::bodyFieldProblem(body, views);
}

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
  if (auto problem = fieldProblem(body, fields)) return HttpResponse::plain(422, *problem);
  return std::nullopt;
}

}  // namespace berth::core
