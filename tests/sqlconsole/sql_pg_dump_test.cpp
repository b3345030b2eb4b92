// A real pg_dump file through ScriptReader: made from a database on the shared test cluster,
// read back (statements, skipped lines, COPY blocks), then replayed into an empty database the
// way /import runs a script (one transaction, COPY data with PQputCopyData), and compared.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sql_script_reader.hpp"
#include "support/pg_cluster.hpp"

namespace berth::sqlconsole {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPgDump = "/usr/lib/postgresql/15/bin/pg_dump";

struct ConnFinish {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnFinish>;
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

Conn connect(const std::string& url) {
  Conn conn(PQconnectdb(url.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw std::runtime_error("connect: " + std::string(PQerrorMessage(conn.get())));
  }
  return conn;
}

// Runs sql (one or more statements); returns the first value of the first row, or "".
std::string run(PGconn* conn, const std::string& sql) {
  Result result(PQexec(conn, sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error(sql.substr(0, 80) + ": " + PQresultErrorMessage(result.get()));
  }
  if (status != PGRES_TUPLES_OK || PQntuples(result.get()) == 0) return "";
  return PQgetvalue(result.get(), 0, 0);
}

const char* kSourceSchema = R"sql(
CREATE SCHEMA app;
CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE app.notes (
  id serial PRIMARY KEY,
  body text NOT NULL,
  mood app.mood,
  meta jsonb,
  data bytea,
  created timestamptz DEFAULT '2024-01-01 00:00:00+00'
);
CREATE TABLE public.tags (
  note_id int REFERENCES app.notes (id) ON DELETE CASCADE,
  tag text,
  PRIMARY KEY (note_id, tag)
);
CREATE TABLE public.empty_table (x int);
CREATE INDEX notes_lower_body ON app.notes (lower(body));
CREATE VIEW app.loud_notes AS SELECT id, upper(body) AS loud FROM app.notes;
CREATE FUNCTION app.add_one(x int) RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE s text := 'semi;colon ''quoted'' $$ not the end';
BEGIN
  -- a comment; with a semicolon
  RETURN x + 1;
END;
$fn$;
CREATE FUNCTION app.twice(x int) RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT x * 2;
END;
COMMENT ON TABLE app.notes IS 'Notes; with a semicolon and ''quotes''';
INSERT INTO app.notes (body, mood, meta, data) VALUES
  (E'tab\there', 'ok', '{"a": "b;c"}', '\x00ff10'),
  (E'new\nline\nand\r\nCRLF', 'sad', NULL, NULL),
  (E'back\\slash and \\N and \\.', 'happy', '[1, 2]', '\x5c2e'),
  (E'a line that is\n\\.\nin the middle', NULL, NULL, NULL),
  ('ünïcödé 漢字 😀; ''quoted'' $$dollar$$ -- not a comment', 'ok', '{"emoji": "😀"}', NULL);
INSERT INTO app.notes (body, meta)
  SELECT 'row ' || g || repeat(E';\tx', g % 40), jsonb_build_object('g', g)
  FROM generate_series(1, 6000) g;
INSERT INTO public.tags SELECT id, 'tag' || (id % 7) FROM app.notes WHERE id % 3 = 0;
)sql";

// Count and checksum of a table's rows, the same in both databases when the copy is faithful.
std::string fingerprint(PGconn* conn, const std::string& table) {
  return run(conn,
             "SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY "
             "t::text)), '-') FROM " +
                 table + " t");
}

struct DumpSummary {
  std::map<std::string, size_t> nodes;  // statements run, by parse node
  size_t skipped = 0;
  size_t metaCommands = 0;
  std::map<std::string, size_t> copyRows;  // COPY statement text -> data lines
  size_t copyEnds = 0;
  std::vector<std::string> sequence;  // every item (COPY data joined), to compare chunk sizes
};

DumpSummary summarize(const std::string& path, size_t chunk) {
  ScriptReader reader(path, {uint64_t{256} << 20, chunk});
  DumpSummary out;
  std::string copy;
  bool in_data = false;
  while (auto item = reader.next()) {
    // How COPY data is cut into pieces depends on the chunk size; the data itself must not.
    const bool data = item->type == ScriptItem::Type::CopyData;
    if (data && in_data) {
      out.sequence.back() += item->text;
    } else {
      out.sequence.push_back(std::to_string(static_cast<int>(item->type)) + "|" +
                             std::to_string(item->statement) + "|" + std::to_string(item->line) +
                             "|" + item->text);
    }
    in_data = data;
    switch (item->type) {
      case ScriptItem::Type::Statement:
        ++out.nodes[item->kind.node];
        if (item->kind.copyFromStdin) copy = item->text;
        break;
      case ScriptItem::Type::Skipped:
        ++out.skipped;
        if (item->skip == SkipReason::MetaCommand) ++out.metaCommands;
        break;
      case ScriptItem::Type::CopyData:
        for (char c : item->text) out.copyRows[copy] += c == '\n';
        break;
      case ScriptItem::Type::CopyEnd:
        ++out.copyEnds;
        break;
    }
  }
  return out;
}

// What /import will do with the items: run statements, feed COPY data, in one transaction.
size_t replay(const std::string& path, PGconn* conn, size_t chunk) {
  ScriptReader reader(path, {uint64_t{256} << 20, chunk});
  run(conn, "BEGIN");
  size_t ran = 0;
  while (auto item = reader.next()) {
    switch (item->type) {
      case ScriptItem::Type::Skipped:
        break;
      case ScriptItem::Type::Statement: {
        Result result(PQexec(conn, item->text.c_str()), &PQclear);
        const ExecStatusType status = PQresultStatus(result.get());
        const ExecStatusType wanted = item->kind.copyFromStdin ? PGRES_COPY_IN : PGRES_COMMAND_OK;
        if (status != wanted && status != PGRES_TUPLES_OK) {
          throw std::runtime_error("statement " + std::to_string(item->statement) + " (line " +
                                   std::to_string(item->line) +
                                   "): " + PQresultErrorMessage(result.get()));
        }
        ++ran;
        break;
      }
      case ScriptItem::Type::CopyData:
        if (PQputCopyData(conn, item->text.data(), static_cast<int>(item->text.size())) != 1) {
          throw std::runtime_error(PQerrorMessage(conn));
        }
        break;
      case ScriptItem::Type::CopyEnd: {
        if (PQputCopyEnd(conn, nullptr) != 1) throw std::runtime_error(PQerrorMessage(conn));
        while (PGresult* raw = PQgetResult(conn)) {
          Result result(raw, &PQclear);
          if (PQresultStatus(raw) != PGRES_COMMAND_OK) {
            throw std::runtime_error("COPY of statement " + std::to_string(item->statement) + ": " +
                                     PQresultErrorMessage(raw));
          }
        }
        break;
      }
    }
  }
  run(conn, "COMMIT");
  return ran;
}

class PgDumpFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kPgDump)) GTEST_SKIP() << kPgDump << " is not installed";
    auto& cluster = berth::testing::sharedCluster();
    source_url_ = cluster.createDatabase("dump_source");
    target_url_ = cluster.createDatabase("dump_target");
    source_ = connect(source_url_);
    run(source_.get(), kSourceSchema);
    dump_ =
        (fs::temp_directory_path() / ("sql-dump-" + std::to_string(::getpid()) + ".sql")).string();
    const std::string command =
        std::string(kPgDump) + " --dbname='" + source_url_ + "' --file='" + dump_ + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  void TearDown() override {
    if (!dump_.empty()) fs::remove(dump_);
  }

