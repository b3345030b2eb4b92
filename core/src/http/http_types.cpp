#include "http/http_types.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

namespace berth::core {

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::error(int status, const std::string& message,
                                 const std::string& extra_json) {
  nlohmann::json body = nlohmann::json::object();
  if (!extra_json.empty()) {
    auto extra = nlohmann::json::parse(extra_json, nullptr, false);
    if (extra.is_object()) body = std::move(extra);
  }
  body["error"] = message;
  return json(status, body.dump());
}

HttpResponse HttpResponse::plain(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(text);
  return r;
}

HttpResponse HttpResponse::file(const std::string& absolute_path, const std::string& data_dir,
                                const std::string& content_type) {
  std::string prefix = data_dir;
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  if (absolute_path.rfind(prefix, 0) != 0 || absolute_path.find("/../") != std::string::npos)
    return error(500, "internal error");
  HttpResponse r;
  r.status = 200;
  r.content_type = content_type;  // empty: the edge types the file from its name
  // nginx percent-decodes the redirect target, so the path travels encoded.
  r.headers.emplace_back("X-Accel-Redirect",
                         "/_berth_file/" + percentEncodePath(absolute_path.substr(prefix.size())));
  return r;
}

namespace {
HttpResponse accelRedirect(const std::string& location, const std::string& raw_path_and_query) {
  HttpResponse r;
  r.status = 200;
  r.content_type.clear();
  std::string target = raw_path_and_query.empty() ? "/" : raw_path_and_query;
  if (target[0] != '/') target = "/" + target;
  r.headers.emplace_back("X-Accel-Redirect", location + target);
  return r;
}
}  // namespace

HttpResponse HttpResponse::proxy(int port, const std::string& raw_path_and_query) {
  return accelRedirect("/_berth_proxy/" + std::to_string(port), raw_path_and_query);
}

HttpResponse HttpResponse::proxyNode(const std::string& address,
                                     const std::string& raw_path_and_query) {
  // The edge's location sends $request_uri (the client's own target); this one is for its log.
  return accelRedirect("/_berth_node/" + address, raw_path_and_query);
}

HttpResponse HttpResponse::fastcgi(int port, const std::string& root_below_data_dir,
                                   const std::string& script, const std::string& query,
                                   std::optional<uint32_t> cache_ttl) {
  const std::string location =
      cache_ttl ? "/_berth_fcgi_cache/" + std::to_string(*cache_ttl) + "/" : "/_berth_fcgi/";
  // nginx percent-decodes the redirect target's path; its query goes on as sent.
  return accelRedirect(location + std::to_string(port),
                       percentEncodePath("/" + root_below_data_dir) + "/_berth_script" +
                           percentEncodePath(script) + (query.empty() ? "" : "?" + query));
}

HttpResponse HttpResponse::proxyCached(int port, uint32_t ttl_seconds,
                                       const std::string& raw_path_and_query) {
  return accelRedirect("/_berth_cache/" + std::to_string(ttl_seconds) + "/" + std::to_string(port),
                       raw_path_and_query);
}

std::string percentEncodePath(std::string_view path) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool plain = std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

}  // namespace berth::core
