// ctest-label: api (starts a real berthd)
// POST /projects/{name}/import with COPY ... FROM stdin blocks (contract.md's extension to
// api.md's rule 2) over HTTP against a real berthd and PostgreSQL: a script the real pg_dump
// wrote from awkward data (tabs, newlines, backslashes, "\." as a value, NULLs, a huge value,
// a column named "Full Name") imports with the same rows; and every malformed data block is
// refused with the import's usual error ("statement N (line L): ...; R statements ran before
// it and none are kept") and leaves the database exactly as it was, including a table made and
// rows written earlier in the same script.
#include "sql_api_support.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using namespace berth::testing::sqlconsole_api;
using nlohmann::json;

namespace {

constexpr const char* kPgDump = "/usr/lib/postgresql/15/bin/pg_dump";

// Statements 1-3 (lines 1-3) run before the COPY of statement 4 (line 4): a table made by the
// script, rows in it, and a row added to a table that was there before.
const std::string kBefore =
    "CREATE TABLE made (id int PRIMARY KEY, label text);\n"
    "INSERT INTO made VALUES (1, 'a'), (2, 'b');\n"
    "INSERT INTO base VALUES (10, 'ten');\n";
const std::string kCopy = "COPY made (id, label) FROM stdin;\n";
const std::string kRan = "; 3 statements ran before it and none are kept";

class ImportCopyApi : public SqlconsoleSuite {
 protected:
  // Projects are few (the account's creation throttle allows 8 at once): every refused script
  // below runs on one, which each refusal leaves as it was.
  static void SetUpTestSuite() {
    startServer();
    owner = new Account(makeAccount(*server, "copyown"));
    bad = new TestProject(withBase("copybad"));
  }
  static void TearDownTestSuite() {
    delete bad;
    delete owner;
    SqlconsoleSuite::TearDownTestSuite();
  }
  static ApiClient client() { return server->api(owner->token); }
  static TestProject fresh(const std::string& label) {
    return makeProject(*server, client(), label, "copyown");
  }
  // A project whose database holds base (1, one) and nothing else.
  static TestProject withBase(const std::string& label) {
    TestProject p = fresh(label);
    mustBatch(client(), p.name,
              {"CREATE TABLE base (id int PRIMARY KEY, note text)",
               "INSERT INTO base VALUES (1, 'one')"});
    return p;
  }
  // The script is refused with exactly `error`, and the database is as it was.
  static void expectRefusedKeepingNothing(const TestProject& p, const std::string& script,
                                          const std::string& error) {
    auto r = importScript(client(), p.name, script);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(errorText(r), error);
    EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_class WHERE relname = 'made'"), "0");
    EXPECT_EQ(tableRows(p.url, "base"), std::vector<std::string>{"(1,one)"});
  }
  static inline Account* owner = nullptr;
  static inline TestProject* bad = nullptr;
};

}  // namespace

TEST_F(ImportCopyApi, AWellFormedBlockLoadsAfterTheStatementsBeforeIt) {
  TestProject p = withBase("copyok");
  auto r = importScript(client(), p.name, kBefore + kCopy + "3\tc\n4\t\\N\n5\ttab\\there\n\\.\n");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["ran"], 4);
  EXPECT_EQ(tableRows(p.url, "made"),
            (std::vector<std::string>{"(1,a)", "(2,b)", "(3,c)", "(4,)", "(5,\"tab\there\")"}));
  EXPECT_EQ(tableRows(p.url, "base"), (std::vector<std::string>{"(1,one)", "(10,ten)"}));
}

TEST_F(ImportCopyApi, TooFewOrTooManyColumnsInARow) {
  const TestProject& p = *bad;
  expectRefusedKeepingNothing(
      p, kBefore + kCopy + "3\tc\n4\n\\.\n",
      "statement 4 (line 4): missing data for column \"label\" (COPY made, line 2: \"4\")" + kRan);
  expectRefusedKeepingNothing(
      p, kBefore + kCopy + "3\tc\textra\n\\.\n",
      "statement 4 (line 4): extra data after last expected column (COPY made, line 1: "
      "\"3\tc\textra\")" +
          kRan);
}

TEST_F(ImportCopyApi, ABadEscapeOrAValueOfTheWrongType) {
  const TestProject& p = *bad;
  expectRefusedKeepingNothing(
      p, kBefore + kCopy + "3\tc\\xff\n\\.\n",
      "statement 4 (line 4): invalid byte sequence for encoding \"UTF8\": 0xff (COPY made, line "
      "1: \"3\tc\\xff\")" +
          kRan);
  expectRefusedKeepingNothing(p, kBefore + kCopy + "3\tc\nfour\td\n\\.\n",
                              "statement 4 (line 4): invalid input syntax for type integer: "
                              "\"four\" (COPY made, line 2, column id: \"four\")" +
                                  kRan);
  // A later row breaking the table's key, after many good ones.
  std::string rows;
  for (int i = 3; i < 3000; ++i) rows += std::to_string(i) + "\tr\n";
  expectRefusedKeepingNothing(p, kBefore + kCopy + rows + "1\tagain\n\\.\n",
                              "statement 4 (line 4): duplicate key value violates unique "
                              "constraint \"made_pkey\" (COPY made, line 2998)" +
                                  kRan);
}

