// The streaming import reader: file checks, statements found across chunk boundaries (the same
// as splitStatements finds in the whole text), /import rule 2 skips, COPY ... FROM stdin data,
// errors naming the statement and line, and the throughput of a large INSERT script.
#include "sql_script_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "sql_script.hpp"

namespace berth::sqlconsole {
namespace {

namespace fs = std::filesystem;

// A file under the temp directory, removed with the object.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    static int counter = 0;
    path_ = (fs::temp_directory_path() / ("sql-reader-" + std::to_string(::getpid()) + "-" +
                                          std::to_string(++counter) + ".sql"))
                .string();
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { fs::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<ScriptItem> readAll(const std::string& path, size_t chunk = 1 << 20) {
  ScriptReader reader(path, {uint64_t{256} << 20, chunk});
  std::vector<ScriptItem> items;
  while (auto item = reader.next()) items.push_back(std::move(*item));
  return items;
}

// The error the reader throws for content (after returning the items before it).
ScriptError errorFor(const std::string& content, size_t chunk = 1 << 20,
                     std::vector<ScriptItem>* before = nullptr) {
  TempFile file(content);
  try {
    ScriptReader reader(file.path(), {uint64_t{256} << 20, chunk});
    while (auto item = reader.next()) {
      if (before) before->push_back(std::move(*item));
    }
  } catch (const ScriptError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << content.substr(0, 200);
  return ScriptError(ScriptError::Kind::Io, "none");
}

TEST(ScriptReader, RefusesFilesThatAreNotSqlText) {
  EXPECT_EQ(errorFor("").kind(), ScriptError::Kind::Empty);
  EXPECT_STREQ(errorFor("").what(), "the file is empty");
  EXPECT_STREQ(errorFor(" \n\t\r\n").what(), "the file is empty");

  std::string sqlite("SQLite format 3\0", 16);
  sqlite += std::string("\x10\x00\x01\x01\x00\x40\x20\x20", 8) + std::string(4000, '\0');
  EXPECT_EQ(errorFor(sqlite).kind(), ScriptError::Kind::Sqlite);
  EXPECT_STREQ(errorFor(sqlite).what(), "the file is a SQLite database, not a SQL script");

  const std::string with_nul("SELECT 1;\nSELECT 2;\0\0\0", 23);
  EXPECT_EQ(errorFor(with_nul).kind(), ScriptError::Kind::Binary);
  EXPECT_STREQ(errorFor(with_nul).what(), "the file is binary, not a SQL script");
  // A NUL byte anywhere makes it binary, even after an invalid UTF-8 byte.
  EXPECT_EQ(errorFor(std::string("\xFF\xD8\xFF\xE0 jpeg\0", 10)).kind(), ScriptError::Kind::Binary);

  const std::string latin1 = "INSERT INTO t VALUES ('caf\xE9');\n";
  const ScriptError not_utf8 = errorFor(latin1);
  EXPECT_EQ(not_utf8.kind(), ScriptError::Kind::NotUtf8);
  EXPECT_STREQ(not_utf8.what(), "the file is not UTF-8 text (invalid byte at offset 26)");
  EXPECT_EQ(not_utf8.offset(), 26u);
  // Far into the file (past the first chunk the check reads).
  const std::string far = std::string(3 << 20, ' ') + "SELECT '\xC3(';";
  EXPECT_STREQ(errorFor(far).what(), "the file is not UTF-8 text (invalid byte at offset 3145736)");

  EXPECT_EQ(errorFor("PGDMP\x01\x0e\x00", 1 << 20).kind(), ScriptError::Kind::PgDumpArchive);

  TempFile big(std::string((1 << 20) + 1, ' '));
  try {
    ScriptReader reader(big.path(), {uint64_t{1} << 20, 4096});
    FAIL() << "no error";
  } catch (const ScriptError& e) {
    EXPECT_EQ(e.kind(), ScriptError::Kind::TooLarge);
    EXPECT_STREQ(e.what(), "the file is over 1 MB");
  }
  try {
    ScriptReader reader("/nonexistent/dir/script.sql");
    FAIL() << "no error";
  } catch (const ScriptError& e) {
    EXPECT_EQ(e.kind(), ScriptError::Kind::Io);
  }
}

TEST(ScriptReader, SkipsAByteOrderMark) {
  TempFile file("\xEF\xBB\xBFSELECT 1;\nSELECT 2;");
  const auto items = readAll(file.path());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].text, "SELECT 1");
  EXPECT_EQ(items[0].offset, 3u);
  EXPECT_EQ(items[1].line, 2u);
}

// Everything splitStatements must not be fooled by, read with windows from one byte up: the
// reader finds the same statements, offsets and lines as a parse of the whole text.
TEST(ScriptReader, FindsTheSameStatementsAsAWholeParseWhateverTheChunkSize) {
  const std::string script =
      "-- héllo wörld; leading comment with UTF-8\n"
      "CREATE TABLE notes (id int PRIMARY KEY, body text, tag text DEFAULT 'a;b');\n"
      "/* block; /* nested; */ still; */\n"
      "INSERT INTO notes VALUES (1, 'it''s; fine', E'esc\\'aped;\\n'), (2, $$dollar; 'q'$$, "
      "'multi\nline;\n');\n"
      "CREATE FUNCTION f(x int) RETURNS int LANGUAGE plpgsql AS $fn$\n"
      "DECLARE s text := 'a;b';\n"
      "BEGIN\n"
      "  RETURN x + 1; -- ;\n"
      "END;\n"
      "$fn$;\n"
      "CREATE FUNCTION g() RETURNS int LANGUAGE sql\n"
      "BEGIN ATOMIC\n"
      "  SELECT 1;\n"
      "  SELECT 2;\n"
      "END;\n"
      "CREATE RULE r AS ON DELETE TO notes DO ALSO (SELECT 1; SELECT 2);\n"
      ";;\n"
      "SELECT 'ünïcödé; 漢字' AS \"quoted;name\"\n"
      "  , 2;   \n"
      "SELECT 3 -- last, without a semicolon";
  const std::vector<Statement> expected = splitStatements(script);
  ASSERT_EQ(expected.size(), 7u);
  TempFile file(script);
  std::vector<size_t> chunks;
  for (size_t c = 1; c <= 80; ++c) chunks.push_back(c);
  chunks.insert(chunks.end(), {100, 127, 256, 1000, 1 << 20});
  for (size_t chunk : chunks) {
    const auto items = readAll(file.path(), chunk);
    ASSERT_EQ(items.size(), expected.size()) << "chunk " << chunk;
    for (size_t i = 0; i < items.size(); ++i) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", statement " + std::to_string(i + 1));
      EXPECT_EQ(items[i].type, ScriptItem::Type::Statement);
      EXPECT_EQ(items[i].text, expected[i].text);
      EXPECT_EQ(items[i].offset, expected[i].offset);
      EXPECT_EQ(items[i].line, expected[i].line);
      EXPECT_EQ(items[i].statement, i + 1);
      EXPECT_EQ(items[i].kind.node, expected[i].kind.node);
    }
  }
}

