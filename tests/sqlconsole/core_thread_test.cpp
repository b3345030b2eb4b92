// ctest-label: api (starts a real berthd)
// Reads that answer on the core thread that received them (worker_pool.hpp answerSoon): a read
// the database does not answer within core_thread_wait_us moves to the plugin's workers, so it
// never holds the core thread, and the other requests of that thread go on. berthd runs here
// with ONE core server thread: were a slow read to hold it, every other request would wait.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "rows_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::rows_api;
using berth::testing::projects_api::errorText;
using nlohmann::json;

namespace {

constexpr const char* kSchema = R"SQL(
  CREATE TABLE quick (id int PRIMARY KEY, label text NOT NULL);
  INSERT INTO quick VALUES (1, 'one'), (2, 'two');
  CREATE TABLE naps (seconds float NOT NULL);
  INSERT INTO naps VALUES (0);
  CREATE VIEW sleepy AS SELECT pg_sleep((SELECT seconds FROM naps))::text AS slept;
  -- Refused by the database, but only after a pause longer than the core thread waits.
  CREATE VIEW sour AS SELECT pg_sleep(0.2)::text AS slept,
    1 / (SELECT count(*) FROM naps WHERE seconds < 0) AS boom;
)SQL";

class CoreThreadReads : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "sqlconsole"};
    // Kept catalogues stay trusted for the whole suite, so every read after the first is one
    // that may answer on the core thread.
    options.extra_yaml = projects_api::secretsKeyYaml() +
                         "sqlconsole:\n  statement_timeout_seconds: 20\n"
                         "  catalog_recheck_ms: 60000\n  core_thread_wait_us: 2000\n";
    options.set = {"edge.backend_threads=1"};
    startServer(options);
    owner = std::make_unique<Account>(projects_api::makeAccount(*server, "lanes"));
    project = projects_api::mustCreate(server->api(owner->token), "lanes").at("name");
    auto db = projectSession(*server, project);
    db.execSimple(kSchema);
    auto api = server->api(owner->token);
    key = api.get("/projects/" + project + "/data-api").json().at("key");
    for (const char* table : {"quick", "sleepy", "sour"})
      EXPECT_EQ(api.raw("PUT", "/projects/" + project + "/data-api/tables/" + table,
                        R"({"read": true})", {"Content-Type: application/json"})
                    .status,
                200);
  }
  static void TearDownTestSuite() {
    owner.reset();
    dropServer();
  }

  static HttpResult rows(const std::string& table, const std::string& q = "") {
    return server->api(owner->token).get("/projects/" + project + "/tables/" + table + "/rows" + q);
  }
  static HttpResult data(const std::string& table, const std::string& q = "") {
    return sendToHost(server->baseUrl(), project + ".localhost", "GET", "/_data/" + table + q,
                      {"apikey: " + key});
  }
  static void setNap(double seconds) {
    projectSession(*server, project)
        .execSimple("UPDATE naps SET seconds = " + std::to_string(seconds));
  }
  // Waits until the project's database runs a pg_sleep of the view (the slow read is in).
  static bool sleeping() {
    auto db = projectSession(*server, project);
    for (int i = 0; i < 200; ++i) {
      if (scalar(db,
                 "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query "
                 "LIKE '%sleepy%' AND pid <> pg_backend_pid()") != "0")
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }

  // A slow read through `read` and, while it runs, quick ones through the same single core
  // thread: they all answer before the slow one does, which then answers with its rows.
  static void slowReadLeavesTheCoreThread(
      const std::function<HttpResult(const std::string&, const std::string&)>& read,
      const std::string& rows_key) {
    // Warm up: the catalogues kept and the statements prepared on the connection.
    setNap(0);
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(read("sleepy", "").status, 200);
      ASSERT_EQ(read("quick", "?id=eq.2").status, 200);
    }
    const size_t log_before = server->output().size();
    setNap(3);
    auto slow = std::async(std::launch::async, [&] { return read("sleepy", ""); });
    ASSERT_TRUE(sleeping()) << "the slow read never reached the database";
    for (int i = 0; i < 5; ++i) {
      HttpResult quick = read("quick", "?id=eq.2");
      ASSERT_EQ(quick.status, 200) << quick.body;
      json body = quick.json();
      const json& found = rows_key.empty() ? body : body.at(rows_key);
      EXPECT_EQ(found, json::parse(R"([{"id":2,"label":"two"}])"));
    }
    EXPECT_EQ(slow.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
        << "the quick reads waited for the slow one";
    HttpResult slept = slow.get();
    ASSERT_EQ(slept.status, 200) << slept.body;
    json body = slept.json();
    EXPECT_EQ(rows_key.empty() ? body : body.at(rows_key), json::parse(R"([{"slept":""}])"));
    const std::string log = server->output().substr(log_before);
    EXPECT_NE(log.find("project=" + project +
                       "] the database did not answer the read within "
                       "2000 us; a worker waits for it"),
              std::string::npos)
        << log;
    setNap(0);
  }

  static inline std::unique_ptr<Account> owner;
  static inline std::string project, key;
};

TEST_F(CoreThreadReads, ASlowRowsReadMovesToTheWorkers) {
  slowReadLeavesTheCoreThread(rows, "rows");
}

TEST_F(CoreThreadReads, ASlowDataApiReadMovesToTheWorkers) {
  slowReadLeavesTheCoreThread(data, "");
}

TEST_F(CoreThreadReads, ARefusalThatComesAfterTheMoveIsAnsweredByTheWorker) {
  const std::string moved = "the database did not answer the read within 2000 us";
  auto count = [&](const std::string& log) {
    size_t n = 0;
    for (size_t at = log.find(moved); at != std::string::npos; at = log.find(moved, at + 1)) ++n;
    return n;
  };
  const size_t before = count(server->output());
  // The first read of each route loads the catalogue and prepares the statement on the
  // workers; the later ones start on the core thread and move.
  for (int i = 0; i < 3; ++i) {
    HttpResult r = data("sour");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(r.json().value("message", ""), "division by zero");
    EXPECT_EQ(r.json().value("code", ""), "22012");
    r = rows("sour");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(errorText(r), "division by zero");
  }
  EXPECT_GE(count(server->output()) - before, 2u) << "no read moved to the workers";
}

TEST_F(CoreThreadReads, RefusalsAndSchemaChangesOnTheCoreThread) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(data("quick", "?id=eq.1").status, 200);
  // The database's refusal of a value, answered where it came.
  HttpResult r = data("quick", "?id=eq.abc");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json().value("message", ""), "invalid input syntax for type integer: \"abc\"");
  r = rows("quick", "?id=eq.abc");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "invalid input syntax for type integer: \"abc\"");

  // A column added behind the kept (and trusted) catalogue: select=* reads it at once.
  auto db = projectSession(*server, project);
  db.execSimple("ALTER TABLE quick ADD COLUMN extra int DEFAULT 7");
  r = data("quick", "?id=eq.1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json::parse(R"([{"id":1,"label":"one","extra":7}])"));
  // A renamed one: the kept catalogue refuses the new name, a fresh one has it.
  db.execSimple("ALTER TABLE quick RENAME COLUMN label TO title");
  r = rows("quick", "?select=title&id=eq.1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("rows"), json::parse(R"([{"title":"one"}])"));
  r = data("quick", "?select=label");
  EXPECT_EQ(r.status, 400) << r.body;
  db.execSimple("ALTER TABLE quick RENAME COLUMN title TO label; ALTER TABLE quick DROP extra");
}

}  // namespace
