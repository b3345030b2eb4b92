// JSON values as the text PostgreSQL reads for a column's type. The value is always sent as a
// bound parameter; this only decides its text (PostgreSQL then parses it as the column's type
// and refuses it in its own words when it does not fit).
#include "rest_sql.hpp"

namespace berth::sqlconsole {
namespace {

bool isJsonType(std::string_view type) {
  return type == "json" || type == "jsonb";
}

bool isArrayType(std::string_view type) {
  return type.size() > 2 && type.substr(type.size() - 2) == "[]";
}

std::string scalarText(const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    // libpq sends parameters as C strings: a NUL would silently cut the value short.
    if (text.find('\0') != std::string::npos)
      throw RestRefusal("a value holds the character U+0000, which PostgreSQL text cannot store");
    return text;
  }
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();  // numbers; objects and arrays as JSON text
}

// An element of an array literal: double-quoted with \ and " escaped, so commas, braces and
// spaces inside it stay data.
std::string quotedElement(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string arrayLiteral(const nlohmann::json& array) {
  std::string out = "{";
  bool first = true;
  for (const auto& element : array) {
    if (!first) out.push_back(',');
    first = false;
    if (element.is_null())
      out += "NULL";
    else if (element.is_array())
      out += arrayLiteral(element);
    else
      out += quotedElement(scalarText(element));
  }
  out.push_back('}');
  return out;
}

}  // namespace

PgParam pgValueText(const nlohmann::json& value, std::string_view type) {
  if (value.is_null()) return std::nullopt;
  if (isJsonType(type)) return value.dump();
  if (value.is_array() && isArrayType(type)) return arrayLiteral(value);
  return scalarText(value);
}

}  // namespace berth::sqlconsole