// Random scripts from tricky pieces, joined by random comments, blank lines and empty
// statements, read with random chunk sizes (fixed seed, so a failure repeats).
TEST(ScriptReader, RandomScriptsMatchAWholeParse) {
  const std::vector<std::string> pieces = {
      "SELECT 1",
      "INSERT INTO t VALUES ('a;b', 'it''s', E'x\\'y;', $$d;'$$)",
      "SELECT 'multi\nline;\n'",
      "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $f$\nBEGIN\n  RETURN 1;\nEND;\n$f$",
      "CREATE FUNCTION g() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\n  SELECT 2;\nEND",
      "CREATE RULE r AS ON DELETE TO t DO ALSO (SELECT 1; SELECT 2)",
      "SELECT \"odd;name\" FROM \"t;t\"",
      "SELECT 'ünïcödé; 漢字 😀'",
      "SELECT 1 /* inner; /* nested; */ comment */ + 2",
      "DO $$ BEGIN PERFORM 1; END $$",
      "INSERT INTO t VALUES\n  (1),\n  (2);\n"  // the ';' is cut off below
  };
  const std::vector<std::string> gaps = {";\n",           "; ",    ";\n\n",    ";;\n", "; -- c;\n",
                                         ";\n/* x; */\n", ";\r\n", ";\n  \t\n"};
  std::mt19937 random(20240601);
  for (int round = 0; round < 150; ++round) {
    std::string script = random() % 2 ? "-- héllo; start\n" : "";
    const size_t count = 1 + random() % 12;
    for (size_t i = 0; i < count; ++i) {
      std::string piece = pieces[random() % pieces.size()];
      if (piece.ends_with(";\n")) piece.resize(piece.size() - 2);
      script += piece;
      if (i + 1 < count || random() % 2) script += gaps[random() % gaps.size()];
    }
    const std::vector<Statement> expected = splitStatements(script);
    TempFile file(script);
    const size_t chunk = 1 + random() % 200;
    const auto items = readAll(file.path(), chunk);
    ASSERT_EQ(items.size(), expected.size()) << "chunk " << chunk << "\n" << script;
    for (size_t i = 0; i < items.size(); ++i) {
      ASSERT_EQ(items[i].text, expected[i].text) << "chunk " << chunk << "\n" << script;
      ASSERT_EQ(items[i].offset, expected[i].offset);
      ASSERT_EQ(items[i].line, expected[i].line);
    }
  }
}

