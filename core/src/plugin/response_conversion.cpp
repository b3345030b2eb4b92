// toHttpResponse: a plugin's berth_response becomes the core's HttpResponse. Anything malformed
// answers 500 with a log line instead of reaching the client.
#include <cctype>
#include <charconv>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "edge/edge_cache.hpp"
#include "log/logging.hpp"
#include "plugin/abi_views.hpp"
#include "plugin/plugin_manager.hpp"

namespace berth::core {
namespace {

// Thrown for a response the core must not pass on; becomes a 500.
class BadResponse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// data_dir as the edge knows it: normal form, no trailing separator.
std::filesystem::path normalRoot(const std::string& data_dir) {
  std::filesystem::path root = std::filesystem::path(data_dir).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // "/data/" -> "/data"
  return root;
}

bool isInside(const std::filesystem::path& file, const std::filesystem::path& root) {
  if (!file.is_absolute() || !root.is_absolute()) return false;
  const std::filesystem::path relative = file.lexically_relative(root);
  return !relative.empty() && relative != "." && *relative.begin() != "..";
}

bool hasLineBreak(std::string_view text) {
  return text.find_first_of("\r\n") != text.npos;
}

bool isCacheTtlHeader(std::string_view name) {
  constexpr std::string_view reserved = "x-berth-cache-ttl";
  if (name.size() != reserved.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != reserved[i]) return false;
  return true;
}

// The ttl a PROXY answer asks the edge cache for (Responder::proxyCached), if any.
std::optional<uint32_t> requestedCacheTtl(const berth_response& response) {
  if (response.headers == nullptr) return std::nullopt;
  for (size_t i = 0; i < response.header_count; ++i) {
    if (!isCacheTtlHeader(view(response.headers[i].name))) continue;
    std::string_view text = view(response.headers[i].value);
    uint32_t ttl = 0;
    auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), ttl);
    if (text.empty() || error != std::errc() || stop != text.data() + text.size())
      return std::nullopt;
    return ttl;
  }
  return std::nullopt;
}

// Only a GET or HEAD of project traffic can be answered from the edge cache, and only through
// a cache location the loaded nginx config has; anything else is proxied uncached.
bool mayUseEdgeCache(const HttpRequest& request, uint32_t ttl) {
  if (!request.project_traffic || (request.method != "GET" && request.method != "HEAD"))
    return false;
  if (request.header("upgrade") != nullptr) return false;  // websockets are never cached
  return edgeCacheHasTtl(ttl);
}

void appendHeaders(const berth_response& response, HttpResponse& http) {
  if (response.header_count > 0 && response.headers == nullptr)
    throw BadResponse("header_count without headers");
  for (size_t i = 0; i < response.header_count; ++i) {
    const berth_header& header = response.headers[i];
    if (isCacheTtlHeader(view(header.name))) continue;  // for the core, not the client
    if (view(header.name).empty() || hasLineBreak(view(header.name)) ||
        hasLineBreak(view(header.value)))
      throw BadResponse("a malformed header name or value");
    http.headers.emplace_back(copy(header.name), copy(header.value));
  }
}

std::string contentTypeOr(berth_str content_type, const char* fallback) {
  return isAbsent(content_type) || content_type.len == 0 ? fallback : copy(content_type);
}

// Extra error fields must be a JSON object; anything else is dropped rather than failing the
// error answer it decorates.
std::string errorExtra(const berth_response& response, const HttpRequest& request) {
  std::string extra = copy(response.error_extra_json);
  if (extra.empty()) return extra;
  const auto parsed = nlohmann::json::parse(extra, nullptr, false);
  if (parsed.is_object()) return extra;
  logLine(*getLogger("http"), spdlog::level::warn, request.request_id, "",
          "plugin error answer has error_extra_json that is not a JSON object; dropped");
  return "";
}

int proxyPort(std::string_view body) {
  int port = 0;
  auto [stop, error] = std::from_chars(body.data(), body.data() + body.size(), port);
  if (body.empty() || error != std::errc() || stop != body.data() + body.size() || port < 1 ||
      port > 65535)
    throw BadResponse("a PROXY answer whose body is not a port: \"" + std::string(body) + "\"");
  return port;
}

HttpResponse convert(const berth_response& response, const HttpRequest& request,
                     const std::string& data_dir) {
  if (response.struct_size < sizeof(berth_response))
    throw BadResponse("a berth_response smaller than ABI v1's");
  if (response.status < 100 || response.status > 599)
    throw BadResponse("status " + std::to_string(response.status));
  HttpResponse http;
  switch (response.kind) {
    case BERTH_RESPONSE_BYTES:
      http.status = response.status;
      http.content_type = contentTypeOr(response.content_type, "application/octet-stream");
      http.body = copy(response.body);
      break;
    case BERTH_RESPONSE_ERROR:
      http =
          HttpResponse::error(response.status, copy(response.body), errorExtra(response, request));
      break;
    case BERTH_RESPONSE_FILE: {
      const std::filesystem::path file =
          std::filesystem::path(copy(response.body)).lexically_normal();
      const std::filesystem::path root = normalRoot(data_dir);
      if (data_dir.empty() || !isInside(file, root))
        throw BadResponse("a FILE answer outside data_dir (" + data_dir +
                          "): " + copy(response.body));
      http = HttpResponse::file(file.string(), root.string(),
                                contentTypeOr(response.content_type, "application/octet-stream"));
      break;
    }
    case BERTH_RESPONSE_PROXY: {
      const int port = proxyPort(view(response.body));
      const std::string target =
          request.query.empty() ? request.raw_path : request.raw_path + "?" + request.query;
      std::optional<uint32_t> ttl = requestedCacheTtl(response);
      http = ttl && mayUseEdgeCache(request, *ttl) ? HttpResponse::proxyCached(port, *ttl, target)
                                                   : HttpResponse::proxy(port, target);
      break;
    }
    default:
      throw BadResponse("response kind " + std::to_string(response.kind));
  }
  appendHeaders(response, http);
  return http;
}

}  // namespace

HttpResponse toHttpResponse(const berth_response& response, const HttpRequest& request,
                            const std::string& data_dir) {
  try {
    return convert(response, request, data_dir);
  } catch (const BadResponse& bad) {
    logLine(*getLogger("http"), spdlog::level::err, request.request_id, "",
            std::string("plugin answered ") + bad.what() + "; answering 500 instead");
    return HttpResponse::error(500, "internal error");
  }
}

}  // namespace berth::core
