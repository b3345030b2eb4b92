// The text helpers behind the rows grammar's messages: UTF-8 checks, character positions and
// printable snippets.
#include "rest_text.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace berth::sqlconsole::rest_text;

TEST(RestText, WellFormedUtf8IsAccepted) {
  EXPECT_EQ(firstInvalidUtf8(""), std::string_view::npos);
  EXPECT_EQ(firstInvalidUtf8("plain ascii"), std::string_view::npos);
  EXPECT_EQ(firstInvalidUtf8("é ü € 𝄞 موارد"), std::string_view::npos);
  EXPECT_EQ(firstInvalidUtf8("\xF4\x8F\xBF\xBF"), std::string_view::npos);  // U+10FFFF
}

TEST(RestText, MalformedUtf8IsFoundWhereItStarts) {
  EXPECT_EQ(firstInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(firstInvalidUtf8("\xc0\xaf"), 0u);          // overlong "/"
  EXPECT_EQ(firstInvalidUtf8("x\xe0\x80\xaf"), 1u);     // overlong, three bytes
  EXPECT_EQ(firstInvalidUtf8("\xed\xa0\x80"), 0u);      // a UTF-16 surrogate
  EXPECT_EQ(firstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(firstInvalidUtf8("ok\xc3"), 2u);            // cut short at the end
  EXPECT_EQ(firstInvalidUtf8("\x80"), 0u);              // a lone continuation byte
}

TEST(RestText, PositionsCountCharactersFromOne) {
  EXPECT_EQ(characterPosition("abc", 0), 1u);
  EXPECT_EQ(characterPosition("abc", 2), 3u);
  EXPECT_EQ(characterPosition("éa", 2), 2u);  // é is two bytes
  EXPECT_EQ(characterPosition("𝄞x", 4), 2u);
  EXPECT_EQ(characterPosition("ab", 10), 3u);  // past the end counts what there is
}

TEST(RestText, SnippetsArePrintableAndShort) {
  EXPECT_EQ(printableSnippet("a\nb\x7f", 10), "a\\x0Ab\\x7F");
  EXPECT_EQ(printableSnippet("ab\xff", 10), "ab\\xFF");
  EXPECT_EQ(printableSnippet("abcdef", 3), "abc...");
  EXPECT_EQ(printableSnippet("ééé", 2), "éé...");  // cut between characters, never inside one
  EXPECT_EQ(printableSnippet("abc", 3), "abc");
  EXPECT_EQ(quotedSnippet("equals"), "\"equals\"");
  EXPECT_EQ(quotedSnippet(std::string(50, 'x')), "\"" + std::string(40, 'x') + "...\"");
}

TEST(RestText, CharacterAtTakesTheWholeSequence) {
  EXPECT_EQ(characterAt("aé", 1), "é");
  EXPECT_EQ(characterAt("a", 1), "");
  EXPECT_EQ(characterAt("a\xff", 1), "\xff");
}
