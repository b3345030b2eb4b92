#include "rest_text.hpp"

#include <berth/common/utf8.hpp>

namespace berth::sqlconsole::rest_text {
namespace {

void appendHexEscape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += "\\x";
  out.push_back(kHex[c >> 4]);
  out.push_back(kHex[c & 0x0F]);
}

}  // namespace

std::size_t characterPosition(std::string_view text, std::size_t offset) {
  return common::utf8Characters(text.substr(0, offset)) + 1;
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
    const std::size_t length = common::utf8SequenceLength(text, i);
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
  const std::size_t length = common::utf8SequenceLength(text, offset);
  return text.substr(offset, length == 0 ? 1 : length);
}

}  // namespace berth::sqlconsole::rest_text
