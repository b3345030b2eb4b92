// The UTF-8 validator (also fed in pieces, as the import file check does) and the conversion of
// PostgreSQL's character positions to byte offsets.
#include "sql_utf8.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace berth::sqlconsole {
namespace {

std::optional<uint64_t> fedInPieces(const std::string& bytes, size_t piece) {
  Utf8Validator validator;
  for (size_t i = 0; i < bytes.size(); i += piece)
    validator.feed(std::string_view(bytes).substr(i, piece));
  validator.finish();
  return validator.firstInvalid();
}

TEST(Utf8, ValidTextPasses) {
  const std::string text = "plain ASCII, é, ü, 漢字, emoji 😀, U+10FFFF \xF4\x8F\xBF\xBF, end";
  EXPECT_EQ(firstInvalidUtf8(text), std::nullopt);
  for (size_t piece = 1; piece <= 9; ++piece)
    EXPECT_EQ(fedInPieces(text, piece), std::nullopt) << piece;
  EXPECT_EQ(firstInvalidUtf8(""), std::nullopt);
}

TEST(Utf8, ReportsTheFirstByteOfTheFirstBadSequence) {
  struct Case {
    std::string bytes;
    size_t offset;
  };
  const Case cases[] = {
      {"abc\x80xyz", 3},         // stray continuation byte
      {"ab\xC3(", 2},            // lead byte followed by ASCII
      {"\xC0\xAF", 0},           // overlong '/'
      {"xx\xE0\x80\xAF", 2},     // overlong three-byte form
      {"x\xED\xA0\x80", 1},      // surrogate U+D800
      {"\xF4\x90\x80\x80", 0},   // above U+10FFFF
      {"\xF5\x80\x80\x80", 0},   // never a lead byte
      {"ok \xE2\x82", 3},        // cut off by the end
      {"123456789\xFF", 9},      // after the eight-byte fast path
      {"é ok \xE9 latin-1", 6},  // Latin-1 é after a real é (two bytes)
  };
  for (const Case& c : cases) {
    EXPECT_EQ(firstInvalidUtf8(c.bytes), c.offset) << c.bytes;
    for (size_t piece = 1; piece <= 5; ++piece)
      EXPECT_EQ(fedInPieces(c.bytes, piece), c.offset) << c.bytes << " by " << piece;
  }
}

TEST(Utf8, CharacterPositionsBecomeByteOffsets) {
  const std::string text = "é漢x😀y";  // 2 + 3 + 1 + 4 + 1 bytes
  EXPECT_EQ(utf8ByteOffset(text, 0), 0u);
  EXPECT_EQ(utf8ByteOffset(text, 1), 2u);
  EXPECT_EQ(utf8ByteOffset(text, 2), 5u);
  EXPECT_EQ(utf8ByteOffset(text, 3), 6u);
  EXPECT_EQ(utf8ByteOffset(text, 4), 10u);
  EXPECT_EQ(utf8ByteOffset(text, 5), text.size());
  EXPECT_EQ(utf8ByteOffset(text, 99), text.size());
}

}  // namespace
}  // namespace berth::sqlconsole
