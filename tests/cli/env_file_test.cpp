// .env parsing for `berth secrets import`, and NAME=value words for `berth secrets set`.
#include <gtest/gtest.h>

#include "env_file.hpp"
#include "errors.hpp"

using berth::client::parseEnvFile;
using berth::client::splitAssignment;

TEST(CliEnvFile, PlainQuotedExportedAndCommented) {
  auto e = parseEnvFile(
      "# settings\n"
      "\n"
      "PLAIN=value\n"
      "export EXPORTED=yes\n"
      "SPACED = around \n"
      "COMMENTED=abc # a comment\n"
      "HASH=https://x.example/#frag\n"
      "SINGLE='a $b \\n c'\n"
      "DOUBLE=\"line1\\nline2 \\\"q\\\"\"\n"
      "EMPTY=\n"
      "WINDOWS=crlf\r\n");
  ASSERT_EQ(e.size(), 9u);
  EXPECT_EQ(e[0].name, "PLAIN");
  EXPECT_EQ(e[0].value, "value");
  EXPECT_EQ(e[0].line, 3);
  EXPECT_EQ(e[1].name, "EXPORTED");
  EXPECT_EQ(e[2].value, "around");
  EXPECT_EQ(e[3].value, "abc");
  EXPECT_EQ(e[4].value, "https://x.example/#frag");
  EXPECT_EQ(e[5].value, "a $b \\n c");
  EXPECT_EQ(e[6].value, "line1\nline2 \"q\"");
  EXPECT_EQ(e[7].value, "");
  EXPECT_EQ(e[8].value, "crlf");
}

TEST(CliEnvFile, MultiLineQuotesAndLaterLinesWin) {
  auto e = parseEnvFile("KEY=\"-----BEGIN\nabc\n-----END\"\nA=1\nA=2\n");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].value, "-----BEGIN\nabc\n-----END");
  EXPECT_EQ(e[1].name, "A");
  EXPECT_EQ(e[1].value, "2");
  EXPECT_EQ(e[1].line, 5);
}

TEST(CliEnvFile, RefusalsNameTheLine) {
  try {
    parseEnvFile("A=1\nnot an assignment\n");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "line 2: expected NAME=value");
  }
  try {
    parseEnvFile("A=1\nB=\"open\n");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "line 2: the value's \" is never closed");
  }
  EXPECT_THROW(parseEnvFile("A='x' trailing\n"), std::invalid_argument);
}

TEST(CliEnvFile, Assignments) {
  EXPECT_EQ(splitAssignment("A=b=c"), std::make_pair(std::string("A"), std::string("b=c")));
  EXPECT_EQ(splitAssignment("A="), std::make_pair(std::string("A"), std::string("")));
  try {
    splitAssignment("nothing");
    FAIL() << "no error";
  } catch (const berth::client::CliError& e) {
    EXPECT_EQ(e.code(), berth::client::kExitUsage);
  }
  EXPECT_THROW(splitAssignment("=value"), berth::client::CliError);
}
