// ctest-label: api (starts a real berthd)
// berthd's life: start-up refusals that name what is wrong, SIGTERM with a request in flight,
// the embedded PostgreSQL across restarts, migrations applied once.
#include <gtest/gtest.h>

#include <signal.h>

#include <fstream>
#include <thread>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"

using namespace berth::testing;

namespace {

// Starts berthd expecting a refusal; returns what it printed.
std::string refusal(BerthdOptions options) {
  BerthdProcess server(std::move(options));
  try {
    server.start();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "berthd started although it should have refused";
  return "";
}

// Alive and not a zombie waiting for a late reaper.
bool processLives(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, name, state;
  if (!(stat >> pid_text >> name >> state)) return false;
  return state != "Z" && state != "X";
}

}  // namespace

TEST(ApiLifecycle, SigkilledBerthdTakesItsEdgeAlong) {
  BerthdProcess server;
  server.start();
  pid_t nginx = 0;
  std::ifstream(server.dataDir() + "/edge/nginx.pid") >> nginx;
  ASSERT_GT(nginx, 0);
  ASSERT_TRUE(processLives(nginx));
  ::kill(server.pid(), SIGKILL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (processLives(nginx) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(processLives(nginx)) << "nginx " << nginx << " outlived its berthd";
  EXPECT_NE(server.api().get("/regions").status, 200);
}

TEST(ApiLifecycle, SigtermLetsTheRequestInFlightFinishAndExitsZero) {
  BerthdOptions options;
  options.plugins = {"projects", "edgecheck"};
  BerthdProcess server(options);
  server.start();
  HttpResult slow;
  std::thread client([&] { slow = server.api().get("/edgecheck/slow?ms=1500"); });
  // Until berthd has the request (a fixed pause was too short on a loaded machine).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (server.output().find("edgecheck: slow request in flight") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto status = server.terminate();
  client.join();
  EXPECT_EQ(slow.status, 200) << slow.body << slow.error;
  EXPECT_EQ(slow.json().value("slept_ms", 0), 1500);
  EXPECT_TRUE(status.exited) << "killed by signal " << status.signal;
  EXPECT_EQ(status.code, 0);
  // nginx went with it.
  EXPECT_NE(server.api().get("/regions").status, 200);
  std::string out = server.output();
  EXPECT_NE(out.find("draining"), std::string::npos) << out;
  EXPECT_NE(out.find("stopped"), std::string::npos) << out;
}

TEST(ApiLifecycle, EmbeddedDatabaseStartsAndKeepsItsDataAcrossRestarts) {
  std::string data_dir = makeTempDir("berthd-embedded") + "/data";
  std::string token;
  {
    BerthdOptions options;
    options.embedded_database = true;
    options.data_dir = data_dir;
    BerthdProcess server(options);
    server.start();
    token = server.createAccountWithToken("keep@example.com");
    EXPECT_EQ(server.api(token).get("/nothing").status, 404);
    auto status = server.terminate();
    EXPECT_EQ(status.code, 0);
  }
  {
    BerthdOptions options;
    options.embedded_database = true;
    options.data_dir = data_dir;
    BerthdProcess server(options);
    server.start();
    auto r = server.api(token).get("/nothing");
    EXPECT_EQ(r.status, 404) << "the token made before the restart was lost: " << r.body;
    EXPECT_EQ(r.json().value("error", ""), "no such route");
  }
  removeTree(std::filesystem::path(data_dir).parent_path().string());
}

TEST(ApiLifecycle, MigrationsAreAppliedOnce) {
  BerthdOptions options;
  options.plugins = {"projects", "hello"};
  BerthdProcess server(options);
  server.start();
  berth::core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(5));
  auto count = [&] {
    return std::stoi(db.exec("SELECT count(*) FROM core.schema_migrations").value(0, 0));
  };
  int first = count();
  EXPECT_GE(first, 2);  // the core's and hello's
  server.terminate();
  auto migrate = server.admin({"migrate"});
  ASSERT_TRUE(migrate.status.ok()) << migrate.output;
  EXPECT_NE(migrate.output.find("\"applied\":0"), std::string::npos) << migrate.output;
  server.start();
  EXPECT_EQ(count(), first);
}

TEST(ApiLifecycle, ConfigErrorsStopStartUpNamingKeyAndFile) {
  BerthdOptions options;
  options.set = {"server.listen=nowhere"};
  std::string out = refusal(options);
  EXPECT_NE(out.find("server.listen"), std::string::npos) << out;
  EXPECT_NE(out.find("berth.yaml"), std::string::npos) << out;

  BerthdOptions unknown;
  unknown.extra_yaml = "hello:\n  greting: hi\n";
  unknown.plugins = {"projects", "hello"};
  out = refusal(unknown);
  EXPECT_NE(out.find("hello.greting"), std::string::npos) << out;
}

TEST(ApiLifecycle, PluginFailuresStopStartUpNamingThePlugin) {
  struct Case {
    std::string plugin, expected;
  };
  std::vector<Case> cases = {
      {"nosuchplugin", "nosuchplugin"},
      {"wrongabi", "ABI"},
      {"throwsonstart", "cannot start: testing"},
      {"needsmissing", "nosuchplugin"},
      {"badid", "badid"},
  };
  for (const auto& c : cases) {
    BerthdOptions options;
    options.plugins = {"projects", c.plugin};
    std::string out = refusal(options);
    EXPECT_NE(out.find("plugin " + c.plugin), std::string::npos) << c.plugin << ": " << out;
    EXPECT_NE(out.find(c.expected), std::string::npos) << c.plugin << ": " << out;
  }
  BerthdOptions dupe;
  dupe.plugins = {"hello", "dupe_route"};
  std::string out = refusal(dupe);
  EXPECT_NE(out.find("hello"), std::string::npos) << out;
  EXPECT_NE(out.find("dupe_route"), std::string::npos) << out;
}
