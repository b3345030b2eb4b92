// UTF-8 checks for SQL text: a validator that can be fed a file chunk by chunk (an import is
// never held whole in memory for it), and the conversion of the parser's character positions
// to byte offsets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace berth::sqlconsole {

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

// PostgreSQL reports error positions in characters (1-based cursorpos). This turns a 0-based
// character count into a byte offset in valid UTF-8 text; past the end it gives text.size().
size_t utf8ByteOffset(std::string_view text, size_t characters);

}  // namespace berth::sqlconsole
