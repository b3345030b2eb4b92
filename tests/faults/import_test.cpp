// ctest-label: e2e
// A 200 MB SQL import (POST /projects/{name}/import: a CREATE TABLE and INSERT statements, all
// in one transaction) with berthd killed (SIGKILL) or stopped (SIGSTOP past the client's
// timeout, then SIGCONT) at random points: afterwards the table is either absent or has every
// row with every byte; an import answered 200 is there; nothing is left in the spool; every route
// answers.
#include <gtest/gtest.h>

#include "fault_case.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;

namespace {

constexpr int kRowsPerStatement = 100;
constexpr int kStatements = 2000;
constexpr int kRows = kRowsPerStatement * kStatements;
constexpr size_t kBodyChars = 990;  // each row's text; 200 MB in all with the SQL around it

// The script, made in pieces as a dump would be written: one CREATE TABLE, then INSERTs.
std::string importScript(const std::string& table) {
  std::string sql;
  sql.reserve(size_t(kRows) * (kBodyChars + 24) + 4096);
  sql += "-- made by the import fault case\nSET client_encoding = 'UTF8';\n";
  sql += "CREATE TABLE " + table + " (id integer PRIMARY KEY, body text NOT NULL);\n";
  const std::string filler(kBodyChars - 10, 'q');
  int id = 0;
  for (int s = 0; s < kStatements; ++s) {
    sql += "INSERT INTO " + table + " (id, body) VALUES ";
    for (int r = 0; r < kRowsPerStatement; ++r, ++id) {
      char head[16];
      std::snprintf(head, sizeof head, "%010d", id);
      sql += r ? ",(" : "(";
      sql += std::to_string(id) + ",'" + head + filler + "')";
    }
    sql += ";\n";
  }
  return sql;
}

// The table's rows and bytes, or nullopt when the table does not exist.
std::optional<std::pair<int64_t, int64_t>> tableState(FaultCase& c, const std::string& table,
                                                      Findings& findings) {
  auto r = c.api().post("/projects/" + c.projectName("imports") + "/query",
                        {{"sql",
                          "select count(*) as n, coalesce(sum(length(body)), 0) as bytes, "
                          "count(distinct id) as ids from " +
                              table}});
  if (r.status == 400 && r.body.find("does not exist") != std::string::npos) return std::nullopt;
  if (r.status != 200) {
    findings.add("the query of " + table + " answered " + std::to_string(r.status) + ": " + r.body);
    return std::nullopt;
  }
  auto row = r.json()["rows"][0];
  auto number = [](const nlohmann::json& v) {
    return v.is_string() ? std::stoll(v.get<std::string>()) : v.get<int64_t>();
  };
  if (number(row["ids"]) != number(row["n"])) findings.add(table + " has repeated ids");
  return std::make_pair(number(row["n"]), number(row["bytes"]));
}

void checkTable(FaultCase& c, const std::string& table, bool answered_200, Findings& findings) {
  auto state = tableState(c, table, findings);
  if (!state) {
    if (answered_200) findings.add("the import of " + table + " answered 200 but it is absent");
    return;
  }
  if (state->first != kRows || state->second != int64_t(kRows) * int64_t(kBodyChars))
    findings.add(table + " is half there: " + std::to_string(state->first) + " rows, " +
                 std::to_string(state->second) + " bytes (whole: " + std::to_string(kRows) +
                 " rows)");
}

}  // namespace

TEST(FaultImport, KilledOrStoppedBerthdLeavesAllRowsOrNone) {
  for (FaultMode mode : faultModes()) {
    FaultCase c("import", mode);
    c.createProject("imports");
    const std::string route = "/projects/" + c.projectName("imports") + "/import";
    auto import = [&](const std::string& script, long timeout_ms) {
      return rawWithTimeout(c, "POST", route, script, {"Content-Type: application/octet-stream"},
                            timeout_ms);
    };
    std::string warm_script = importScript("warm");
    ASSERT_GT(warm_script.size(), 200u * 1000 * 1000);  // 200 MB
    HttpResult warm;
    milliseconds unfaulted = measure([&] { warm = import(warm_script, 600000); });
    ASSERT_EQ(warm.status, 200) << warm.body << warm.error;
    std::cout << "unfaulted import of " << (warm_script.size() >> 20)
              << " MB: " << unfaulted.count() << " ms" << std::endl;
    warm_script.clear();
    warm_script.shrink_to_fit();
    for (int round = 0; round < faultRounds(); ++round) {
      const std::string table = "t" + std::to_string(round);
      const std::string script = importScript(table);
      milliseconds at = c.random().pointWithin(unfaulted);
      FaultRun run =
          c.strike([&] { return import(script, c.clientTimeoutMs(at, unfaulted.count())); }, at);
      Findings findings;
      // After a stop the import may go on: the table is whole or absent at every moment, but
      // the next round's import must not queue behind this one.
      if (mode == FaultMode::Stop)
        waitDatabaseQuiet(c.server().clusterUrl(), "p_" + c.projectId("imports"));
      checkTable(c, table, run.answer.status == 200, findings);
      checkTable(c, "warm", true, findings);
      c.finishPoint(findings, describePoint(round, run));
    }
    EXPECT_EQ(c.tally().inconsistent(), 0) << "seed " << faultSeed();
  }
}
