// SPDX-License-Identifier: MIT
/** @file
 *  The check of a JSON body's declared fields (a route's, an installer's), written once: the
 *  core answers its 422 with these words, and berth::testing::FakeHost with the same.
 *
 *  Implementation detail of the SDK and the core; plugin code declares berth::Field.
 */
#ifndef BERTH_BODY_FIELDS_HPP
#define BERTH_BODY_FIELDS_HPP

#include <berth/abi.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth::detail {

struct FieldView {
  std::string_view name;
  uint32_t type;  // berth_field_type
  bool required;
};

inline const char* fieldTypeDescription(uint32_t type) noexcept {
  switch (type) {
    case BERTH_FIELD_STRING:
      return "a string";
    case BERTH_FIELD_BOOL:
      return "a boolean";
    case BERTH_FIELD_INT:
      return "an integer";
    case BERTH_FIELD_ARRAY:
      return "an array";
    case BERTH_FIELD_OBJECT:
      return "an object";
    case BERTH_FIELD_NUMBER:
      return "a number";
  }
  return "a value";
}

inline bool fieldHasType(const nlohmann::json& value, uint32_t type) noexcept {
  switch (type) {
    case BERTH_FIELD_STRING:
      return value.is_string();
    case BERTH_FIELD_BOOL:
      return value.is_boolean();
    case BERTH_FIELD_INT:
      return value.is_number_integer();
    case BERTH_FIELD_ARRAY:
      return value.is_array();
    case BERTH_FIELD_OBJECT:
      return value.is_object();
    case BERTH_FIELD_NUMBER:
      return value.is_number();
  }
  return true;
}

/** The 422 text (plain text, as the HTTP layer answers it) for a parsed body that is not an
 *  object, lacks a required field (null counts as missing) or has a field of the wrong type;
 *  std::nullopt when the body has what the fields ask. No fields: any JSON passes. */
inline std::optional<std::string> bodyFieldProblem(const nlohmann::json& body,
                                                   const std::vector<FieldView>& fields) {
  if (fields.empty()) return std::nullopt;
  if (!body.is_object()) return std::string("the body must be a JSON object");
  for (const FieldView& field : fields) {
    auto it = body.find(std::string(field.name));
    if (it == body.end() || it->is_null()) {
      if (field.required) return "missing field: " + std::string(field.name);
      continue;
    }
    if (!fieldHasType(*it, field.type))
      return "field " + std::string(field.name) + " must be " + fieldTypeDescription(field.type);
  }
  return std::nullopt;
}

}  // namespace berth::detail

#endif  // BERTH_BODY_FIELDS_HPP
