// Project logs: the JSON shape and limit rule of GET /projects/{name}/logs (docs/openapi.yaml),
// the bounded buffer, and the insert/trim/select statements on the migration's table in a real
// PostgreSQL.
#include "log_store.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "support/pg_cluster.hpp"

using namespace berth::runtime;

namespace {

TEST(LogEntryJson, HasEveryFieldWithNullsForAbsentOnes) {
  LogEntry request{1700000000, "request", "GET", "/api", 200, 12, ""};
  EXPECT_EQ(logEntryJson(request),
            nlohmann::json::parse(R"({"at": 1700000000, "kind": "request", "method": "GET",
              "path": "/api", "status": 200, "ms": 12, "message": ""})"));
  LogEntry line{5, "process", std::nullopt, std::nullopt, std::nullopt, std::nullopt, "hi"};
  EXPECT_EQ(logEntryJson(line),
            nlohmann::json::parse(R"({"at": 5, "kind": "process", "method": null, "path": null,
              "status": null, "ms": null, "message": "hi"})"));
  EXPECT_TRUE(isLogKind("schedule"));
  EXPECT_FALSE(isLogKind("debug"));
}

TEST(LogLimit, DefaultRangeAndErrors) {
  EXPECT_EQ(parseLogLimit(std::nullopt).value, 100);
  EXPECT_EQ(parseLogLimit("1").value, 1);
  EXPECT_EQ(parseLogLimit("1000").value, 1000);
  for (const char* bad : {"0", "1001", "-1", "abc", "", "10.5", "99999", " 5", "99999999999999"}) {
    auto limit = parseLogLimit(std::string_view(bad));
    ASSERT_TRUE(limit.error) << bad;
    EXPECT_EQ(*limit.error, "limit must be a whole number from 1 to 1000");
  }
}

TEST(LogCursor, AbsentGivenOrRefused) {
  EXPECT_FALSE(parseLogCursor(std::nullopt).after);
  EXPECT_FALSE(parseLogCursor(std::nullopt).error);
  EXPECT_EQ(parseLogCursor("0").after, 0);
  EXPECT_EQ(parseLogCursor(logCursorText(123456789012)).after, 123456789012);
  for (const char* bad :
       {"", "-1", "abc", "1.5", " 5", "5 ", "1234567890123456789", "99999999999999999999999"}) {
    auto cursor = parseLogCursor(std::string_view(bad));
    ASSERT_TRUE(cursor.error) << bad;
    EXPECT_FALSE(cursor.after) << bad;
    EXPECT_EQ(*cursor.error, "after must be a cursor from an earlier answer");
  }
}

TEST(LogBuffer, BoundedPerProjectAndSaysWhatWasDropped) {
  LogBuffer buffer(3, 10);
  for (int i = 0; i < 5; ++i)
    buffer.add("p1", LogEntry{i, "process", {}, {}, {}, {}, "line " + std::to_string(i)});
  buffer.add("p2", LogEntry{9, "process", {}, {}, {}, {}, "0123456789 and more"});
  auto taken = buffer.take();
  ASSERT_EQ(taken["p1"].size(), 4u);
  EXPECT_EQ(taken["p1"][0].kind, "platform");
  EXPECT_EQ(taken["p1"][0].message,
            "2 log lines were dropped: the app printed faster than they are stored");
  EXPECT_EQ(taken["p1"][1].message, "line 2");
  EXPECT_EQ(taken["p1"][3].message, "line 4");
  ASSERT_EQ(taken["p2"].size(), 1u);
  EXPECT_EQ(taken["p2"][0].message, "0123456789");
  EXPECT_TRUE(buffer.take().empty()) << "taking empties the buffer";
}

TEST(LogBuffer, CutsLongMessagesBetweenCharacters) {
  LogBuffer buffer(3, 10);
  buffer.add("p", LogEntry{1, "process", {}, {}, {}, {}, "012345678\xC3\xA9 more"});
  buffer.add("p", LogEntry{2, "process", {}, {}, {}, {}, "01234567\xC3\xA9 more"});
  auto taken = buffer.take();
  ASSERT_EQ(taken["p"].size(), 2u);
  EXPECT_EQ(taken["p"][0].message, "012345678") << "é straddles the cut: it is dropped whole";
  EXPECT_EQ(taken["p"][1].message, "01234567\xC3\xA9") << "é ends at the cut: it stays";
}

TEST(LogBatchJson, InvalidUtf8FromAnAppDoesNotFailTheBatch) {
  std::vector<LogEntry> entries{{1, "process", {}, {}, {}, {}, std::string("bad \xff byte")}};
  auto json = nlohmann::json::parse(logBatchJson(entries));
  EXPECT_EQ(json[0]["message"], "bad \xEF\xBF\xBD byte");
}

struct ConnFinish {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultClear {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultClear>;

class LogTable : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    url_ = berth::testing::sharedCluster().createDatabase("runtime_logs");
    conn_.reset(PQconnectdb(url_.c_str()));
    ASSERT_EQ(PQstatus(conn_.get()), CONNECTION_OK) << PQerrorMessage(conn_.get());
    std::ifstream in(std::string(BERTH_TEST_SOURCE_DIR) +
                     "/plugins/runtime/migrations/0001_releases_and_logs.sql");
    std::stringstream sql;
    sql << in.rdbuf();
    Result r(PQexec(conn_.get(), sql.str().c_str()));
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn_.get());
  }
  static void TearDownTestSuite() { conn_.reset(); }

