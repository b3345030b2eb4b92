#include "http_client.hpp"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "errors.hpp"
#include "progress.hpp"

namespace berth::client {

using nlohmann::json;

json HttpResponse::json() const {
  return json::parse(body, nullptr, false);
}

std::string HttpResponse::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

namespace {

struct Transfer {
  HttpResponse* response;
  CURL* curl;
  FILE* sink;
  ProgressBar* progress;
};

size_t onBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  // Only a successful answer goes to the sink: a refusal is read as text for its error.
  if (t->sink && status >= 200 && status < 300) return std::fwrite(data, 1, n, t->sink);
  t->response->body.append(data, n);
  return n;
}

size_t onHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) t->response->headers.clear();  // a new answer (after 100)
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    auto b = value.find_first_not_of(" \t");
    auto e = value.find_last_not_of(" \t\r\n");
    t->response->headers[name] = b == std::string::npos ? "" : value.substr(b, e - b + 1);
  }
  return n;
}

int onProgress(void* user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
               curl_off_t ulnow) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->progress) return 0;
  if (ultotal > 0 && ulnow < ultotal)
    t->progress->update(static_cast<uint64_t>(ulnow), static_cast<uint64_t>(ultotal));
  else if (dlnow > 0)
    t->progress->update(static_cast<uint64_t>(dlnow), static_cast<uint64_t>(dltotal));
  else if (ultotal > 0)
    t->progress->update(static_cast<uint64_t>(ulnow), static_cast<uint64_t>(ultotal));
  return 0;
}

}  // namespace

HttpResponse HttpClient::send(const HttpRequest& request) const {
  static const bool initialised = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == 0; }();
  (void)initialised;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw CliError(kExitNetwork, "could not start an HTTP client");
  HttpResponse response;
  std::unique_ptr<ProgressBar> progress;
  if (!request.progress_label.empty() && ::isatty(STDERR_FILENO))
    progress = std::make_unique<ProgressBar>(request.progress_label);
  Transfer transfer{&response, curl.get(), request.sink, progress.get()};

  bool absolute =
      request.target.rfind("http://", 0) == 0 || request.target.rfind("https://", 0) == 0;
  std::string url = absolute ? request.target : base_ + request.target;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "berth-cli/" BERTH_CLI_VERSION);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
  if (request.timeout_seconds > 0) curl_easy_setopt(c, CURLOPT_TIMEOUT, request.timeout_seconds);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
  if (progress) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &transfer);
  }
  if (request.send_body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }

  curl_slist* headers = nullptr;
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> guard(nullptr, curl_slist_free_all);
  auto add = [&](const std::string& h) {
    headers = curl_slist_append(headers, h.c_str());
    guard.release();
    guard.reset(headers);
  };
  // The token goes only to the API: never to a project's address (a stored file's URL).
  if (request.authorize && !token_.empty() && !absolute) add("Authorization: Bearer " + token_);
  if (!request.content_type.empty())
    add("Content-Type: " + request.content_type);
  else if (request.send_body)
    add("Content-Type:");  // curl would say form-urlencoded
  add("Expect:");          // no 100-continue round trip before a body
  for (const auto& h : request.headers) add(h);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

  CURLcode rc = curl_easy_perform(c);
  if (progress) progress->finish(rc == CURLE_OK);
  if (rc != CURLE_OK)
    throw CliError(kExitNetwork,
                   "could not reach " + (absolute ? url : base_) + ": " + curl_easy_strerror(rc));
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

std::string refusalText(const HttpResponse& r) {
  auto j = r.json();
  if (j.is_object() && j.contains("error") && j["error"].is_string())
    return j["error"].get<std::string>();
  std::string text = r.body;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (!text.empty() && text.size() < 2000 && text.find('<') == std::string::npos) return text;
  return "the API answered HTTP " + std::to_string(r.status);
}

void throwIfRefused(const HttpResponse& r) {
  if (r.status < 400) return;
  std::string text = refusalText(r);
  if (r.status == 401) throw CliError(kExitNotSignedIn, text + " (berth login signs in)");
  throw CliError(kExitRefused, text);
}

json HttpClient::jsonCall(const std::string& method, const std::string& path,
                          const json* body) const {
  HttpRequest req;
  req.method = method;
  req.target = path;
  req.timeout_seconds = 300;
  if (body) {
    req.body = body->dump();
    req.send_body = true;
    req.content_type = "application/json";
  }
  auto r = send(req);
  throwIfRefused(r);
  if (r.body.empty()) return json();
  return r.json();
}

json HttpClient::get(const std::string& path) const {
  return jsonCall("GET", path, nullptr);
}
json HttpClient::post(const std::string& path, const json& body) const {
  return jsonCall("POST", path, &body);
}
json HttpClient::patch(const std::string& path, const json& body) const {
  return jsonCall("PATCH", path, &body);
}
json HttpClient::put(const std::string& path, const json& body) const {
  return jsonCall("PUT", path, &body);
}
json HttpClient::postEmpty(const std::string& path) const {
  return jsonCall("POST", path, nullptr);
}
json HttpClient::upload(const std::string& path, std::string body, const std::string& content_type,
                        std::vector<std::string> headers) const {
  HttpRequest req;
  req.method = "POST";
  req.target = path;
  req.body = std::move(body);
  req.send_body = true;
  req.content_type = content_type;
  req.headers = std::move(headers);
  req.progress_label = "uploading";
  HttpResponse r = send(req);
  throwIfRefused(r);
  return r.json();
}

void HttpClient::del(const std::string& path) const {
  jsonCall("DELETE", path, nullptr);
}

std::string urlEncode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string encodePath(const std::string& path) {
  std::string out;
  size_t start = 0;
  while (true) {
    auto slash = path.find('/', start);
    out += urlEncode(path.substr(start, slash == std::string::npos ? slash : slash - start));
    if (slash == std::string::npos) break;
    out += '/';
    start = slash + 1;
  }
  return out;
}

}  // namespace berth::client
