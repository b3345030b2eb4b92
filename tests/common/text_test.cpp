// ctest-label: unit
// berth/common/text.hpp: trimming ASCII white space, as stored names, HTTP header values,
// command-line input and split SQL statements are trimmed.
#include <gtest/gtest.h>
#include <berth/common/text.hpp>

#include <string>

namespace berth::common {
namespace {

TEST(Text, TrimmedDropsAsciiWhiteSpaceAtBothEnds) {
  EXPECT_EQ(trimmed("  nightly backup \t"), "nightly backup");
  EXPECT_EQ(trimmed(" \t\n\v\f\rx\r\f\v\n\t "), "x");
  EXPECT_EQ(trimmed("a  b"), "a  b");  // inside is kept
  EXPECT_EQ(trimmed(""), "");
  EXPECT_EQ(trimmed(" \t\r\n"), "");
  EXPECT_EQ(trimmed("\xC2\xA0x"), "\xC2\xA0x");  // only ASCII: a no-break space stays
  EXPECT_EQ(trimmed("SELECT 1\n"), "SELECT 1");
  EXPECT_EQ(trimmed("  nightly \t"), "nightly");  // a schedule's name, as stored
}

TEST(Text, TrimmedViewLooksIntoTheSameText) {
  const std::string text = "  return=minimal ";
  const std::string_view view = trimmedView(text);
  EXPECT_EQ(view, "return=minimal");
  EXPECT_EQ(view.data(), text.data() + 2);
  EXPECT_TRUE(trimmedView("   ").empty());
}

}  // namespace
}  // namespace berth::common
