// ctest-label: unit
// berth/common/utf8.hpp: the validator (also fed in pieces, as sqlconsole's import file check
// does), the well-formed sequence at an offset (which must agree with the validator), and the
// conversions between characters and byte offsets (PostgreSQL's error positions, cuts).
#include <gtest/gtest.h>
#include <berth/common/utf8.hpp>

#include <optional>
#include <string>

namespace berth::common {
namespace {

std::optional<uint64_t> fedInPieces(const std::string& bytes, size_t piece) {
  Utf8Validator validator;
  for (size_t i = 0; i < bytes.size(); i += piece)
    validator.feed(std::string_view(bytes).substr(i, piece));
  validator.finish();
  return validator.firstInvalid();
}

// The first offset where utf8SequenceLength finds no well-formed sequence, walking from the
// start: what firstInvalidUtf8 must say too.
std::optional<size_t> firstInvalidBySequences(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8SequenceLength(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::nullopt;
}

TEST(Utf8, ValidTextPasses) {
  const std::string text = "plain ASCII, é, ü, 漢字, emoji 😀, U+10FFFF \xF4\x8F\xBF\xBF, end";
  EXPECT_EQ(firstInvalidUtf8(text), std::nullopt);
  for (size_t piece = 1; piece <= 9; ++piece)
    EXPECT_EQ(fedInPieces(text, piece), std::nullopt) << piece;
  EXPECT_EQ(firstInvalidUtf8(""), std::nullopt);
  EXPECT_EQ(firstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(firstInvalidUtf8("é ü € 𝄞 موارد"), std::nullopt);
  EXPECT_EQ(firstInvalidUtf8("\xF4\x8F\xBF\xBF"), std::nullopt);  // U+10FFFF
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
      {"ab\xff", 2},
      {"x\xe0\x80\xaf", 1},  // overlong, three bytes
      {"\xed\xa0\x80", 0},   // a UTF-16 surrogate
      {"ok\xc3", 2},         // cut short at the end
      {"\x80", 0},           // a lone continuation byte
  };
  for (const Case& c : cases) {
    EXPECT_EQ(firstInvalidUtf8(c.bytes), c.offset) << c.bytes;
    EXPECT_EQ(firstInvalidBySequences(c.bytes), c.offset) << c.bytes;
    for (size_t piece = 1; piece <= 5; ++piece)
      EXPECT_EQ(fedInPieces(c.bytes, piece), c.offset) << c.bytes << " by " << piece;
  }
}

// Every lead byte with every second byte (and valid or invalid later bytes): the two checks
// follow the same table, written twice (a stream and a random-access form), so they must agree.
TEST(Utf8, SequenceLengthAgreesWithTheValidator) {
  for (int b0 = 0; b0 < 256; ++b0) {
    for (int b1 = 0; b1 < 256; ++b1) {
      for (const char* tail : {"\x80\x80", "\xBF\xBF", "\x80", "x", ""}) {
        std::string bytes{static_cast<char>(b0), static_cast<char>(b1)};
        bytes += tail;
        EXPECT_EQ(firstInvalidBySequences(bytes), firstInvalidUtf8(bytes))
            << std::hex << b0 << " " << b1 << " +" << std::string(tail).size();
      }
    }
  }
}

TEST(Utf8, SequenceLengthIsTheWholeCharacter) {
  EXPECT_EQ(utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(utf8SequenceLength("aé", 1), 2u);
  EXPECT_EQ(utf8SequenceLength("漢", 0), 3u);
  EXPECT_EQ(utf8SequenceLength("😀", 0), 4u);
  EXPECT_EQ(utf8SequenceLength("\xC3", 0), 0u);  // cut short
  EXPECT_EQ(utf8SequenceLength("é", 1), 0u);     // inside a character
}

TEST(Utf8, CharactersAreCountedByTheirFirstBytes) {
  EXPECT_EQ(utf8Characters(""), 0u);
  EXPECT_EQ(utf8Characters("abc"), 3u);
  EXPECT_EQ(utf8Characters("é漢x😀y"), 5u);
  EXPECT_EQ(utf8Characters(std::string(200, 'x') + "é"), 201u);
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

TEST(Utf8, ACutNeverSplitsACharacter) {
  const std::string text = "é漢x😀y";  // characters start at 0, 2, 5, 6, 10
  EXPECT_EQ(utf8CutPoint(text, 99), text.size());
  EXPECT_EQ(utf8CutPoint(text, text.size()), text.size());
  EXPECT_EQ(utf8CutPoint(text, 0), 0u);
  EXPECT_EQ(utf8CutPoint(text, 1), 0u);
  EXPECT_EQ(utf8CutPoint(text, 2), 2u);
  EXPECT_EQ(utf8CutPoint(text, 4), 2u);
  EXPECT_EQ(utf8CutPoint(text, 6), 6u);
  EXPECT_EQ(utf8CutPoint(text, 9), 6u);
  EXPECT_EQ(utf8CutPoint(text, 10), 10u);
  EXPECT_EQ(utf8CutPoint("abc", 2), 2u);
}

}  // namespace
}  // namespace berth::common
