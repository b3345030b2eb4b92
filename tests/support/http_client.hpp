// A small libcurl client for API tests: real HTTP on loopback.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace berth::testing {

struct HttpResult {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names, last value wins
  std::string error;                           // curl's error when no answer came

  nlohmann::json json() const;  // parsed body (discarded value when not JSON)
  std::string header(const std::string& lower_name) const;
};

struct HttpRequestSpec {
  std::string method = "GET";
  std::string url;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
  long timeout_ms = 30000;
  std::string source_address;  // the client socket's own address; empty: the system's choice
};

HttpResult send(const HttpRequestSpec& spec);

// The `error` of a JSON error body; a marker with the status and body when there is none, so
// that a comparison with the expected text fails with something readable.
inline std::string errorText(const HttpResult& r) {
  auto j = r.json();
  if (j.is_object() && j.contains("error") && j["error"].is_string())
    return j["error"].get<std::string>();
  return "<no error field; status " + std::to_string(r.status) + ", body: " + r.body + ">";
}

// A request to base_url + path with that Host header (a project's host through the edge).
HttpResult sendToHost(const std::string& base_url, const std::string& host,
                      const std::string& method, const std::string& path,
                      std::vector<std::string> headers = {}, const std::string& body = "",
                      long timeout_ms = 30000);

// An IPv4 address of this machine that is not loopback ("" when it has none): a request to
// 127.0.0.1 from it reaches the server as a visitor's.
std::string nonLoopbackAddress();

// Convenience for the API: JSON bodies get Content-Type: application/json.
class ApiClient {
 public:
  ApiClient(std::string base_url, std::string token = "")
      : base_(std::move(base_url)), token_(std::move(token)) {}
  HttpResult get(const std::string& path, std::vector<std::string> headers = {}) const;
  HttpResult del(const std::string& path) const;
  HttpResult post(const std::string& path, const nlohmann::json& body) const;
  HttpResult patch(const std::string& path, const nlohmann::json& body) const;
  HttpResult raw(const std::string& method, const std::string& path, const std::string& body,
                 std::vector<std::string> headers = {}) const;
  ApiClient withToken(std::string token) const { return ApiClient(base_, std::move(token)); }
  const std::string& base() const { return base_; }

 private:
  std::string base_, token_;
};

}  // namespace berth::testing
