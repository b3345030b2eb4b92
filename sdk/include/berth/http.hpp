// SPDX-License-Identifier: MIT
/** @file
 *  Requests and answers of route handlers.
 *
 *  A handler is `void(berth::Request, berth::Responder)`. It answers through the Responder,
 *  either before it returns or later from any thread (async): the core does not hold a server
 *  thread for it.
 *
 *  LIFETIME: the request handle stays valid until the Responder has answered, and no longer.
 *  An async handler therefore keeps the Request and the Responder together (berth::Exchange)
 *  and touches the Request only before it answers.
 *
 *  THREADING: handlers run concurrently on core threads. A Request is read-only (json() caches
 *  per copy: give each thread its own copy). Copies of a Responder share one answer, and
 *  answering from several threads at once is safe: the first answer wins, later ones are
 *  ignored.
 */
#ifndef BERTH_HTTP_HPP
#define BERTH_HTTP_HPP

#include <berth/error.hpp>
#include <berth/host_ref.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {

enum class Method : uint32_t {
  Get = BERTH_GET,
  Post = BERTH_POST,
  Put = BERTH_PUT,
  Patch = BERTH_PATCH,
  Delete = BERTH_DELETE,
  Head = BERTH_HEAD,
  Options = BERTH_OPTIONS,
  Any = BERTH_ANY  ///< project-host routes only
};

/** Who called. All fields are empty on a public route called without a token. */
struct Caller {
  std::string accountId;
  std::string email;
  std::string tokenId;

  bool authenticated() const noexcept { return !accountId.empty(); }
};

/** A read-only view of one request. Cheap to copy (two pointers and a parse cache).
 *  LIFETIME: valid until the request's Responder has answered. */
class Request {
 public:
  Request(const berth_request* request, const berth_host_api* api) noexcept
      : request_(request), api_(api) {}

  /** "GET", "POST", ... */
  std::string method() const { return std::string(get(BERTH_REQ_METHOD)); }
  /** The percent-decoded path. */
  std::string path() const { return std::string(get(BERTH_REQ_PATH)); }
  /** The path as sent. */
  std::string rawPath() const { return std::string(get(BERTH_REQ_RAW_PATH)); }
  /** The raw query string, without '?'. */
  std::string query() const { return std::string(get(BERTH_REQ_QUERY)); }

  /** The first decoded value of a query parameter. */
  std::optional<std::string> queryParam(std::string_view name) const {
    return find(BERTH_REQ_QUERY_PARAM, name);
  }

  /** Every query parameter, decoded, in the order sent (names may repeat). */
  std::vector<std::pair<std::string, std::string>> queryParams() const {
    std::vector<std::pair<std::string, std::string>> params;
    for (size_t index = 0;; ++index) {
      std::optional<std::string> pair = find(BERTH_REQ_QUERY_PARAM_AT, std::to_string(index));
      if (!pair) break;
      size_t eq = pair->find('=');
      if (eq == std::string::npos)
        params.emplace_back(std::move(*pair), std::string());
      else
        params.emplace_back(pair->substr(0, eq), pair->substr(eq + 1));
    }
    return params;
  }

  /** A path parameter (":name" or "*name" of the route).
   *  @throw Error 500 when the route has no such parameter: that is a bug in the plugin. */
  std::string param(std::string_view name) const {
    std::optional<std::string> value = find(BERTH_REQ_PATH_PARAM, name);
    if (!value) throw Error(500, "the route has no parameter \"" + std::string(name) + "\"");
    return std::move(*value);
  }

  /** A header by case-insensitive name. */
  std::optional<std::string> header(std::string_view name) const {
    return find(BERTH_REQ_HEADER, name);
  }

  /** The body bytes; empty when the edge spooled the body to a file (see bodyFile()).
   *  LIFETIME: the view dies with the request. */
  std::string_view body() const { return get(BERTH_REQ_BODY); }

  /** Where the edge spooled a raw body (RouteOptions::rawBody routes). */
  std::optional<std::string> bodyFile() const { return find(BERTH_REQ_BODY_FILE, {}); }

  /** The Host header, lower-cased, without port. */
  std::string host() const { return std::string(get(BERTH_REQ_HOST)); }
  /** The request id the core logs; pass the Request to the Logger to tag lines with it. */
  std::string id() const { return std::string(get(BERTH_REQ_ID)); }
  /** The client address as the edge saw it. */
  std::string peer() const { return std::string(get(BERTH_REQ_PEER)); }

  /** The body parsed as JSON, parsed once per copy of the Request.
   *  @throw Error 400 "the body is not valid JSON". Routes declared with jsonBody have been
   *  checked by the core already. */
  const nlohmann::json& json() const {
    if (!json_) {
      nlohmann::json parsed = nlohmann::json::parse(body(), nullptr, false);
      if (parsed.is_discarded()) throw Error::badRequest("the body is not valid JSON");
      json_ = std::move(parsed);
    }
    return *json_;
  }

