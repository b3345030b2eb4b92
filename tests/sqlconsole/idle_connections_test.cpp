// ctest-label: api (starts a real berthd)
// Kept connections to project databases are closed once idle for idle_connection_seconds: a
// project nobody uses now holds none of PostgreSQL's limited connections, and the next request
// simply opens one again.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "rows_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::rows_api;

namespace {

class IdleConnections : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "sqlconsole"};
    options.extra_yaml = projects_api::secretsKeyYaml() +
                         "sqlconsole:\n  idle_connections: 4\n  idle_connection_seconds: 1\n";
    startServer(options);
    owner = std::make_unique<Account>(projects_api::makeAccount(*server, "idle"));
    project = projects_api::mustCreate(server->api(owner->token), "idle").at("name");
    projectSession(*server, project).execSimple("CREATE TABLE notes (id int PRIMARY KEY)");
  }
  static void TearDownTestSuite() {
    owner.reset();
    stopServer();
  }

  // berthd's sessions on the project's database (every one but the counting one).
  static int berthdSessions() {
    auto db = projectSession(*server, project);
    return std::stoi(scalar(db,
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                            "current_database() AND pid <> pg_backend_pid()"));
  }

  static int sessionsWithin(std::chrono::seconds limit, int wanted) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int now = berthdSessions();
    while (now != wanted && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      now = berthdSessions();
    }
    return now;
  }

  static HttpResult rows() {
    return server->api(owner->token).get("/projects/" + project + "/tables/notes/rows");
  }

  static inline std::unique_ptr<Account> owner;
  static inline std::string project;
};

TEST_F(IdleConnections, AKeptConnectionIsClosedOnceIdleAndTheNextRequestOpensOne) {
  ASSERT_EQ(rows().status, 200);
  // Kept for the next request a moment after it answered...
  EXPECT_GE(berthdSessions(), 1);
  // ...and closed once idle for a second (the job looks every second).
  EXPECT_EQ(sessionsWithin(std::chrono::seconds(20), 0), 0);
  // The next request is served all the same, on a connection opened for it.
  ASSERT_EQ(rows().status, 200);
  EXPECT_GE(berthdSessions(), 1);
}

}  // namespace
