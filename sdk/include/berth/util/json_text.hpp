/** JSON written straight into a string, for answers whose size or rate makes a DOM wasteful
 *  (a /query answer of 500 rows, a database exported as JSON, GET /projects). Header-only. */
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace berth {

namespace detail {

// Length of the valid UTF-8 sequence of 2 to 4 bytes at p (n bytes available), 0 if invalid.
// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
inline size_t utf8SequenceLength(const unsigned char* p, size_t n) {
  const unsigned char c = p[0];
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (n < length) return 0;
  if (p[1] < low || p[1] > high) return 0;
  for (size_t i = 2; i < length; ++i)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return length;
}

}  // namespace detail

/** Appends text as a JSON string literal, quotes included. Control characters are escaped;
 *  bytes that are not valid UTF-8 (a SQL_ASCII database can hold any) become U+FFFD, so the
 *  result is valid JSON and valid UTF-8 whatever bytes come in. */
inline void appendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  out.reserve(out.size() + n + 2);
  out.push_back('"');
  size_t run = 0;  // start of the bytes copied as they are
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t length = detail::utf8SequenceLength(p + i, n - i);
      if (length != 0) {
        i += length;
        continue;
      }
    }
    out.append(text.data() + run, i - run);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
        }
    }
    ++i;
    run = i;
  }
  out.append(text.data() + run, n - run);
  out.push_back('"');
}

}  // namespace berth