  std::string source_url_;
  std::string target_url_;
  Conn source_;
  std::string dump_;
};

TEST_F(PgDumpFile, StatementsSkipsAndCopyBlocksAddUp) {
  const DumpSummary summary = summarize(dump_, 1 << 20);
  // pg_dump's preamble: SET lines and set_config are left out.
  EXPECT_GE(summary.skipped, 10u);
  EXPECT_EQ(summary.nodes.count("VariableSetStmt"), 0u);
  EXPECT_EQ(summary.nodes.at("CreateSchemaStmt"), 1u);
  EXPECT_EQ(summary.nodes.at("CreateEnumStmt"), 1u);
  EXPECT_EQ(summary.nodes.at("CreateFunctionStmt"), 2u);
  EXPECT_EQ(summary.nodes.at("CreateStmt"), 3u);
  EXPECT_EQ(summary.nodes.at("ViewStmt"), 1u);
  EXPECT_EQ(summary.nodes.at("IndexStmt"), 1u);
  EXPECT_EQ(summary.nodes.at("CommentStmt"), 1u);
  EXPECT_EQ(summary.nodes.at("CopyStmt"), 3u);
  EXPECT_EQ(summary.copyEnds, 3u);
  EXPECT_GE(summary.nodes.at("AlterTableStmt"), 3u);  // primary and foreign keys, defaults

  // One data line per row (newlines inside values are escaped as \n).
  std::map<std::string, size_t> rows;
  for (const auto& [copy, lines] : summary.copyRows) rows[copy.substr(0, copy.find(" ("))] = lines;
  EXPECT_EQ(rows["COPY app.notes"],
            std::stoul(run(source_.get(), "SELECT count(*) FROM app.notes")));
  EXPECT_EQ(rows["COPY public.tags"], std::stoul(run(source_.get(), "SELECT count(*) FROM tags")));
  EXPECT_EQ(rows.count("COPY public.empty_table"), 0u);  // no data lines at all

  // The same items whatever the window: small chunks cut statements and data lines anywhere.
  for (size_t chunk : {size_t{97}, size_t{4096}}) {
    EXPECT_EQ(summarize(dump_, chunk).sequence, summary.sequence) << "chunk " << chunk;
  }
}

TEST_F(PgDumpFile, ReplaysIntoAnEmptyDatabase) {
  Conn target = connect(target_url_);
  const size_t ran = replay(dump_, target.get(), 4096);
  EXPECT_GT(ran, 20u);
  for (const char* table : {"app.notes", "public.tags", "public.empty_table", "app.loud_notes"}) {
    EXPECT_EQ(fingerprint(target.get(), table), fingerprint(source_.get(), table)) << table;
  }
  EXPECT_EQ(run(target.get(), "SELECT app.add_one(41) || ',' || app.twice(21)"), "42,42");
  EXPECT_EQ(run(target.get(), "SELECT obj_description('app.notes'::regclass)"),
            "Notes; with a semicolon and 'quotes'");
  // setval ran: the next id continues after the copied ones.
  EXPECT_EQ(run(target.get(), "SELECT nextval('app.notes_id_seq')"),
            run(source_.get(), "SELECT nextval('app.notes_id_seq')"));
}

}  // namespace
}  // namespace berth::sqlconsole
