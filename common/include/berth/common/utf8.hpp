// UTF-8 checks and measures: a validator that can be fed a stream chunk by chunk (an upload is
// never held whole in memory for it), the well-formed sequence at an offset, and conversions
// between characters (code points) and byte offsets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace berth::common {

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF. A sequence
// may be split across feed() calls.
class Utf8Validator {
 public:
  // Checks the next bytes of the stream. Stops looking once an invalid sequence was seen.
  void feed(std::string_view bytes);
  // Call at the end of the stream: a sequence cut off by the end is invalid too.
  void finish();
  // Offset (from the first byte ever fed) of the first byte of the first invalid sequence.
  std::optional<uint64_t> firstInvalid() const { return invalid_; }

 private:
  uint64_t offset_ = 0;         // bytes fed so far
  uint64_t sequenceStart_ = 0;  // where the sequence being completed began
  int pending_ = 0;             // continuation bytes still expected
  unsigned char low_ = 0x80;    // allowed range of the next continuation byte (only the
  unsigned char high_ = 0xBF;   // second byte of a sequence is narrower than 80..BF)
  std::optional<uint64_t> invalid_;
};

// Byte offset of the first invalid sequence in text, or nullopt when it is all valid UTF-8.
std::optional<size_t> firstInvalidUtf8(std::string_view text);

// Length (1 to 4) of the well-formed UTF-8 sequence starting at text[offset], or 0 when the
// bytes there are not one (a sequence cut short by the end of text is not). offset must be
// below text.size().
size_t utf8SequenceLength(std::string_view text, size_t offset);

// How many characters text holds: the bytes that are not continuation bytes (10xxxxxx).
size_t utf8Characters(std::string_view text);

// Byte offset of character number `characters` (0-based) in valid UTF-8 text; past the end it
// gives text.size().
size_t utf8ByteOffset(std::string_view text, size_t characters);

// Where to cut text to keep at most max_bytes of it without splitting a character: max_bytes,
// or less when a character starts before it and ends after; text.size() when it all fits.
size_t utf8CutPoint(std::string_view text, size_t max_bytes);

}  // namespace berth::common
