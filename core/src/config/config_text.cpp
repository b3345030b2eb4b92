#include "config/config_text.hpp"

#include <charconv>

namespace berth::core {
namespace {

bool isLowerAlpha(char c) {
  return c >= 'a' && c <= 'z';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

bool isDnsLabel(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
    return false;
  }
  for (char c : label) {
    if (!isLowerAlpha(c) && !isDigit(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

bool isPluginId(std::string_view text) {
  if (text.empty() || !isLowerAlpha(text.front())) return false;
  for (char c : text) {
    if (!isLowerAlpha(c) && !isDigit(c) && c != '_') return false;
  }
  return true;
}

bool isPlanName(std::string_view text) {
  if (text.empty() || !isLowerAlpha(text.front())) return false;
  for (char c : text) {
    if (!isLowerAlpha(c) && !isDigit(c) && c != '_' && c != '-') return false;
  }
  return true;
}

bool isLowerCaseDnsName(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    if (!isDnsLabel(text.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool isNginxSize(std::string_view text) {
  if (!text.empty() && std::string_view("kKmMgG").find(text.back()) != std::string_view::npos) {
    text.remove_suffix(1);
  }
  if (text.empty()) return false;
  bool nonzero = false;
  for (char c : text) {
    if (!isDigit(c)) return false;
    nonzero = nonzero || c != '0';
  }
  // nginx reads 0 as "no limit", which is never what a body limit should say.
  return nonzero;
}

std::optional<int64_t> parseInteger(std::string_view text) {
  const bool has_sign = !text.empty() && (text.front() == '+' || text.front() == '-');
  const std::string_view digits = text.substr(has_sign ? 1 : 0);
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (!isDigit(c)) return std::nullopt;
  }
  // from_chars reads a '-' but not a '+'.
  const std::string_view number = text.front() == '+' ? digits : text;
  int64_t value = 0;
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc() || end != number.data() + number.size()) return std::nullopt;
  return value;
}

}  // namespace berth::core
