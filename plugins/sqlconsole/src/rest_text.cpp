#include "rest_text.hpp"

#include "sql_utf8.hpp"

#include <cstdint>

namespace berth::sqlconsole::rest_text {
namespace {

// Length of the well-formed UTF-8 sequence at text[i], or 0 when it is not one. Follows the
// table of well-formed byte sequences in the Unicode standard (section 3.9), which rules out
// overlong encodings, UTF-16 surrogates and code points above U+10FFFF.
std::size_t sequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) -> std::uint8_t {
    return i + k < text.size() ? static_cast<std::uint8_t>(text[i + k]) : 0;
  };
  const auto between = [](std::uint8_t b, std::uint8_t lo, std::uint8_t hi) {
    return b >= lo && b <= hi;
  };
  const std::uint8_t b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (between(b0, 0xC2, 0xDF)) return between(byte(1), 0x80, 0xBF) ? 2 : 0;
  if (between(b0, 0xE0, 0xEF)) {
    const std::uint8_t lo = b0 == 0xE0 ? 0xA0 : 0x80;  // E0 below A0 would be overlong
    const std::uint8_t hi = b0 == 0xED ? 0x9F : 0xBF;  // ED above 9F would be a surrogate
    return between(byte(1), lo, hi) && between(byte(2), 0x80, 0xBF) ? 3 : 0;
  }
  if (between(b0, 0xF0, 0xF4)) {
    const std::uint8_t lo = b0 == 0xF0 ? 0x90 : 0x80;  // F0 below 90 would be overlong
    const std::uint8_t hi = b0 == 0xF4 ? 0x8F : 0xBF;  // F4 above 8F is past U+10FFFF
    return between(byte(1), lo, hi) && between(byte(2), 0x80, 0xBF) && between(byte(3), 0x80, 0xBF)
               ? 4
               : 0;
  }
  return 0;
}

void appendHexEscape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += "\\x";
  out.push_back(kHex[c >> 4]);
  out.push_back(kHex[c & 0x0F]);
}

}  // namespace

std::size_t firstInvalidUtf8(std::string_view text) {
  // One validator for the whole plugin: the SQL script checks use the same one.
  return sqlconsole::firstInvalidUtf8(text).value_or(std::string_view::npos);
}

std::size_t characterPosition(std::string_view text, std::size_t offset) {
  std::size_t characters = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    // Continuation bytes (10xxxxxx) carry on a character rather than start one.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++characters;
  }
  return characters;
}

std::string printableSnippet(std::string_view text, std::size_t max_characters) {
  std::string out;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (characters == max_characters) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = sequenceLength(text, i);
    if (length == 0 || c < 0x20 || c == 0x7F) {
      appendHexEscape(out, c);
      i += 1;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
    ++characters;
  }
  return out;
}

std::string quotedSnippet(std::string_view text) {
  return "\"" + printableSnippet(text, 40) + "\"";
}

std::string_view characterAt(std::string_view text, std::size_t offset) {
  if (offset >= text.size()) return {};
  const std::size_t length = sequenceLength(text, offset);
  return text.substr(offset, length == 0 ? 1 : length);
}

}  // namespace berth::sqlconsole::rest_text
