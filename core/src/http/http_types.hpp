// The core's own request/response records: copied out of Pistache so that a handler may answer
// later from another thread.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace berth::core {

struct Caller {
  bool authenticated = false;
  std::string account_id;
  std::string email;
  std::string token_id;
};

struct HttpRequest {
  std::string method;                                             // "GET"
  std::string raw_path;                                           // as sent, without query
  std::string path;                                               // percent-decoded
  std::string query;                                              // raw, without '?'
  std::vector<std::pair<std::string, std::string>> query_params;  // decoded, in order
  std::map<std::string, std::string> headers;                     // lower-case names
  std::string body;
  std::string body_file;  // X-Berth-Body-File from the edge, or empty
  std::string host;       // lower-case, without port
  std::string request_id;
  std::string peer;
  bool project_traffic = false;
  std::map<std::string, std::string> path_params;
  Caller caller;

  const std::string* header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? nullptr : &it->second;
  }
  const std::string* queryParam(const std::string& name) const {
    for (const auto& [k, v] : query_params)
      if (k == name) return &v;
    return nullptr;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static HttpResponse json(int status, std::string body);
  // {"error": message} plus the fields of extra (a JSON object text, may be empty).
  static HttpResponse error(int status, const std::string& message,
                            const std::string& extra_json = "");
  static HttpResponse plain(int status, std::string text);
  // X-Accel-Redirect answers carried out by the edge.
  static HttpResponse file(const std::string& absolute_path, const std::string& data_dir,
                           const std::string& content_type);
  static HttpResponse proxy(int port, const std::string& raw_path_and_query);
  // To another node's edge at `address` (an IP literal and port the caller checked against
  // the live nodes), the request as the client sent it, marked as forwarded.
  static HttpResponse proxyNode(const std::string& address, const std::string& raw_path_and_query);
  // As proxy, through the edge cache location of that ttl (see EdgeLayout's cache rules).
  static HttpResponse proxyCached(int port, uint32_t ttl_seconds,
                                  const std::string& raw_path_and_query);
  // The request as FastCGI to 127.0.0.1:port, running `script` ("/index.php") of the document
  // root `root_below_data_dir` ("runtime/releases/<id>/app"); `query` is the client's.
  // With a ttl: through the edge's FastCGI cache location of that ttl.
  static HttpResponse fastcgi(int port, const std::string& root_below_data_dir,
                              const std::string& script, const std::string& query,
                              std::optional<uint32_t> cache_ttl = std::nullopt);
};

// Answers a request exactly once, from any thread. Later calls are ignored.
using Reply = std::function<void(HttpResponse)>;
using Handler = std::function<void(std::shared_ptr<HttpRequest>, Reply)>;

// Every byte outside [A-Za-z0-9/._~-] as %XX.
std::string percentEncodePath(std::string_view path);

}  // namespace berth::core
