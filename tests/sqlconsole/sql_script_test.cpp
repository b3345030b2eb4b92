// Splitting SQL held in memory (/sql, /query, /batch) with libpg_query: what must not fool it,
// positions and lines, and the syntax error a whole request is refused with.
#include "sql_script.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sql_trivia.hpp"

namespace berth::sqlconsole {
namespace {

std::vector<std::string> texts(const std::vector<Statement>& statements) {
  std::vector<std::string> out;
  for (const Statement& s : statements) out.push_back(s.text);
  return out;
}

TEST(SplitStatements, CommentsDoNotHideOrMakeStatements) {
  const std::string sql =
      "-- héllo wörld; a leading comment with UTF-8 and a ;\n"
      "SELECT 1; -- a comment; with semicolons\n"
      "/* block; /* nested; */ still comment; */ SELECT 2;\n"
      "SELECT 3 /* ; */ + 4 -- ;\n"
      ";\n";
  const auto statements = splitStatements(sql);
  EXPECT_EQ(texts(statements),
            (std::vector<std::string>{"SELECT 1", "SELECT 2", "SELECT 3 /* ; */ + 4 -- ;"}));
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0].line, 2u);
  EXPECT_EQ(statements[0].offset, sql.find("SELECT 1"));
  EXPECT_EQ(statements[1].line, 3u);
  EXPECT_EQ(statements[1].offset, sql.find("SELECT 2"));
  EXPECT_EQ(statements[2].line, 4u);
  for (const Statement& s : statements) {
    EXPECT_EQ(s.kind.node, "SelectStmt");
    EXPECT_EQ(sql.substr(s.offset, s.text.size()), s.text);
  }
}

TEST(SplitStatements, QuotesWithSemicolonsStayInOneStatement) {
  const std::string sql =
      "INSERT INTO t VALUES ('a;b', 'it''s; fine', \"odd;name\");"
      "INSERT INTO t VALUES (E'esc\\'aped; \\\\; quote', U&'d\\0061t;a');"
      "SELECT 'multi\nline; string'";
  const auto statements = splitStatements(sql);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0].text, "INSERT INTO t VALUES ('a;b', 'it''s; fine', \"odd;name\")");
  EXPECT_EQ(statements[1].text,
            "INSERT INTO t VALUES (E'esc\\'aped; \\\\; quote', U&'d\\0061t;a')");
  EXPECT_EQ(statements[2].text, "SELECT 'multi\nline; string'");
  EXPECT_EQ(statements[0].kind.node, "InsertStmt");
}

TEST(SplitStatements, DollarQuotedBodiesAreOneStatement) {
  const std::string plpgsql =
      "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $fn$\n"
      "DECLARE s text := 'a;b'; t text := $$nested; 'quote$$;\n"
      "BEGIN\n"
      "  -- comment; inside\n"
      "  RETURN x + 1;\n"
      "END;\n"
      "$fn$";
  const std::string sql = plpgsql + ";\nDO $$ BEGIN PERFORM 1; END $$;\nSELECT $q$it's; fine$q$;";
  const auto statements = splitStatements(sql);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0].text, plpgsql);
  EXPECT_EQ(statements[0].kind.node, "CreateFunctionStmt");
  EXPECT_EQ(statements[1].text, "DO $$ BEGIN PERFORM 1; END $$");
  EXPECT_EQ(statements[1].kind.node, "DoStmt");
  EXPECT_EQ(statements[1].line, 8u);
  EXPECT_EQ(statements[2].text, "SELECT $q$it's; fine$q$");
}

// Semicolons the scanner alone would split on: SQL-standard function bodies and rule actions.
TEST(SplitStatements, BeginAtomicBodiesAndRuleActions) {
  const std::string atomic =
      "CREATE FUNCTION g() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\n  SELECT 2;\nEND";
  const std::string rule =
      "CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES "
      "(2))";
  const auto statements = splitStatements(atomic + ";\n" + rule + ";\nSELECT 3");
  EXPECT_EQ(texts(statements), (std::vector<std::string>{atomic, rule, "SELECT 3"}));
}

TEST(SplitStatements, NothingToRun) {
  EXPECT_TRUE(splitStatements("").empty());
  EXPECT_TRUE(splitStatements("  \n\t").empty());
  EXPECT_TRUE(splitStatements("-- only a comment").empty());
  EXPECT_TRUE(splitStatements("/* only */ ; ;;").empty());
}

TEST(SplitStatements, SyntaxErrorGivesPostgresMessagePositionLineAndStatement) {
  const std::string sql = "SELECT 1;\n-- é\nSELECT ééé\n  FROM WHERE;\nSELECT 2;";
  try {
    splitStatements(sql);
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_STREQ(e.what(), "syntax error at or near \"WHERE\"");
    EXPECT_EQ(e.position(), sql.find("WHERE"));  // bytes, although é is two
    EXPECT_EQ(e.line(), 4u);
    EXPECT_EQ(e.statement(), 2u);
  }
}

