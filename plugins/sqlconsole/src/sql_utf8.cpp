#include "sql_utf8.hpp"

#include <cstring>

namespace berth::sqlconsole {
namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

}  // namespace

void Utf8Validator::feed(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n && !invalid_) {
    if (pending_ == 0) {
      // Fast path: eight ASCII bytes at a time (SQL scripts are mostly ASCII).
      if (i + 8 <= n) {
        uint64_t word;
        std::memcpy(&word, p + i, sizeof word);
        if ((word & kHighBits) == 0) {
          i += 8;
          continue;
        }
      }
      const unsigned char c = p[i];
      if (c < 0x80) {
        ++i;
        continue;
      }
      sequenceStart_ = offset_ + i;
      low_ = 0x80;
      high_ = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        pending_ = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        pending_ = 2;
        if (c == 0xE0) low_ = 0xA0;   // shorter forms are overlong
        if (c == 0xED) high_ = 0x9F;  // D800..DFFF are surrogates
      } else if (c >= 0xF0 && c <= 0xF4) {
        pending_ = 3;
        if (c == 0xF0) low_ = 0x90;   // overlong
        if (c == 0xF4) high_ = 0x8F;  // above U+10FFFF
      } else {
        invalid_ = sequenceStart_;  // stray continuation byte, C0/C1 or F5..FF
      }
      ++i;
      continue;
    }
    const unsigned char c = p[i];
    if (c < low_ || c > high_) {
      invalid_ = sequenceStart_;
      break;
    }
    low_ = 0x80;
    high_ = 0xBF;
    --pending_;
    ++i;
  }
  offset_ += n;
}

void Utf8Validator::finish() {
  if (pending_ != 0 && !invalid_) invalid_ = sequenceStart_;
}

std::optional<size_t> firstInvalidUtf8(std::string_view text) {
  Utf8Validator validator;
  validator.feed(text);
  validator.finish();
  if (auto at = validator.firstInvalid()) return static_cast<size_t>(*at);
  return std::nullopt;
}

size_t utf8ByteOffset(std::string_view text, size_t characters) {
  size_t i = 0;
  for (; i < text.size(); ++i) {
    // Every byte that is not a continuation byte starts a character.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (characters == 0) return i;
      --characters;
    }
  }
  return text.size();
}

}  // namespace berth::sqlconsole