// A statement much longer than a chunk: the window grows until its ';' is in.
TEST(ScriptReader, StatementLongerThanManyChunks) {
  std::string values;
  for (int i = 0; i < 2000; ++i)
    values += (i ? ",\n(" : "(") + std::to_string(i) + ", 'v;" + std::to_string(i) + "')";
  const std::string script = "SELECT 0;\nINSERT INTO t VALUES " + values + ";\nSELECT 1;\n";
  TempFile file(script);
  const auto items = readAll(file.path(), 64);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1].text, "INSERT INTO t VALUES " + values);
  EXPECT_EQ(items[2].line, 2002u);
}

// docs/openapi.yaml, POST /projects/{name}/import, rule 2: backslash lines, SET (not SET
// CONSTRAINTS), set_config calls and the script's own transaction control are left out;
// everything else runs.
TEST(ScriptReader, SkipsWhatImportRuleTwoSays) {
  const std::string script =
      "\\restrict abc123\n"
      "SET statement_timeout = 0;\n"
      "SELECT pg_catalog.set_config('search_path', '', false);\n"
      "-- comment before a backslash line\n"
      "\\connect -reuse-previous=on \"dbname='it''s'\"\r\n"
      "BEGIN;\n"
      "SET CONSTRAINTS ALL DEFERRED;\n"
      "CREATE TABLE t (id int);\n"
      "SAVEPOINT s; RELEASE SAVEPOINT s;\n"
      "SELECT pg_catalog.setval('seq', 1, false);\n"
      "RESET ALL; SET LOCAL work_mem = '1MB';\n"
      "COMMIT;\n"
      "\\unrestrict abc123\n";
  TempFile file(script);
  for (size_t chunk :
       {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{16}, size_t{50}, size_t{1} << 20}) {
    const auto items = readAll(file.path(), chunk);
    struct Expected {
      ScriptItem::Type type;
      SkipReason skip;
      size_t statement;
      size_t line;
      const char* text;
    };
    using T = ScriptItem::Type;
    const Expected expected[] = {
        {T::Skipped, SkipReason::MetaCommand, 0, 1, "\\restrict abc123"},
        {T::Skipped, SkipReason::SetStatement, 1, 2, "SET statement_timeout = 0"},
        {T::Skipped, SkipReason::SetConfigCall, 2, 3,
         "SELECT pg_catalog.set_config('search_path', '', false)"},
        {T::Skipped, SkipReason::MetaCommand, 0, 5,
         "\\connect -reuse-previous=on \"dbname='it''s'\""},
        {T::Skipped, SkipReason::TransactionControl, 3, 6, "BEGIN"},
        {T::Statement, SkipReason::None, 4, 7, "SET CONSTRAINTS ALL DEFERRED"},
        {T::Statement, SkipReason::None, 5, 8, "CREATE TABLE t (id int)"},
        {T::Statement, SkipReason::None, 6, 9, "SAVEPOINT s"},
        {T::Statement, SkipReason::None, 7, 9, "RELEASE SAVEPOINT s"},
        {T::Statement, SkipReason::None, 8, 10, "SELECT pg_catalog.setval('seq', 1, false)"},
        {T::Skipped, SkipReason::SetStatement, 9, 11, "RESET ALL"},
        {T::Skipped, SkipReason::SetStatement, 10, 11, "SET LOCAL work_mem = '1MB'"},
        {T::Skipped, SkipReason::TransactionControl, 11, 12, "COMMIT"},
        {T::Skipped, SkipReason::MetaCommand, 0, 13, "\\unrestrict abc123"},
    };
    ASSERT_EQ(items.size(), std::size(expected)) << "chunk " << chunk;
    for (size_t i = 0; i < items.size(); ++i) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", item " + std::to_string(i));
      EXPECT_EQ(items[i].type, expected[i].type);
      EXPECT_EQ(items[i].skip, expected[i].skip);
      EXPECT_EQ(items[i].statement, expected[i].statement);
      EXPECT_EQ(items[i].line, expected[i].line);
      EXPECT_EQ(items[i].text, expected[i].text);
    }
  }
}