TEST(SplitStatements, ErrorsAtTheEndAndInsideBodies) {
  try {
    splitStatements("SELECT 1; SELECT 'open");
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unterminated quoted string", 0), 0u) << e.what();
    EXPECT_EQ(e.position(), 17u);
    EXPECT_EQ(e.statement(), 2u);
  }
  try {
    splitStatements(
        "SELECT 1;\nCREATE FUNCTION g() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1;\n\n");
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_STREQ(e.what(), "syntax error at end of input");
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.statement(), 2u);
  }
}

// The ';' inside BEGIN ATOMIC and CREATE RULE bodies end no statement: an error after them is
// in the statement the parser counts (found by the sql_script fuzz target: every ; was counted).
TEST(SplitStatements, ErrorAfterBodiesCountsTheirStatementsOnce) {
  const std::string sql =
      "CREATE FUNCTION g() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\n  SELECT 2;\nEND;\n"
      "CREATE RULE r AS ON DELETE TO t DO ALSO (SELECT 1; SELECT 2);\n;;\n"
      "SELE 3;\nSELECT 4;";
  try {
    splitStatements(sql);
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_STREQ(e.what(), "syntax error at or near \"SELE\"");
    EXPECT_EQ(e.line(), 8u);
    EXPECT_EQ(e.statement(), 3u);
  }
  try {
    splitStatements(
        "SELECT 1;\nCREATE FUNCTION g() RETURNS int LANGUAGE sql BEGIN ATOMIC\n"
        "SELECT 1; SELEC 2; END;\nSELECT 3;");
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_STREQ(e.what(), "syntax error at or near \"SELEC\"");
    EXPECT_EQ(e.statement(), 2u);
  }
}

// PostgreSQL 15 (the server and libpg_query) does not take \v for whitespace: skipping it
// between statements let an import run what /sql refuses (found by the sql_script fuzz target).
TEST(SplitStatements, VerticalTabIsNotWhitespace) {
  EXPECT_EQ(skipTrivia("\v SELECT 1", 0).pos, 0u);
  EXPECT_EQ(trimWhitespaceRight("SELECT 1\v", 9), 9u);
  EXPECT_THROW(splitStatements("SELECT 1;\n\vSELECT 2"), SqlSyntaxError);
}

// An error inside a quoted string: the text up to it ends inside the string, which the scanner
// refuses, yet the statement still starts after "SELECT 1;" (found by the sql_script fuzz
// target: the import took a good COPY for the failing statement and never read its data).
TEST(SplitStatements, StatementContainingAnErrorInsideAString) {
  const std::string sql = "SELECT 1; SELECT U&'a \\. b';";
  const StatementStart start = statementContaining(sql, sql.find("\\."));
  EXPECT_EQ(start.offset, 9u);
  EXPECT_EQ(start.statementsBefore, 1u);
}

TEST(SplitStatements, NulBytesAndInvalidUtf8AreRefused) {
  try {
    splitStatements(std::string("SELECT 1;\nSELECT 2\0; DROP TABLE t", 30));
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_STREQ(e.what(), "the SQL contains a NUL byte");
    EXPECT_EQ(e.position(), 18u);
    EXPECT_EQ(e.line(), 2u);
  }
  try {
    splitStatements("SELECT 'caf\xE9'");
    FAIL() << "no error";
  } catch (const SqlSyntaxError& e) {
    EXPECT_STREQ(e.what(), "the SQL is not UTF-8 text");
    EXPECT_EQ(e.position(), 11u);
  }
}

TEST(Trivia, SkipsWhitespaceCommentsAndOptionallyEmptyStatements) {
  EXPECT_EQ(skipTrivia("  -- x\n /* a /* b */ c */ SELECT", 0).pos, 26u);
  EXPECT_EQ(skipTrivia(" ; ;SELECT", 0).pos, 1u);
  EXPECT_EQ(skipTrivia(" ; ;SELECT", 0, true).pos, 4u);
  // Open at the end: the position of what may continue, and not complete.
  const TriviaEnd open_block = skipTrivia("  /* a /* b */", 0);
  EXPECT_FALSE(open_block.complete);
  EXPECT_EQ(open_block.pos, 2u);
  const TriviaEnd open_line = skipTrivia(" -- no newline yet", 0);
  EXPECT_FALSE(open_line.complete);
  EXPECT_EQ(open_line.pos, 1u);
  EXPECT_FALSE(skipTrivia("  -", 0).complete);
  EXPECT_TRUE(skipTrivia("  - 1", 0).complete);
  EXPECT_EQ(countNewlines("a\nb\n\nc"), 3u);
  EXPECT_EQ(trimWhitespaceRight("ab \n\t", 5), 2u);
}

}  // namespace
}  // namespace berth::sqlconsole
