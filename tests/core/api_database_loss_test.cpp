// ctest-label: api (starts a real berthd)
// The control-plane database goes away mid-run: token checks answer 503 with the spec's text,
// and once it is back the next requests succeed without restarting berthd. Its own program,
// because it stops the test cluster that every test in the process shares.
#include <gtest/gtest.h>

#include <thread>

#include "support/berthd_process.hpp"
#include "support/pg_cluster.hpp"

using namespace berth::testing;

TEST(ApiDatabaseLoss, AnswersServiceUnavailableThenRecovers) {
  BerthdOptions options;
  options.plugins = {"projects", "hello"};
  BerthdProcess server(options);
  server.start();
  std::string token = server.createAccountWithToken("db@example.com");
  auto api = server.api(token);
  ASSERT_EQ(api.get("/hello/accesses").status, 200);

  sharedCluster().kill();
  auto r = api.get("/hello/accesses");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.json().value("error", ""), "could not check your session");
  r = api.post("/hello/visits", nlohmann::json::object());
  EXPECT_EQ(r.status, 503) << r.body;
  // Routes that do not need the database keep working.
  EXPECT_EQ(server.api().get("/regions").status, 200);

  sharedCluster().start();
  // The request that meets a dead pooled connection may still get 503; the next succeeds.
  int status = 0;
  for (int attempt = 0; attempt < 3 && status != 200; ++attempt)
    status = static_cast<int>(api.get("/hello/accesses").status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(api.post("/hello/visits", nlohmann::json::object()).status, 200);
  EXPECT_TRUE(server.running());
}
