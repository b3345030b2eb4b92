/** Percent-decoding of URL parts, header-only (no ABI): the core decodes request paths and
 *  queries with it, and a plugin that reads a raw path decodes it the same way. */
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth {

namespace detail {
inline int hexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace detail

/** The decoded text; nothing for a malformed escape ("%4", "%zz"). With plus_is_space (a
 *  query), '+' is a space. */
inline std::optional<std::string> percentDecode(std::string_view in, bool plus_is_space = false) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      const int hi = detail::hexDigitValue(in[i + 1]), lo = detail::hexDigitValue(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace berth
