// SPDX-License-Identifier: MIT
/** @file
 *  What the service contracts (berth/services/<service>.hpp) share: reading the fields of a
 *  request or of an answer, refusing a missing field or one of the wrong type with a clear
 *  berth::Error. Header-only, no ABI.
 *
 *  Who is at fault decides the status:
 *  - a request the offering plugin cannot read is the caller's mistake: 400, the message names
 *    the field ("key is required and must be a string");
 *  - an answer a consumer cannot read means the offering plugin broke its contract: 500, the
 *    message names the service, the method and the field
 *    ("service runtime.status.v1 (projects) answered without \"p1.state\" (a string)").
 */
#ifndef BERTH_SERVICES_SERVICE_JSON_HPP
#define BERTH_SERVICES_SERVICE_JSON_HPP

#include <berth/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::service_json {

/** The fields of one answer (or one object inside it), read or refused with Error 500. The
 *  answer must outlive the reader. */
class Answer {
 public:
  /** @param path where this object sits in the answer ("" for the answer itself, "p1" for the
   *  member p1 of a map by project id); it prefixes the field names in messages.
   *  @throw Error 500 when `value` is not a JSON object. */
  Answer(const nlohmann::json& value, std::string_view service, std::string_view method,
         std::string path = {})
      : value_(value), service_(service), method_(method), path_(std::move(path)) {
    if (!value_.is_object()) {
      if (path_.empty())
        throw Error(500, "service " + service_ + " (" + method_ +
                             ") answered something that is not a JSON object");
      throw Error(500, "service " + service_ + " (" + method_ + ") answered without \"" + path_ +
                           "\" (an object)");
    }
  }

  const nlohmann::json& json() const noexcept { return value_; }

  std::string text(std::string_view field) const {
    return required(field, "a string", &nlohmann::json::is_string).get<std::string>();
  }
  /** A string, or std::nullopt for null. */
  std::optional<std::string> textOrNull(std::string_view field) const {
    const nlohmann::json& v = present(field, "a string or null");
    if (v.is_null()) return std::nullopt;
    if (!v.is_string()) throw refusal(field, "a string or null");
    return v.get<std::string>();
  }
  bool flag(std::string_view field) const {
    return required(field, "true or false", &nlohmann::json::is_boolean).get<bool>();
  }
  int64_t integer(std::string_view field) const {
    return required(field, "an integer", &nlohmann::json::is_number_integer).get<int64_t>();
  }
  /** An integer of 0 or more. */
  uint64_t count(std::string_view field) const {
    const nlohmann::json& v = present(field, "an integer of 0 or more");
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
      throw refusal(field, "an integer of 0 or more");
    return static_cast<uint64_t>(v.get<int64_t>());
  }
  const nlohmann::json& array(std::string_view field) const {
    return required(field, "an array", &nlohmann::json::is_array);
  }
  /** Every item of an array of strings. */
  std::vector<std::string> texts(std::string_view field) const {
    std::vector<std::string> out;
    for (const auto& item : array(field)) {
      if (!item.is_string()) throw refusal(field, "an array of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  /** An object inside this one. */
  Answer object(std::string_view field) const {
    return Answer(required(field, "an object", &nlohmann::json::is_object), service_, method_,
                  name(field));
  }
  /** An object inside this one, or std::nullopt for null. */
  std::optional<Answer> objectOrNull(std::string_view field) const {
    const nlohmann::json& v = present(field, "an object or null");
    if (v.is_null()) return std::nullopt;
    if (!v.is_object()) throw refusal(field, "an object or null");
    return Answer(v, service_, method_, name(field));
  }

  /** The Error a field of the wrong kind (or a missing one) is refused with. */
  Error refusal(std::string_view field, std::string_view kind) const {
    return Error(500, "service " + service_ + " (" + method_ + ") answered without \"" +
                          name(field) + "\" (" + std::string(kind) + ")");
  }

 private:
  std::string name(std::string_view field) const {
    return path_.empty() ? std::string(field) : path_ + "." + std::string(field);
  }
  const nlohmann::json& present(std::string_view field, std::string_view kind) const {
    auto it = value_.find(std::string(field));
    if (it == value_.end()) throw refusal(field, kind);
    return *it;
  }
  const nlohmann::json& required(std::string_view field, std::string_view kind,
                                 bool (nlohmann::json::*is_kind)() const noexcept) const {
    const nlohmann::json& v = present(field, kind);
    if (!(v.*is_kind)()) throw refusal(field, kind);
    return v;
  }

  const nlohmann::json& value_;
  std::string service_;
  std::string method_;
  std::string path_;
};

/** A field of a request, or nullptr when it is absent or null (a request that is not an
 *  object has no fields). */
inline const nlohmann::json* requestField(const nlohmann::json& request, std::string_view name) {
  if (!request.is_object()) return nullptr;
  auto it = request.find(std::string(name));
  return it == request.end() || it->is_null() ? nullptr : &*it;
}

/** A string the request must have. @throw Error 400 "<name> is required and must be a string". */
inline std::string requiredText(const nlohmann::json& request, std::string_view name) {
  const nlohmann::json* v = requestField(request, name);
  if (v == nullptr || !v->is_string())
    throw Error::badRequest(std::string(name) + " is required and must be a string");
  return v->get<std::string>();
}

/** A string the request may leave out (or null). @throw Error 400 "<name> must be a string". */
inline std::optional<std::string> optionalText(const nlohmann::json& request,
                                               std::string_view name) {
  const nlohmann::json* v = requestField(request, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) throw Error::badRequest(std::string(name) + " must be a string");
  return v->get<std::string>();
}

/** A count the request may leave out (or null).
 *  @throw Error 400 "<name> must be a non-negative integer". */
inline std::optional<int64_t> optionalCount(const nlohmann::json& request, std::string_view name) {
  const nlohmann::json* v = requestField(request, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer() || v->get<int64_t>() < 0)
    throw Error::badRequest(std::string(name) + " must be a non-negative integer");
  return v->get<int64_t>();
}

/** true or false, which the request may leave out (or null).
 *  @throw Error 400 "<name> must be a boolean". */
inline std::optional<bool> optionalFlag(const nlohmann::json& request, std::string_view name) {
  const nlohmann::json* v = requestField(request, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) throw Error::badRequest(std::string(name) + " must be a boolean");
  return v->get<bool>();
}

/** An array of strings the request must have. @throw Error 400 `refusal` otherwise. */
inline std::vector<std::string> requiredTexts(const nlohmann::json& request, std::string_view name,
                                              const std::string& refusal) {
  const nlohmann::json* v = requestField(request, name);
  if (v == nullptr || !v->is_array()) throw Error::badRequest(refusal);
  std::vector<std::string> out;
  out.reserve(v->size());
  for (const auto& item : *v) {
    if (!item.is_string()) throw Error::badRequest(refusal);
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace berth::service_json

#endif  // BERTH_SERVICES_SERVICE_JSON_HPP