TEST(ScriptReader, CopyFromStdinDataComesInPiecesUpToItsEndLine) {
  // Text-format COPY data as pg_dump writes it: tabs between columns, \t \n \\ escapes, \N.
  const std::string data =
      "1\tplain\t\\N\n"
      "2\ttab\\there\tnew\\nline\n"
      "3\tback\\\\slash; 'quote' $$ -- not a comment\t\\.not the end\n"
      "4\tünïcödé 漢字\t\\\\.\n";
  const std::string script =
      "CREATE TABLE t (id int, a text, b text);\n"
      "COPY public.t (id, a, b) FROM stdin;   \n" +
      data +
      "\\.\n"
      "\n"
      "COPY t FROM stdin; -- a comment may follow\n"
      "5\tcrlf\tend\r\n"
      "\\.\r\n"
      "SELECT 'after';\n";
  TempFile file(script);
  for (size_t chunk : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{8}, size_t{13},
                       size_t{40}, size_t{1} << 20}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    const auto items = readAll(file.path(), chunk);
    std::vector<std::string> copies(2);
    std::vector<size_t> ends;
    size_t copy_index = 0;
    std::vector<std::string> statements;
    for (const ScriptItem& item : items) {
      switch (item.type) {
        case ScriptItem::Type::Statement:
          statements.push_back(item.text);
          break;
        case ScriptItem::Type::CopyData:
          EXPECT_LE(item.text.size(), std::max<size_t>(chunk, 1));
          ASSERT_LT(copy_index, 2u);
          copies[copy_index] += item.text;
          EXPECT_EQ(item.statement, copy_index + 2);
          break;
        case ScriptItem::Type::CopyEnd:
          ends.push_back(item.line);
          EXPECT_EQ(item.statement, copy_index + 2);
          ++copy_index;
          break;
        case ScriptItem::Type::Skipped:
          ADD_FAILURE() << "skipped " << item.text;
      }
    }
    EXPECT_EQ(statements, (std::vector<std::string>{"CREATE TABLE t (id int, a text, b text)",
                                                    "COPY public.t (id, a, b) FROM stdin",
                                                    "COPY t FROM stdin", "SELECT 'after'"}));
    EXPECT_EQ(copies[0], data);
    EXPECT_EQ(copies[1], "5\tcrlf\tend\r\n");
    EXPECT_EQ(ends, (std::vector<size_t>{7, 11}));
    ASSERT_FALSE(items.empty());
    EXPECT_EQ(items.back().line, 12u);
    EXPECT_EQ(items.back().statement, 4u);
  }
}

// The first data line comes right after the statement in the same window: it is not parsed
// as SQL, even when it happens to parse (here "vacuum" and "select 1").
TEST(ScriptReader, CopyDataThatLooksLikeSqlIsStillData) {
  const std::string script = "COPY words FROM stdin;\nvacuum\nselect 1;\n\\.\nSELECT 2;\n";
  TempFile file(script);
  const auto items = readAll(file.path());
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[1].type, ScriptItem::Type::CopyData);
  EXPECT_EQ(items[1].text, "vacuum\nselect 1;\n");
  EXPECT_EQ(items[2].type, ScriptItem::Type::CopyEnd);
  EXPECT_EQ(items[3].text, "SELECT 2");
  EXPECT_EQ(items[3].statement, 2u);
}