  /** The caller; empty fields on a public route without a token. */
  Caller caller() const {
    Caller caller;
    caller.accountId = std::string(get(BERTH_REQ_ACCOUNT_ID));
    caller.email = std::string(get(BERTH_REQ_ACCOUNT_EMAIL));
    caller.tokenId = std::string(get(BERTH_REQ_TOKEN_ID));
    return caller;
  }

  /** The ABI handle, for what the C++ layer does not wrap. */
  const berth_request* raw() const noexcept { return request_; }

 private:
  std::string_view get(berth_req_part part, std::string_view name = {}) const {
    return detail::toView(api_->req_get(request_, part, detail::toStr(name)));
  }
  std::optional<std::string> find(berth_req_part part, std::string_view name) const {
    return detail::toOptional(api_->req_get(request_, part, detail::toStr(name)));
  }

  const berth_request* request_;
  const berth_host_api* api_;
  mutable std::optional<nlohmann::json> json_;
};

namespace detail {

/** The one answer all copies of a Responder share. */
class ResponderState {
 public:
  ResponderState(HostRef host, const berth_request* request, berth_responder* responder) noexcept
      : host_(host), request_(request), responder_(responder) {}
  ResponderState(const ResponderState&) = delete;
  ResponderState& operator=(const ResponderState&) = delete;

  /** The last copy went away without an answer: answer 500 so the request never hangs. */
  ~ResponderState() {
    berth_responder* responder = responder_.exchange(nullptr);
    if (responder == nullptr) return;
    std::string_view id = toView(host_.api->req_get(request_, BERTH_REQ_ID, absentStr()));
    logNoThrow(host_, BERTH_LOG_ERROR, id, "the handler did not answer; answering 500");
    answerNoThrow(responder, 500, "the handler did not answer");
  }

  bool answered() const noexcept { return responder_.load() == nullptr; }

  /** Sends the answer unless one was sent already. The response's views need only live for
   *  this call: the core copies what it keeps. */
  void send(const berth_response& response) noexcept {
    berth_responder* responder = responder_.exchange(nullptr);
    if (responder != nullptr) host_.api->respond(responder, &response);
  }

  /** The answer of last resort: no allocation, so it works when nothing else does. */
  void answerInternalErrorNoThrow() noexcept {
    berth_responder* responder = responder_.exchange(nullptr);
    if (responder != nullptr) answerNoThrow(responder, 500, "internal error");
  }

  const HostRef& host() const noexcept { return host_; }
  const berth_request* request() const noexcept { return request_; }

 private:
  void answerNoThrow(berth_responder* responder, int32_t status,
                     std::string_view message) noexcept {
    berth_response response{};
    response.struct_size = sizeof(berth_response);
    response.kind = BERTH_RESPONSE_ERROR;
    response.status = status;
    response.body = toStr(message);
    response.error_extra_json = absentStr();
    host_.api->respond(responder, &response);
  }

  HostRef host_;
  const berth_request* request_;
  std::atomic<berth_responder*> responder_;
};

struct ResponderAccess;

}  // namespace detail

/** Answers one request, exactly once, from any thread.
 *
 *  Copies share the answer: the first answer wins and later ones are ignored. When the last
 *  copy is destroyed without an answer, the request is answered 500 "the handler did not
 *  answer" and the miss is logged, so a request never hangs. */
class Responder {
 public:
  Responder(HostRef host, const berth_request* request, berth_responder* responder)
      : state_(std::make_shared<detail::ResponderState>(host, request, responder)) {}

  /** A JSON answer (application/json). */
  void json(int status, const nlohmann::json& body, const Headers& headers = {}) {
    send(BERTH_RESPONSE_BYTES, status, "application/json", detail::dumpJson(body), headers, {});
  }

  /** 204 without a body. */
  void noContent(const Headers& headers = {}) {
    send(BERTH_RESPONSE_BYTES, 204, {}, {}, headers, {});
  }

  /** An error: the core writes {"error": message, ...extra}. */
  void error(int status, std::string_view message, const nlohmann::json& extra = nullptr,
             const Headers& headers = {}) {
    std::string extra_json = extra.is_object() && !extra.empty() ? detail::dumpJson(extra) : "";
    send(BERTH_RESPONSE_ERROR, status, {}, message, headers, extra_json);
  }

  /** Answers with the status, message, extra fields and headers of an Error. */
  void error(const Error& error) {
    this->error(error.status(), error.message(), error.extra(), error.headers());
  }

  /** Bytes as given. */
  void bytes(int status, std::string_view content_type, std::string_view body,
             const Headers& headers = {}) {
    send(BERTH_RESPONSE_BYTES, status, content_type, body, headers, {});
  }

  /** Has the edge send a file (sendfile, Range, ETag). The path is absolute and under the
   *  core's data_dir. */
  void file(std::string_view absolute_path, std::string_view content_type,
            const Headers& headers = {}) {
    send(BERTH_RESPONSE_FILE, 200, content_type, absolute_path, headers, {});
  }

  /** Has the edge proxy the request, streaming both ways, to 127.0.0.1:port. */
  void proxy(int port, const Headers& headers = {}) {
    send(BERTH_RESPONSE_PROXY, 200, {}, std::to_string(port), headers, {});
  }

