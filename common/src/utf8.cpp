#include <berth/common/utf8.hpp>

#include <cstring>

namespace berth::common {
namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

bool isContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

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

// Follows the table of well-formed byte sequences in the Unicode standard (section 3.9), as
// the validator does, for a caller that looks at one place rather than a stream.
size_t utf8SequenceLength(std::string_view text, size_t offset) {
  const auto byte = [&](size_t k) -> uint8_t {
    return offset + k < text.size() ? static_cast<uint8_t>(text[offset + k]) : 0;
  };
  const auto between = [](uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; };
  const uint8_t b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (between(b0, 0xC2, 0xDF)) return between(byte(1), 0x80, 0xBF) ? 2 : 0;
  if (between(b0, 0xE0, 0xEF)) {
    const uint8_t lo = b0 == 0xE0 ? 0xA0 : 0x80;  // E0 below A0 would be overlong
    const uint8_t hi = b0 == 0xED ? 0x9F : 0xBF;  // ED above 9F would be a surrogate
    return between(byte(1), lo, hi) && between(byte(2), 0x80, 0xBF) ? 3 : 0;
  }
  if (between(b0, 0xF0, 0xF4)) {
    const uint8_t lo = b0 == 0xF0 ? 0x90 : 0x80;  // F0 below 90 would be overlong
    const uint8_t hi = b0 == 0xF4 ? 0x8F : 0xBF;  // F4 above 8F is past U+10FFFF
    return between(byte(1), lo, hi) && between(byte(2), 0x80, 0xBF) && between(byte(3), 0x80, 0xBF)
               ? 4
               : 0;
  }
  return 0;
}

size_t utf8Characters(std::string_view text) {
  size_t characters = 0;
  for (char c : text) characters += isContinuation(c) ? 0 : 1;
  return characters;
}

size_t utf8ByteOffset(std::string_view text, size_t characters) {
  for (size_t i = 0; i < text.size(); ++i) {
    // Every byte that is not a continuation byte starts a character.
    if (!isContinuation(text[i])) {
      if (characters == 0) return i;
      --characters;
    }
  }
  return text.size();
}

size_t utf8CutPoint(std::string_view text, size_t max_bytes) {
  if (max_bytes >= text.size()) return text.size();
  size_t cut = max_bytes;
  while (cut > 0 && isContinuation(text[cut])) --cut;
  return cut;
}

}  // namespace berth::common