// Long things are read in bounded pieces: a comment of many chunks before a statement, and a
// COPY data line much longer than a chunk (handed out in chunk-sized parts).
TEST(ScriptReader, LongCommentsAndLongDataLines) {
  const std::string comment =
      "/* " + std::string(300000, 'c') + " */\n-- " + std::string(300000, 'd') + "\n";
  const std::string long_line = "1\t" + std::string(100000, 'x') + "\n";
  const std::string data = "\\N\tnull first\n" + long_line + "\\\\.\tnot the end\n\\.x\n";
  const std::string script =
      comment + "COPY t FROM stdin;\n" + data + "\\.\n" + comment + "SELECT 1;\n" + comment;
  TempFile file(script);
  for (size_t chunk : {size_t{1000}, size_t{4096}, size_t{65536}}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    const auto items = readAll(file.path(), chunk);
    ASSERT_GE(items.size(), 4u);
    EXPECT_EQ(items.front().text, "COPY t FROM stdin");
    EXPECT_EQ(items.front().line, 3u);
    std::string copied;
    size_t pieces = 0;
    for (const ScriptItem& item : items) {
      if (item.type != ScriptItem::Type::CopyData) continue;
      EXPECT_LE(item.text.size(), chunk);
      copied += item.text;
      ++pieces;
    }
    EXPECT_EQ(copied, data);
    EXPECT_GE(pieces, long_line.size() / chunk);
    EXPECT_EQ(items[items.size() - 2].type, ScriptItem::Type::CopyEnd);
    EXPECT_EQ(items.back().text, "SELECT 1");
    EXPECT_EQ(items.back().line, 11u);
    EXPECT_EQ(items.back().statement, 2u);
  }
}

TEST(ScriptReader, CopyDataMustBeEnded) {
  for (size_t chunk : {size_t{4}, size_t{1} << 20}) {
    std::vector<ScriptItem> before;
    const ScriptError no_end =
        errorFor("SELECT 1;\nCOPY t FROM stdin;\n1\tx\n2\ty\n", chunk, &before);
    EXPECT_EQ(no_end.kind(), ScriptError::Kind::CopyData);
    EXPECT_STREQ(
        no_end.what(),
        "statement 2 (line 2): COPY ... FROM stdin: its data does not end with a line \\.");
    EXPECT_EQ(no_end.statement(), 2u);
    ASSERT_GE(before.size(), 2u);
    EXPECT_EQ(before[1].text, "COPY t FROM stdin");

    EXPECT_STREQ(errorFor("COPY t FROM stdin; SELECT 2;\n1\n\\.\n", chunk).what(),
                 "statement 1 (line 1): COPY ... FROM stdin: its data must start on the next line");
    EXPECT_EQ(errorFor("COPY t FROM stdin", chunk).kind(), ScriptError::Kind::CopyData);
  }
  // "\." at the very end, without a newline, ends the data.
  TempFile file("COPY t FROM stdin;\n1\n\\.");
  const auto items = readAll(file.path(), 3);
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items.back().type, ScriptItem::Type::CopyEnd);
}

TEST(ScriptReader, TheStatementsBeforeABadCopyLineAreReturnedFirst) {
  // The importer counts what ran from the items it was given: all of those before the COPY.
  for (size_t chunk : {size_t{4}, size_t{1} << 20}) {
    std::vector<ScriptItem> before;
    const ScriptError e =
        errorFor("CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);\nCOPY t FROM stdin; 2\n\\.\n",
                 chunk, &before);
    EXPECT_STREQ(e.what(),
                 "statement 3 (line 3): COPY ... FROM stdin: its data must start on the next line");
    ASSERT_EQ(before.size(), 3u) << chunk;
    EXPECT_EQ(before[1].text, "INSERT INTO t VALUES (1)");
    EXPECT_EQ(before[2].text, "COPY t FROM stdin");
  }
}

TEST(ScriptReader, AnEndLineWithMoreOnItIsNamedWhenTheDataNeverEnds) {
  for (size_t chunk : {size_t{3}, size_t{1} << 20}) {
    const ScriptError e = errorFor("COPY t FROM stdin;\n1\n\\.x\n2\n\\. \nSELECT 1;\n", chunk);
    EXPECT_STREQ(e.what(),
                 "statement 1 (line 1): COPY ... FROM stdin: its data does not end with a line "
                 "\\. (line 3 starts with \\. but has more on it; the end line is \\. alone)")
        << chunk;
  }
  // With an end line after it, such a line is data (CSV) or the server's to refuse (text).
  TempFile file("COPY t FROM stdin;\n\\.x\n\\.\n");
  const auto items = readAll(file.path(), 2);
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items.back().type, ScriptItem::Type::CopyEnd);
  std::string data;
  for (const ScriptItem& item : items)
    if (item.type == ScriptItem::Type::CopyData) data += item.text;
  EXPECT_EQ(data, "\\.x\n");
}