  /** As proxy(), but the edge may keep the answer in its cache and give it to later GET/HEAD
   *  requests for the same host, path and query without asking the plugin or the app; see
   *  Services::setEdgeCache, whose rule for the request's host turns the cache on (and whose
   *  ttl should equal ttl_seconds: the lifetime of answers that do not say their own).
   *  Without a rule, for other methods, or before the edge has loaded a rule with this ttl,
   *  it is a plain proxy() answer: never an error. The core consumes the reserved header
   *  X-Berth-Cache-Ttl that carries the ttl. */
  void proxyCached(int port, uint32_t ttl_seconds, const Headers& headers = {}) {
    Headers with_ttl;
    with_ttl.reserve(headers.size() + 1);
    with_ttl.emplace_back("X-Berth-Cache-Ttl", std::to_string(ttl_seconds));
    for (const auto& header : headers) with_ttl.push_back(header);
    send(BERTH_RESPONSE_PROXY, 200, {}, std::to_string(port), with_ttl, {});
  }

  /** Has the edge send the request to a FastCGI server on 127.0.0.1:port (php-cgi, say) as a
   *  request for the script `script_name` ("/index.php") in `document_root` (absolute, below
   *  data_dir): SCRIPT_FILENAME is their join, REQUEST_URI the request's own URI, and the
   *  method, query, headers and body are the client's. Needs Berth ABI 1.2; the core consumes
   *  the reserved headers X-Berth-FastCGI-Root and X-Berth-FastCGI-Script that carry them. */
  void fastcgi(int port, std::string_view document_root, std::string_view script_name,
               const Headers& headers = {}) {
    Headers with_script;
    with_script.reserve(headers.size() + 2);
    with_script.emplace_back("X-Berth-FastCGI-Root", std::string(document_root));
    with_script.emplace_back("X-Berth-FastCGI-Script", std::string(script_name));
    for (const auto& header : headers) with_script.push_back(header);
    send(BERTH_RESPONSE_PROXY, 200, {}, std::to_string(port), with_script, {});
  }

  /** As fastcgi(), but the edge may keep the answer in its cache like proxyCached() (GET
   *  only, same rules and key; PHP is not run for a HIT). Without a rule or with a core that
   *  does not know the ttl, a plain fastcgi() answer. The core consumes X-Berth-Cache-Ttl. */
  void fastcgiCached(int port, std::string_view document_root, std::string_view script_name,
                     uint32_t ttl_seconds, const Headers& headers = {}) {
    Headers with_ttl;
    with_ttl.reserve(headers.size() + 1);
    with_ttl.emplace_back("X-Berth-Cache-Ttl", std::to_string(ttl_seconds));
    for (const auto& header : headers) with_ttl.push_back(header);
    fastcgi(port, document_root, script_name, with_ttl);
  }

  /** True once any copy has answered. */
  bool answered() const noexcept { return !state_ || state_->answered(); }

 private:
  friend struct detail::ResponderAccess;

  void send(uint32_t kind, int status, std::string_view content_type, std::string_view body,
            const Headers& headers, std::string_view extra_json) {
    if (answered()) return;
    std::vector<berth_header> raw_headers;
    raw_headers.reserve(headers.size());
    for (const auto& [name, value] : headers)
      raw_headers.push_back(berth_header{detail::toStr(name), detail::toStr(value)});
    berth_response response{};
    response.struct_size = sizeof(berth_response);
    response.kind = kind;
    response.status = status;
    response.content_type =
        content_type.empty() ? detail::absentStr() : detail::toStr(content_type);
    response.body = detail::toStr(body);
    response.headers = raw_headers.empty() ? nullptr : raw_headers.data();
    response.header_count = raw_headers.size();
    response.error_extra_json =
        extra_json.empty() ? detail::absentStr() : detail::toStr(extra_json);
    state_->send(response);
  }

  std::shared_ptr<detail::ResponderState> state_;
};

namespace detail {
/** Lets the SDK's trampolines reach the shared state (last-resort answers). */
struct ResponderAccess {
  static detail::ResponderState* state(const Responder& responder) noexcept {
    return responder.state_.get();
  }
};
}  // namespace detail

/** A request and its answer kept together, for handlers that answer later.
 *
 *      r.get("/slow", [](berth::Request req, berth::Responder resp) {
 *        auto exchange = berth::Exchange::make(std::move(req), std::move(resp));
 *        pool.post([exchange] { exchange->responder.json(200, {{"id", exchange->request.id()}});
 * });
 *      });
 *
 *  LIFETIME: `request` is usable only until `responder` has answered. */
struct Exchange {
  Exchange(Request request_in, Responder responder_in)
      : request(std::move(request_in)), responder(std::move(responder_in)) {}

  static std::shared_ptr<Exchange> make(Request request, Responder responder) {
    return std::make_shared<Exchange>(std::move(request), std::move(responder));
  }

  Request request;
  Responder responder;
};

}  // namespace berth

#endif  // BERTH_HTTP_HPP