TEST_F(ImportCopyApi, DataThatDoesNotEndWithItsEndLine) {
  const TestProject& p = *bad;
  const std::string unended =
      "statement 4 (line 4): COPY ... FROM stdin: its data does not end with a line \\." + kRan;
  // The file ends after whole rows, in the middle of a row, and right after the COPY.
  expectRefusedKeepingNothing(p, kBefore + kCopy + "3\tc\n4\td\n", unended);
  expectRefusedKeepingNothing(p, kBefore + kCopy + "3\tc\n4\td", unended);
  expectRefusedKeepingNothing(p, kBefore + kCopy + "3\tc\n4", unended);
  expectRefusedKeepingNothing(p, kBefore + kCopy, unended);
  expectRefusedKeepingNothing(p, kBefore + "COPY made (id, label) FROM stdin;", unended);
}

TEST_F(ImportCopyApi, TextAfterTheEndMarkerOnItsLine) {
  const TestProject& p = *bad;
  // With no end line after it, the data runs to the end of the file: the line meant is named.
  const std::string refusal =
      "statement 4 (line 4): COPY ... FROM stdin: its data does not end with a line \\. (line 6 "
      "starts with \\. but has more on it; the end line is \\. alone)" +
      kRan;
  expectRefusedKeepingNothing(p, kBefore + kCopy + "3\tc\n\\.garbage\n", refusal);
  expectRefusedKeepingNothing(p, kBefore + kCopy + "3\tc\n\\. \nSELECT 1;\n", refusal);
  // With one after it, the server reads the line as a corrupt end marker (in text format).
  expectRefusedKeepingNothing(
      p, kBefore + kCopy + "3\tc\n\\.;\n4\td\n\\.\n",
      "statement 4 (line 4): end-of-copy marker corrupt (COPY made, line 2)" + kRan);
  // Data on the COPY's own line.
  expectRefusedKeepingNothing(
      p, kBefore + "COPY made (id, label) FROM stdin; 3\tc\n\\.\n",
      "statement 4 (line 4): COPY ... FROM stdin: its data must start on the next line" + kRan);
}

TEST_F(ImportCopyApi, CsvDataMayHoldALineStartingWithTheMarkerButNotAnOpenQuote) {
  // In CSV a quoted value may span lines, and one of them may start with \. and go on.
  TestProject p = fresh("copycsv");
  auto r = importScript(client(), p.name,
                        "CREATE TABLE made (id int PRIMARY KEY, label text);\n"
                        "COPY made (id, label) FROM stdin WITH (FORMAT csv);\n"
                        "1,\"two\n\\.lines\"\n2,plain\n\\.\n");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(scalar(p.url, "SELECT label FROM made WHERE id = 1"), "two\n\\.lines");
  expectRefusedKeepingNothing(*bad,
                              kBefore +
                                  "COPY made (id, label) FROM stdin WITH (FORMAT csv);\n"
                                  "3,\"open\n4,d\n\\.\n",
                              "statement 4 (line 4): unterminated CSV quoted field (COPY made, "
                              "line 1: \"3,\"open\n4,d\n\")" +
                                  kRan);
}

TEST_F(ImportCopyApi, AColumnListNamingAMissingColumn) {
  const TestProject& p = *bad;
  expectRefusedKeepingNothing(
      p, kBefore + "COPY made (id, nope) FROM stdin;\n3\tc\n\\.\nINSERT INTO base VALUES (11);\n",
      "statement 4 (line 4): column \"nope\" of relation \"made\" does not exist" + kRan);
  expectRefusedKeepingNothing(p, kBefore + "COPY nowhere FROM stdin;\n3\tc\n\\.\n",
                              "statement 4 (line 4): relation \"nowhere\" does not exist" + kRan);
}