  static Result run(const char* sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    return Result(PQexecParams(conn_.get(), sql, static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0));
  }
  static void store(const std::string& project, const std::vector<LogEntry>& entries, int keep) {
    Result begin(PQexec(conn_.get(), "BEGIN"));
    Result insert = run(kInsertLogsSql, {project, logBatchJson(entries)});
    ASSERT_EQ(PQresultStatus(insert.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn_.get());
    Result trim = run(kTrimLogsSql, {project, std::to_string(keep)});
    ASSERT_EQ(PQresultStatus(trim.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn_.get());
    Result commit(PQexec(conn_.get(), "COMMIT"));
  }

  static inline std::string url_;
  static inline std::unique_ptr<PGconn, ConnFinish> conn_;
};

TEST_F(LogTable, NewestFirstBoundedPerProject) {
  for (int batch = 0; batch < 5; ++batch) {
    std::vector<LogEntry> entries;
    for (int i = 0; i < 30; ++i) {
      const int n = batch * 30 + i;
      entries.push_back({n, "process", {}, {}, {}, {}, "line " + std::to_string(n)});
    }
    store("p7", entries, 100);
  }
  store("p8", {{1, "request", "GET", "/x", 404, 3, ""}}, 100);

  Result count = run("SELECT count(*) FROM runtime_logs WHERE project_id = 'p7'", {});
  EXPECT_STREQ(PQgetvalue(count.get(), 0, 0), "100") << "the oldest 50 were trimmed";

  Result rows = run(kSelectLogsSql, {"p7", "3"});
  ASSERT_EQ(PQntuples(rows.get()), 3);
  EXPECT_STREQ(PQgetvalue(rows.get(), 0, 6), "line 149") << "newest first";
  EXPECT_STREQ(PQgetvalue(rows.get(), 2, 6), "line 147");
  EXPECT_TRUE(PQgetisnull(rows.get(), 0, 2)) << "a process line has no method";

  Result other = run(kSelectLogsSql, {"p8", "100"});
  ASSERT_EQ(PQntuples(other.get()), 1) << "trimming one project leaves the others alone";
  EXPECT_STREQ(PQgetvalue(other.get(), 0, 1), "request");
  EXPECT_STREQ(PQgetvalue(other.get(), 0, 4), "404");
}

TEST_F(LogTable, UnknownKindIsRefusedByTheTable) {
  Result insert = run(kInsertLogsSql, {"p9", logBatchJson({{1, "debug", {}, {}, {}, {}, "x"}})});
  EXPECT_EQ(PQresultStatus(insert.get()), PGRES_FATAL_ERROR);
}

TEST_F(LogTable, OneLiveAndOneBuildingReleasePerProject) {
  Result a =
      run("INSERT INTO runtime_releases (id, project_id, project, account_id, status, region) "
          "VALUES ('r1', 'p1', 'one', 'a1', 'building', 'us-central')",
          {});
  ASSERT_EQ(PQresultStatus(a.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn_.get());
  Result b =
      run("INSERT INTO runtime_releases (id, project_id, project, account_id, status, region) "
          "VALUES ('r2', 'p1', 'one', 'a1', 'building', 'us-central')",
          {});
  EXPECT_EQ(PQresultStatus(b.get()), PGRES_FATAL_ERROR) << "a second build of one project";
  EXPECT_STREQ(PQresultErrorField(b.get(), PG_DIAG_SQLSTATE), "23505");
}

}  // namespace
