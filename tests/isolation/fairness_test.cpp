// ctest-label: api (starts a real berthd)
// Fair shares of the database console, tried as a hostile tenant would, against a real berthd and
// PostgreSQL: an attacker project starts more slow statements than the console has workers, and
// while they still run (seen in pg_stat_activity, their requests unanswered) a victim project's
// `select 1` answers. A project runs at most project_concurrency statements at once and queues
// the rest, up to project_queue (then 503 with Retry-After). Imports and exports have a
// wall-clock limit, and an export reads with row_security off, so a policy with a slow function
// cannot hold it. Every check is by order (what has answered while what is still running), never
// by how long something took.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "sqlconsole/sql_api_support.hpp"

using namespace berth::testing;
using namespace berth::testing::sqlconsole_api;
using nlohmann::json;

namespace {

constexpr int kWorkers = 4;
constexpr int kPerProject = 2;
constexpr int kQueue = 4;
constexpr int kTransferSeconds = 3;

class Fairness : public SqlconsoleSuite {
 protected:
  static void SetUpTestSuite() {
    startServer("sqlconsole:\n  workers: " + std::to_string(kWorkers) +
                "\n  project_concurrency: " + std::to_string(kPerProject) +
                "\n  project_queue: " + std::to_string(kQueue) +
                "\n  statement_timeout_seconds: 300\n  transfer_timeout_seconds: " +
                std::to_string(kTransferSeconds) + "\n");
    attackerAccount = new Account(makeAccount(*server, "fairatk"));
    victimAccount = new Account(makeAccount(*server, "fairvic"));
    attacker = new TestProject(makeProject(*server, api(*attackerAccount), "atk", "fairatk"));
    victim = new TestProject(makeProject(*server, api(*victimAccount), "vic", "fairvic"));
  }
  static void TearDownTestSuite() {
    delete attacker;
    delete victim;
    delete attackerAccount;
    delete victimAccount;
    SqlconsoleSuite::TearDownTestSuite();
  }

  // A request that may take long (curl's own limit well past the statements' sleep).
  static HttpResult slowPost(const Account& who, const std::string& path, const json& body) {
    HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = server->baseUrl() + path;
    spec.body = body.dump();
    spec.headers = {"Content-Type: application/json", "Authorization: Bearer " + who.token};
    spec.timeout_ms = 180000;
    return send(spec);
  }
  static HttpResult query(const Account& who, const TestProject& p, const std::string& sql) {
    return slowPost(who, "/projects/" + p.name + "/query", {{"sql", sql}});
  }

