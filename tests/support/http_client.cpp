#include "support/http_client.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <mutex>

namespace berth::testing {

namespace {

size_t collectBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t collectHeader(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * n;
}

}  // namespace

nlohmann::json HttpResult::json() const {
  return nlohmann::json::parse(body, nullptr, false);
}

std::string HttpResult::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

HttpResult send(const HttpRequestSpec& spec) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResult result;
  CURL* curl = curl_easy_init();
  curl_slist* headers = nullptr;
  // curl waits a second for 100-continue on large bodies; nobody needs that here.
  headers = curl_slist_append(headers, "Expect:");
  for (const auto& h : spec.headers) headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, spec.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, spec.method.c_str());
  if (spec.method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (!spec.body.empty() || spec.method == "POST" || spec.method == "PATCH" ||
      spec.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, spec.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(spec.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collectBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collectHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result.headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, spec.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  if (!spec.source_address.empty())
    curl_easy_setopt(curl, CURLOPT_INTERFACE, ("host!" + spec.source_address).c_str());
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  else
    result.error = curl_easy_strerror(rc);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return result;
}

HttpResult sendToHost(const std::string& base_url, const std::string& host,
                      const std::string& method, const std::string& path,
                      std::vector<std::string> headers, const std::string& body, long timeout_ms) {
  headers.push_back("Host: " + host);
  HttpRequestSpec spec;
  spec.method = method;
  spec.url = base_url + path;
  spec.headers = std::move(headers);
  spec.body = body;
  spec.timeout_ms = timeout_ms;
  return send(spec);
}

std::string nonLoopbackAddress() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* it = list; it != nullptr && found.empty(); it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(it->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN] = {};
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) found = text;
  }
  ::freeifaddrs(list);
  return found;
}

HttpResult ApiClient::raw(const std::string& method, const std::string& path,
                          const std::string& body, std::vector<std::string> headers) const {
  HttpRequestSpec spec;
  spec.method = method;
  spec.url = base_ + path;
  spec.body = body;
  if (!token_.empty()) headers.push_back("Authorization: Bearer " + token_);
  spec.headers = std::move(headers);
  return send(spec);
}

HttpResult ApiClient::get(const std::string& path, std::vector<std::string> headers) const {
  return raw("GET", path, "", std::move(headers));
}

HttpResult ApiClient::del(const std::string& path) const {
  return raw("DELETE", path, "");
}

HttpResult ApiClient::post(const std::string& path, const nlohmann::json& body) const {
  return raw("POST", path, body.dump(), {"Content-Type: application/json"});
}

HttpResult ApiClient::patch(const std::string& path, const nlohmann::json& body) const {
  return raw("PATCH", path, body.dump(), {"Content-Type: application/json"});
}

}  // namespace berth::testing
