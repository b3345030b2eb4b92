// toHttpResponse: a plugin's berth_response becomes the core's HttpResponse. Anything malformed
// answers 500 with a log line instead of reaching the client.
#include <cctype>
#include <charconv>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cluster/live_nodes.hpp"
#include "edge/edge_cache.hpp"
#include "log/logging.hpp"
#include "plugin/abi_views.hpp"
#include "plugin/plugin_manager.hpp"
#include "util/ascii.hpp"

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

// Headers a plugin sends the core (through the SDK), never the client.
constexpr std::string_view kCacheTtlHeader = "x-berth-cache-ttl";
constexpr std::string_view kFastCgiRootHeader = "x-berth-fastcgi-root";
constexpr std::string_view kFastCgiScriptHeader = "x-berth-fastcgi-script";
// Responder::proxyToNode: the id of the live node whose edge takes the request.
constexpr std::string_view kProxyNodeHeader = "x-berth-proxy-node";

bool sameLowercase(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (asciiLower(name[i]) != lower[i]) return false;
  return true;
}

bool isReservedHeader(std::string_view name) {
  return sameLowercase(name, kCacheTtlHeader) || sameLowercase(name, kFastCgiRootHeader) ||
         sameLowercase(name, kFastCgiScriptHeader) || sameLowercase(name, kProxyNodeHeader);
}

std::optional<std::string_view> reservedHeader(const berth_response& response,
                                               std::string_view lower_name) {
  if (response.headers == nullptr) return std::nullopt;
  for (size_t i = 0; i < response.header_count; ++i)
    if (sameLowercase(view(response.headers[i].name), lower_name))
      return view(response.headers[i].value);
  return std::nullopt;
}

// The ttl a PROXY answer asks the edge cache for (Responder::proxyCached), if any.
std::optional<uint32_t> requestedCacheTtl(const berth_response& response) {
  std::optional<std::string_view> text = reservedHeader(response, kCacheTtlHeader);
  if (!text) return std::nullopt;
  uint32_t ttl = 0;
  auto [stop, error] = std::from_chars(text->data(), text->data() + text->size(), ttl);
  if (text->empty() || error != std::errc() || stop != text->data() + text->size())
    return std::nullopt;
  return ttl;
}

// A FastCGI answer (Responder::fastcgi): its document root below data_dir and a plain script
// path, or nothing when the answer is a plain proxy.
std::optional<HttpResponse> fastCgiAnswer(const berth_response& response, int port,
                                          const HttpRequest& request, const std::string& data_dir,
                                          std::optional<uint32_t> cache_ttl) {
  std::optional<std::string_view> root_text = reservedHeader(response, kFastCgiRootHeader);
  std::optional<std::string_view> script = reservedHeader(response, kFastCgiScriptHeader);
  if (!root_text && !script) return std::nullopt;
  if (!root_text || !script)
    throw BadResponse("a FastCGI answer needs both X-Berth-FastCGI-Root and -Script");
  const std::filesystem::path root_dir = normalRoot(data_dir);
  const std::filesystem::path document_root =
      std::filesystem::path(std::string(*root_text)).lexically_normal();
  if (data_dir.empty() || !isInside(document_root, root_dir))
    throw BadResponse("a FastCGI document root outside data_dir: " + std::string(*root_text));
  std::string below = document_root.lexically_relative(root_dir).string();
  if (!below.empty() && below.back() == '/') below.pop_back();
  const std::string name(*script);
  if (name.size() < 2 || name.front() != '/' ||
      std::filesystem::path(name).lexically_normal().string() != name ||
      name.find("/..") != std::string::npos || name.find('\0') != std::string::npos)
    throw BadResponse("a FastCGI script that is not a plain path: " + name);
  // The edge splits its target at this marker.
  if (below.find("_berth_script") != std::string::npos ||
      name.find("/_berth_script") != std::string::npos)
    throw BadResponse("a FastCGI root or script naming the edge's marker: " + name);
  return HttpResponse::fastcgi(port, below, name, request.query, cache_ttl);
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
    if (isReservedHeader(view(header.name))) continue;  // for the core, not the client
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

// A PROXY answer naming a node (Responder::proxyToNode): only to a live node's registered
// address, only for project traffic, and never a request another node forwarded already.
HttpResponse toNode(const std::string& node_id, const HttpRequest& request) {
  if (!request.project_traffic) throw BadResponse("a proxy to a node for a request of the API");
  if (node_id == thisNodeId()) throw BadResponse("a proxy to a node that is this node");
  if (clusterSecret().empty()) throw BadResponse("a proxy to a node without a cluster secret");
  std::optional<std::string> address = liveNodeAddress(node_id);
  if (!address) {
    HttpResponse gone = HttpResponse::error(
        503, "the node that runs this project's app is gone or unreachable; try again shortly");
    gone.headers.emplace_back("Retry-After", "2");
    return gone;
  }
  const std::string target =
      request.query.empty() ? request.raw_path : request.raw_path + "?" + request.query;
  return HttpResponse::proxyNode(*address, target);
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
      if (std::optional<std::string_view> node = reservedHeader(response, kProxyNodeHeader)) {
        http = toNode(std::string(*node), request);
        break;
      }
      const int port = proxyPort(view(response.body));
      const std::string target =
          request.query.empty() ? request.raw_path : request.raw_path + "?" + request.query;
      std::optional<uint32_t> ttl = requestedCacheTtl(response);
      if (ttl && !mayUseEdgeCache(request, *ttl)) ttl.reset();
      if (std::optional<HttpResponse> fastcgi =
              fastCgiAnswer(response, port, request, data_dir, ttl)) {
        http = std::move(*fastcgi);
      } else if (ttl) {
        http = HttpResponse::proxyCached(port, *ttl, target);
      } else {
        http = HttpResponse::proxy(port, target);
      }
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
