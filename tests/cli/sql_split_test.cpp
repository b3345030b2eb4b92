// Statements found in SQL text as the shell finds them: one goes to /query, several to /batch.
#include <gtest/gtest.h>

#include "sql_split.hpp"

using berth::client::endsStatement;
using berth::client::splitStatements;
using V = std::vector<std::string>;

TEST(CliSqlSplit, SemicolonsOutsideQuotesAndComments) {
  EXPECT_EQ(splitStatements("select 1"), V{"select 1"});
  EXPECT_EQ(splitStatements("select 1; select 2;"), (V{"select 1", "select 2"}));
  EXPECT_EQ(splitStatements("select ';'; select \"a;b\" from t"),
            (V{"select ';'", "select \"a;b\" from t"}));
  EXPECT_EQ(splitStatements("select 'it''s; fine'"), V{"select 'it''s; fine'"});
  EXPECT_EQ(splitStatements("select E'a\\';b'"), V{"select E'a\\';b'"});
  EXPECT_EQ(splitStatements("select 1 -- a; comment\n; select 2"),
            (V{"select 1 -- a; comment", "select 2"}));
  EXPECT_EQ(splitStatements("select /* a; /* nested; */ b; */ 1"),
            V{"select /* a; /* nested; */ b; */ 1"});
}

TEST(CliSqlSplit, DollarQuotesHoldSemicolons) {
  std::string fn =
      "create function f() returns int as $body$ begin return 1; end; $body$ language plpgsql";
  EXPECT_EQ(splitStatements(fn + "; select f()"), (V{fn, "select f()"}));
  EXPECT_EQ(splitStatements("select $$a;b$$"), V{"select $$a;b$$"});
  EXPECT_EQ(splitStatements("select $1; select 2"), (V{"select $1", "select 2"}));
}

TEST(CliSqlSplit, EmptyPiecesAreLeftOut) {
  EXPECT_TRUE(splitStatements("").empty());
  EXPECT_TRUE(splitStatements(" ; ;\n-- only a comment\n").empty());
  EXPECT_EQ(splitStatements(";;select 1;;"), V{"select 1"});
}

TEST(CliSqlSplit, WhenTheShellRuns) {
  EXPECT_TRUE(endsStatement("select 1;"));
  EXPECT_TRUE(endsStatement("select 1; -- done\n"));
  EXPECT_FALSE(endsStatement("select 1"));
  EXPECT_FALSE(endsStatement("select 'open;"));
  EXPECT_FALSE(endsStatement("select $$ a; "));
  EXPECT_FALSE(endsStatement("select 1 /* ; "));
}
