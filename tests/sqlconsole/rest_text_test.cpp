// The text helpers behind the rows grammar's messages: character positions and printable
// snippets (the UTF-8 check itself is tested in tests/common/utf8_test.cpp).
#include "rest_text.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace berth::sqlconsole::rest_text;

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
