// SPDX-License-Identifier: MIT
/** @file
 *  berth::Error: the one exception a plugin throws on purpose. Wherever the SDK calls plugin
 *  code (route handlers, hooks, services, installers, start) it turns an Error into the
 *  status and message the caller sees: for a route, the JSON body {"error": message, ...extra}.
 *  Any other exception is a bug: it is logged and answered as 500 "internal error".
 */
#ifndef BERTH_ERROR_HPP
#define BERTH_ERROR_HPP

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {

/** Extra response headers, in order (names as they should be sent). */
using Headers = std::vector<std::pair<std::string, std::string>>;

/** A refusal with an HTTP status, a message meant for a person, optional extra JSON fields
 *  (for example {"suggestion": "blog-2"} beside a 409) and optional headers (Retry-After). */
class Error : public std::runtime_error {
 public:
  /** A failure on the service side: status 500. */
  explicit Error(std::string message) : Error(500, std::move(message)) {}

  /** @param status HTTP status, 400..599.
   *  @param extra  a JSON object whose fields join the error body; anything else that is not
   *                null goes under "detail". */
  Error(int status, std::string message, nlohmann::json extra = nullptr)
      : std::runtime_error(message),
        status_(status),
        message_(std::move(message)),
        extra_(normaliseExtra(std::move(extra))) {}

  int status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }
  /** A JSON object, or null when there are no extra fields. */
  const nlohmann::json& extra() const noexcept { return extra_; }
  const Headers& headers() const noexcept { return headers_; }

  /** Adds a response header: throw Error::tooManyRequests("...").withHeader("Retry-After", "5"); */
  Error& withHeader(std::string name, std::string value) & {
    headers_.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  Error&& withHeader(std::string name, std::string value) && {
    headers_.emplace_back(std::move(name), std::move(value));
    return std::move(*this);
  }

  static Error badRequest(std::string message, nlohmann::json extra = nullptr) {
    return Error(400, std::move(message), std::move(extra));
  }
  static Error unauthorized(std::string message, nlohmann::json extra = nullptr) {
    return Error(401, std::move(message), std::move(extra));
  }
  static Error forbidden(std::string message, nlohmann::json extra = nullptr) {
    return Error(403, std::move(message), std::move(extra));
  }
  static Error notFound(std::string message, nlohmann::json extra = nullptr) {
    return Error(404, std::move(message), std::move(extra));
  }
  static Error conflict(std::string message, nlohmann::json extra = nullptr) {
    return Error(409, std::move(message), std::move(extra));
  }
  static Error gone(std::string message, nlohmann::json extra = nullptr) {
    return Error(410, std::move(message), std::move(extra));
  }
  static Error payloadTooLarge(std::string message, nlohmann::json extra = nullptr) {
    return Error(413, std::move(message), std::move(extra));
  }
  static Error unprocessable(std::string message, nlohmann::json extra = nullptr) {
    return Error(422, std::move(message), std::move(extra));
  }
  static Error tooManyRequests(std::string message, nlohmann::json extra = nullptr) {
    return Error(429, std::move(message), std::move(extra));
  }
  static Error internal(std::string message, nlohmann::json extra = nullptr) {
    return Error(500, std::move(message), std::move(extra));
  }
  static Error notImplemented(std::string message, nlohmann::json extra = nullptr) {
    return Error(501, std::move(message), std::move(extra));
  }
  static Error badGateway(std::string message, nlohmann::json extra = nullptr) {
    return Error(502, std::move(message), std::move(extra));
  }
  static Error unavailable(std::string message, nlohmann::json extra = nullptr) {
    return Error(503, std::move(message), std::move(extra));
  }

 private:
  static nlohmann::json normaliseExtra(nlohmann::json extra) {
    if (extra.is_null() || extra.is_object()) return extra;
    return nlohmann::json{{"detail", std::move(extra)}};
  }

  int status_;
  std::string message_;
  nlohmann::json extra_;
  Headers headers_;
};

namespace detail {

/** The JSON text dumped for the core: invalid UTF-8 is replaced rather than thrown about, so
 *  a stray byte in a message cannot turn an answer into a crash. */
inline std::string dumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/** How hooks, services and installers report a refusal across the ABI:
 *  {"status": N, "error": "...", ...extra}. */
inline std::string errorAnswer(int status, std::string_view message,
                               const nlohmann::json& extra = nullptr) {
  nlohmann::json answer = extra.is_object() ? extra : nlohmann::json::object();
  answer["status"] = status;
  answer["error"] = std::string(message);
  return dumpJson(answer);
}

/** The inverse of errorAnswer; a malformed answer becomes a 500 carrying `fallback`. */
inline Error errorFromAnswer(std::string_view answer, std::string fallback) {
  nlohmann::json parsed = nlohmann::json::parse(answer, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("error") || !parsed["error"].is_string())
    return Error(500, std::move(fallback));
  int status = 500;
  if (parsed.contains("status") && parsed["status"].is_number_integer())
    status = parsed["status"].get<int>();
  if (status < 400 || status > 599) status = 500;
  std::string message = parsed["error"].get<std::string>();
  parsed.erase("status");
  parsed.erase("error");
  return Error(status, std::move(message), parsed.empty() ? nlohmann::json() : parsed);
}

}  // namespace detail
}  // namespace berth

#endif  // BERTH_ERROR_HPP
