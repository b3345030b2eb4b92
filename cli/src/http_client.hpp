// The API over HTTP (libcurl): requests with the token, answers with their status, headers and
// body, and refusals turned into errors in the API's own words.
#pragma once
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace berth::client {

struct HttpResponse {
  long status = 0;
  std::string body;                            // empty when the body went to a sink
  std::map<std::string, std::string> headers;  // lower-case names, last value wins
  nlohmann::json json() const;                 // discarded value when the body is not JSON
  std::string header(const std::string& lower_name) const;
};

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // a path on the API ("/projects?x=1"), or a whole http(s) URL
  std::string body;
  bool send_body = false;
  std::string content_type;
  std::vector<std::string> headers;  // "Name: value"
  bool authorize = true;             // send the token
  std::string progress_label;        // non-empty: a progress bar on stderr when it is a terminal
  FILE* sink = nullptr;              // a 2xx body goes here instead of into `body`
  long timeout_seconds = 0;          // 0: none (uploads and exports may take long)
};

class HttpClient {
 public:
  HttpClient(std::string base_url, std::string token)
      : base_(std::move(base_url)), token_(std::move(token)) {}

  // Throws CliError(kExitNetwork) when no answer came.
  HttpResponse send(const HttpRequest& request) const;

  // JSON helpers: throw the API's refusal (see throwIfRefused) for a status of 400 and above.
  nlohmann::json get(const std::string& path) const;
  nlohmann::json post(const std::string& path, const nlohmann::json& body) const;
  nlohmann::json patch(const std::string& path, const nlohmann::json& body) const;
  nlohmann::json put(const std::string& path, const nlohmann::json& body) const;
  nlohmann::json postEmpty(const std::string& path) const;
  void del(const std::string& path) const;
  // POSTs `body` as it is (a release, a file, an SQL dump) with a progress bar; the JSON answer.
  nlohmann::json upload(const std::string& path, std::string body, const std::string& content_type,
                        std::vector<std::string> headers = {}) const;

  const std::string& baseUrl() const { return base_; }
  const std::string& token() const { return token_; }

 private:
  nlohmann::json jsonCall(const std::string& method, const std::string& path,
                          const nlohmann::json* body) const;
  std::string base_, token_;
};

// The error text of a refused answer: its JSON `error`, else its plain text body (415 and 422
// are plain text), else the status.
std::string refusalText(const HttpResponse& r);
// 401: CliError(kExitNotSignedIn); any other status of 400 or more: CliError(kExitRefused).
void throwIfRefused(const HttpResponse& r);

// Percent-encodes everything but unreserved characters (and '/' in encodePath).
std::string urlEncode(const std::string& text);
std::string encodePath(const std::string& path);

}  // namespace berth::client