  // Sessions of the project's role sleeping in pg_sleep (as seen by the superuser).
  static int sleeping(const TestProject& p) {
    return std::stoi(scalar(sharedCluster().superuserUrl(),
                            "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + p.role +
                                "' AND state = 'active' AND wait_event = 'PgSleep'"));
  }
  static void cancelSleeps(const TestProject& p) {
    rowsOf(sharedCluster().superuserUrl(),
           "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = '" + p.role +
               "' AND wait_event = 'PgSleep'");
  }
  // Ends every request still waiting: their statements are cancelled as they start.
  static void cancelUntilAnswered(const TestProject& p,
                                  std::vector<std::future<HttpResult>>& pending) {
    for (auto& f : pending) {
      if (!f.valid()) continue;  // answered and read already
      while (f.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
        cancelSleeps(p);
    }
  }
  static size_t answered(std::vector<std::future<HttpResult>>& pending) {
    size_t n = 0;
    for (auto& f : pending)
      if (!f.valid() || f.wait_for(std::chrono::seconds(0)) == std::future_status::ready) ++n;
    return n;
  }

  static inline Account* attackerAccount = nullptr;
  static inline Account* victimAccount = nullptr;
  static inline TestProject* attacker = nullptr;
  static inline TestProject* victim = nullptr;
};

// Seven statements are sent: two run, four wait in the project's queue, and the seventh is
// refused because the queue is full. That refusal proves the other six reached berthd; only two
// of them sleep in the database (the third and later wait in the queue), and the victim answers
// before any of them.
TEST_F(Fairness, AVictimsSelectAnswersWhileTheAttackersSlowStatementsStillRun) {
  // Both projects have been seen once (kept), as in everyday use.
  ASSERT_EQ(query(*attackerAccount, *attacker, "select 1").status, 200);
  ASSERT_EQ(query(*victimAccount, *victim, "select 1").status, 200);

  // More slow statements than the console has workers, plus one past the project's queue.
  const int slow = kPerProject + kQueue + 1;
  static_assert(kPerProject + kQueue + 1 > kWorkers);
  std::vector<std::future<HttpResult>> pending;
  for (int i = 0; i < slow; ++i)
    pending.push_back(std::async(std::launch::async, [] {
      return query(*attackerAccount, *attacker, "select pg_sleep(120)");
    }));

  // The project's cap: two of them run, the rest wait in its queue, one more is refused.
  ASSERT_TRUE(projects_api::eventually([&] { return sleeping(*attacker) >= kPerProject; }))
      << "the attacker's statements never reached the database";
  ASSERT_TRUE(projects_api::eventually([&] { return answered(pending) >= 1; }))
      << "no request was refused past the project's queue";

  // While they still run and none of the others has answered, the victim's select answers.
  HttpResult victims = query(*victimAccount, *victim, "select 1 as one");
  ASSERT_EQ(victims.status, 200) << victims.body << victims.error;
  EXPECT_EQ(victims.json().at("rows"), json::parse(R"([{"one":1}])"));
  EXPECT_EQ(sleeping(*attacker), kPerProject) << "the attacker ran more than its share at once";
  // What has answered so far are refusals past the queue, never a slow statement. (Usually
  // one; two when the task of the earlier select still held its place in the lane for a moment
  // after it answered.)
  std::vector<HttpResult> refusals;
  for (auto& f : pending) {
    if (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
    HttpResult refused = f.get();
    EXPECT_EQ(refused.status, 503)
        << "an attacker's statement ended before the victim answered: " << refused.body;
    EXPECT_EQ(refused.header("retry-after"), "1");
    EXPECT_EQ(projects_api::errorText(refused),
              "this project already has 4 database requests waiting (sqlconsole.project_queue) "
              "behind the 2 it may run at once (sqlconsole.project_concurrency); try again when "
              "some have answered");
    refusals.push_back(std::move(refused));
  }
  ASSERT_GE(refusals.size(), 1u);
  ASSERT_LE(refusals.size(), 2u);

  // The queued ones run as the running ones end, still two at a time: one ends (cancelled),
  // and another of the queue starts while the rest still wait.
  rowsOf(sharedCluster().superuserUrl(),
         "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = '" + attacker->role +
             "' AND wait_event = 'PgSleep' LIMIT 1");
  ASSERT_TRUE(projects_api::eventually([&] { return answered(pending) == refusals.size() + 1; }));
  ASSERT_TRUE(projects_api::eventually([&] { return sleeping(*attacker) == kPerProject; }))
      << "no queued statement started after one of the two ended";
  EXPECT_EQ(answered(pending), refusals.size() + 1);
  cancelUntilAnswered(*attacker, pending);
}

// A function that sleeps for every row a policy looks at.
const std::vector<std::string> kPolicySchema = {
    "CREATE TABLE guarded (id int PRIMARY KEY, note text)",
    "INSERT INTO guarded VALUES (1, 'kept'), (2, 'also kept')",
    "CREATE FUNCTION slow_check() RETURNS boolean LANGUAGE plpgsql AS "
    "$$ BEGIN PERFORM pg_sleep(60); RETURN true; END $$",
    "ALTER TABLE guarded ENABLE ROW LEVEL SECURITY",
    "CREATE POLICY slow_policy ON guarded USING (slow_check())",
};

TEST_F(Fairness, AnExportIsNotHeldByARowLevelSecurityPolicy) {
  ApiClient owner = api(*victimAccount);
  TestProject p = makeProject(*server, owner, "rls", "fairvic");
  mustBatch(owner, p.name, kPolicySchema);
  mustBatch(owner, p.name, {"ALTER TABLE guarded FORCE ROW LEVEL SECURITY"});
  // The policy applies to the table's owner (FORCE): were it run, every export would sleep
  // 60 s a row and then be stopped by the 3-second limit. With row_security off the database
  // refuses at once, naming the table, and the export says so.
  for (const char* format : {"json", "mysql", "postgres"}) {
    HttpResult r = owner.get("/projects/" + p.name + "/export?format=" + format);
    EXPECT_EQ(r.status, 400) << format << ": " << r.body;
    EXPECT_EQ(projects_api::errorText(r),
              "table guarded forces row-level security on its owner (FORCE ROW LEVEL "
              "SECURITY); an export reads every row with row_security off and runs no policy, "
              "so it cannot read that table: turn FORCE off (ALTER TABLE ... NO FORCE ROW "
              "LEVEL SECURITY) to export it")
        << format;
  }
  EXPECT_EQ(sleeping(p), 0);
  // Without FORCE the owner is exempt from its own policies: the export has every row, and
  // the policy never ran (it would have been stopped by the limit).
  mustBatch(owner, p.name, {"ALTER TABLE guarded NO FORCE ROW LEVEL SECURITY"});
  HttpResult r = owner.get("/projects/" + p.name + "/export?format=json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("tables").at("guarded").size(), 2u) << r.body;
}

// Holds an ACCESS EXCLUSIVE lock on a table of p, in a transaction of the test's own, until it
// goes out of scope.
class TableLock {
 public:
  TableLock(const TestProject& p, const std::string& table) : conn_(connectTo(p.url)) {
    exec("BEGIN");
    exec("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
  }
  ~TableLock() { PQclear(PQexec(conn_.get(), "ROLLBACK")); }
  bool stillHeld() const { return PQtransactionStatus(conn_.get()) == PQTRANS_INTRANS; }

 private:
  void exec(const std::string& sql) {
    PGresult* r = PQexec(conn_.get(), sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) throw std::runtime_error(sql + ": " + PQerrorMessage(conn_.get()));
  }
  Conn conn_;
};

TEST_F(Fairness, AnExportOverTheWallClockLimitIsStoppedAndEndsItsSession) {
  ApiClient owner = api(*victimAccount);
  TestProject p = makeProject(*server, owner, "slowexp", "fairvic");
  mustBatch(owner, p.name, {"CREATE TABLE held (x int)", "INSERT INTO held VALUES (1)"});
  for (const char* format : {"json", "postgres"}) {
    TableLock lock(p, "held");  // the export waits for it, and would wait as long as it is held
    HttpResult r = owner.get("/projects/" + p.name + "/export?format=" + format);
    EXPECT_TRUE(lock.stillHeld());
    EXPECT_EQ(r.status, 400) << format << ": " << r.body;
    EXPECT_EQ(projects_api::errorText(r),
              "the export ran longer than 3 seconds (sqlconsole.transfer_timeout_seconds) and "
              "was stopped")
        << format;
    // Nothing of the export is left waiting on the database.
    EXPECT_TRUE(projects_api::eventually([&] {
      return scalar(sharedCluster().superuserUrl(),
                    "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + p.role +
                        "' AND wait_event_type = 'Lock'") == "0";
    })) << format;
  }
  // Once nothing holds it, the same export answers.
  EXPECT_EQ(owner.get("/projects/" + p.name + "/export?format=json").status, 200);
}

TEST_F(Fairness, AnImportOverTheWallClockLimitIsStoppedAndKeepsNothing) {
  ApiClient owner = api(*victimAccount);
  TestProject p = makeProject(*server, owner, "slowimp", "fairvic");
  HttpResult r = importScript(owner, p.name,
                              "CREATE TABLE made_by_import (x int);\n"
                              "INSERT INTO made_by_import VALUES (1);\n"
                              "SELECT pg_sleep(120);\n"
                              "INSERT INTO made_by_import VALUES (2);\n");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(projects_api::errorText(r),
            "the import ran longer than 3 seconds (sqlconsole.transfer_timeout_seconds) and was "
            "stopped; nothing was kept");
  EXPECT_EQ(scalar(p.url, "SELECT to_regclass('public.made_by_import')::text"), "<null>");
  EXPECT_EQ(sleeping(p), 0);
}

}  // namespace