TEST(ScriptReader, SyntaxErrorNamesTheStatementAndLine) {
  const std::string script =
      "CREATE TABLE a (id int);\n"
      "INSERT INTO a VALUES (1);\n"
      "\\connect other\n"
      "SET x = 1;\n"
      "INSERT INTO a VALUES (2),\n"
      "  (3);\n"
      "INSERT INTO a\n"
      "  VALUES (4) (5);\n"
      "INSERT INTO a VALUES (6);\n";
  for (size_t chunk : {size_t{1}, size_t{9}, size_t{30}, size_t{1} << 20}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    std::vector<ScriptItem> before;
    const ScriptError e = errorFor(script, chunk, &before);
    EXPECT_EQ(e.kind(), ScriptError::Kind::Syntax);
    EXPECT_STREQ(e.what(), "statement 5 (line 8): syntax error at or near \"(\"");
    EXPECT_EQ(e.statement(), 5u);
    EXPECT_EQ(e.line(), 8u);
    EXPECT_EQ(e.offset(), script.find("(5)"));
    // Everything before the bad statement was handed out first.
    ASSERT_EQ(before.size(), 5u);
    EXPECT_EQ(before[4].text, "INSERT INTO a VALUES (2),\n  (3)");
  }
}

TEST(ScriptReader, ErrorsAtTheEndOfTheFileAndAfterCopyData) {
  for (size_t chunk : {size_t{5}, size_t{1} << 20}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    EXPECT_STREQ(errorFor("SELECT 1;\nSELECT 'never closed;\nSELECT 3;\n", chunk).what(),
                 "statement 2 (line 2): unterminated quoted string at or near \"'never closed;\n"
                 "SELECT 3;\n\"");
    EXPECT_STREQ(errorFor("SELECT 1;\n/* open comment", chunk).what(),
                 "statement 2 (line 2): unterminated /* comment at or near \"/* open comment\"");
    EXPECT_STREQ(errorFor("SELECT 1;\nCREATE FUNCTION g() RETURNS int LANGUAGE sql BEGIN ATOMIC "
                          "SELECT 1;\n",
                          chunk)
                     .what(),
                 "statement 2 (line 2): syntax error at end of input");
    EXPECT_STREQ(errorFor("COPY t FROM stdin;\n1\n\\.\nSELEC 2;\n", chunk).what(),
                 "statement 2 (line 4): syntax error at or near \"SELEC\"");
  }
  // Only comments after the last statement: no error, nothing more.
  TempFile file("SELECT 1;\n-- the end, no newline");
  EXPECT_EQ(readAll(file.path(), 4).size(), 1u);
}

// An import must be fast: a 20 MB script of INSERT statements (pg_dump --inserts style).
TEST(ScriptReader, LargeInsertScriptThroughput) {
  std::string script = "CREATE TABLE items (id int, name text, price numeric, at timestamptz);\n";
  size_t inserts = 0;
  while (script.size() < (20u << 20)) {
    script += "INSERT INTO public.items VALUES (" + std::to_string(inserts) + ", 'item " +
              std::to_string(inserts) + " with; semicolon and ''quote''', 3.25, " +
              "'2024-01-01 10:00:00+00');\n";
    ++inserts;
  }
  TempFile file(script);
  const auto started = std::chrono::steady_clock::now();
  ScriptReader reader(file.path());
  size_t statements = 0;
  size_t bytes = 0;
  while (auto item = reader.next()) {
    ASSERT_EQ(item->type, ScriptItem::Type::Statement);
    ++statements;
    bytes += item->text.size();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(statements, inserts + 1);
  EXPECT_EQ(reader.statementsSeen(), inserts + 1);
  EXPECT_EQ(bytes + 2 * statements, script.size());  // every ';' and '\n' left out
  const double mb = static_cast<double>(script.size()) / (1 << 20);
  std::cout << "[ info     ] " << statements << " statements, " << mb << " MB in " << seconds
            << " s: " << mb / seconds << " MB/s\n";
  RecordProperty("megabytes_per_second", std::to_string(mb / seconds));
}

}  // namespace
}  // namespace berth::sqlconsole
