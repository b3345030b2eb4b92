// ctest-label: unit
// berth/common/sql_text.hpp: identifiers quoted for SQL, and libpq's messages made fit to show.
#include <gtest/gtest.h>
#include <berth/common/sql_text.hpp>

#include <string>

namespace berth::common {
namespace {

TEST(SqlText, QuotedIdentifierDoublesQuotes) {
  EXPECT_EQ(quotedIdentifier("p_abc123"), "\"p_abc123\"");
  EXPECT_EQ(quotedIdentifier("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(quotedIdentifier("\""), "\"\"\"\"");
  EXPECT_EQ(quotedIdentifier(""), "\"\"");
  EXPECT_EQ(quotedIdentifier("Mixed Case; DROP"), "\"Mixed Case; DROP\"");
  EXPECT_EQ(quotedIdentifier("漢字"), "\"漢字\"");
}

TEST(SqlText, PqMessageDropsTheEndingNewline) {
  EXPECT_EQ(pqMessage("connection to server failed: refused\n"),
            "connection to server failed: refused");
  EXPECT_EQ(pqMessage("ERROR:  role \"x\" already exists\n"), "ERROR:  role \"x\" already exists");
  EXPECT_EQ(pqMessage("two\nlines \n\n"), "two\nlines");
  EXPECT_EQ(pqMessage("  leading kept"), "  leading kept");
  EXPECT_EQ(pqMessage(nullptr), "");
  EXPECT_EQ(pqMessage(""), "");
}

TEST(SqlText, PqMessageWithoutSeverityDropsTheErrorPrefix) {
  EXPECT_EQ(pqMessageWithoutSeverity("ERROR:  division by zero\n"), "division by zero");
  EXPECT_EQ(pqMessageWithoutSeverity("FATAL:  too many connections\n"),
            "FATAL:  too many connections");
  EXPECT_EQ(pqMessageWithoutSeverity("no prefix\n"), "no prefix");
  EXPECT_EQ(pqMessageWithoutSeverity("ERROR: one space\n"), "ERROR: one space");
  EXPECT_EQ(pqMessageWithoutSeverity(nullptr), "");
}

}  // namespace
}  // namespace berth::common