TEST_F(ImportCopyApi, AHugeRowLoadsAndAHugeBadRowIsRefusedWithAShortMessage) {
  TestProject p = withBase("copyhuge");
  const std::string huge(6 << 20, 'h');  // one 6 MB line, many of the reader's pieces
  auto r = importScript(client(), p.name, kBefore + kCopy + "3\t" + huge + "\n4\td\n\\.\n");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  EXPECT_EQ(scalar(p.url, "SELECT length(label) FROM made WHERE id = 3"),
            std::to_string(huge.size()));
  mustBatch(client(), p.name, {"DROP TABLE made", "DELETE FROM base WHERE id = 10"});

  r = importScript(client(), p.name, kBefore + kCopy + "3\t" + huge + "\tmore\n\\.\n");
  EXPECT_EQ(r.status, 400);
  const std::string error = errorText(r);
  EXPECT_LT(error.size(), 400u) << "PostgreSQL cuts the row it quotes";
  EXPECT_EQ(error.rfind("statement 4 (line 4): extra data after last expected column (COPY made, "
                        "line 1: \"3\thhhh",
                        0),
            0u)
      << error.substr(0, 300);
  EXPECT_TRUE(error.ends_with(kRan)) << error.substr(0, 300);
  EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_class WHERE relname = 'made'"), "0");
  EXPECT_EQ(tableRows(p.url, "base"), std::vector<std::string>{"(1,one)"});

  // PostgreSQL quotes a refused value whole in its message: cut short, still the usual shape.
  r = importScript(client(), p.name, kBefore + kCopy + "x" + huge + "\tc\n\\.\n");
  EXPECT_EQ(r.status, 400);
  const std::string cut = errorText(r);
  EXPECT_LT(cut.size(), 1000u);
  EXPECT_TRUE(
      cut.starts_with("statement 4 (line 4): invalid input syntax for type integer: "
                      "\"xhhhh"))
      << cut.substr(0, 300);
  EXPECT_NE(cut.find("hhh... (COPY made, line 1, column id: \"xhhh"), std::string::npos) << cut;
  EXPECT_TRUE(cut.ends_with(kRan)) << cut;
  EXPECT_EQ(scalar(p.url, "SELECT count(*) FROM pg_class WHERE relname = 'made'"), "0");
}

TEST_F(ImportCopyApi, AScriptPgDumpWroteFromAwkwardDataImportsWithTheSameRows) {
  TestProject source = fresh("copysource");
  mustBatch(
      client(), source.name,
      {"CREATE TABLE awkward (id int PRIMARY KEY, \"Full Name\" text, body text, n numeric,"
       " tags text[], raw bytea, doc jsonb)",
       "INSERT INTO awkward VALUES"
       " (1, 'Ada', E'tab\\there', 1.5, '{a,\"b c\"}', '\\x00ff', '{\"k\": \"v\\\\n\"}'),"
       " (2, E'back\\\\slash', E'line one\\nline two\\r\\n', NULL, '{}', '', 'null'),"
       " (3, '\\.', E'\\\\.', -0.0, NULL, NULL, '[]'),"
       " (4, '', '', 0, '{NULL}', '\\x5c2e', '\"\\\\\\\\.\"'),"
       " (5, 'Zoë ✓', repeat('long ', 200000), 1e100, '{x}', decode(repeat('ab', 1000),"
       " 'hex'), '{}')",
       "CREATE TABLE lines (t text)",
       "INSERT INTO lines VALUES ('\\.'), (E'\\\\.'), (E'\\\\'), (E'\\\\.x'), ('.'), (''),"
       " (NULL), (E'\\t'), (E'\\n\\\\.\\n')",
       "INSERT INTO awkward (id, body) SELECT g, 'row ' || g FROM generate_series(6, 3000) g"});
  const std::string dir = makeTempDir("berth-import-copy-");
  const std::string file = dir + "/dump.sql";
  auto dumped = berth::core::runCommand(
      {kPgDump, "--format=plain", "--no-owner", "--no-privileges", "--file=" + file, source.url});
  ASSERT_TRUE(dumped.status.ok()) << dumped.output;
  const std::string script = readFile(file);
  ASSERT_NE(script.find("COPY public.awkward (id, \"Full Name\", body, n, tags, raw, doc) FROM "
                        "stdin;\n"),
            std::string::npos)
      << "pg_dump writes COPY blocks";
  ASSERT_NE(script.find("\n\\\\.\n"), std::string::npos) << "a data line that starts with \\\\.";

  TestProject target = fresh("copytarget");
  auto r = importScript(client(), target.name, script);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["tables"], 2);
  for (const std::string table : {"awkward", "lines"})
    EXPECT_EQ(tableRows(target.url, table), tableRows(source.url, table)) << table;

  // The same dump with one row broken deep inside its COPY block: refused, nothing kept, the
  // rows the first import wrote untouched.
  std::string broken = script;
  const size_t row = broken.find("\n2999\t");
  ASSERT_NE(row, std::string::npos);
  broken.replace(row + 1, 4, "2x99");
  const TestProject& second = *bad;
  r = importScript(client(), second.name, broken);
  EXPECT_EQ(r.status, 400);
  const std::string error = errorText(r);
  EXPECT_NE(error.find(": invalid input syntax for type integer: \"2x99\" (COPY awkward, line "),
            std::string::npos)
      << error;
  EXPECT_TRUE(error.starts_with("statement ")) << error;
  EXPECT_TRUE(error.ends_with(" ran before it and none are kept")) << error;
  EXPECT_EQ(scalar(second.url,
                   "SELECT count(*) FROM pg_class WHERE relname IN ('awkward', "
                   "'lines')"),
            "0");
  EXPECT_EQ(tableRows(second.url, "base"), std::vector<std::string>{"(1,one)"});
  removeTree(dir);
}
