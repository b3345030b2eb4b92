// ctest-label: api (two real berthds on one PostgreSQL) A secret set or deleted through any node
// reaches the project's app on the node running it: node A runs the app (its owner), the secret
// is set through node B's API, and A's app answers the new value, restarted once. A change
// through A itself restarts the app once, not twice (its hook and its NOTIFY both reach A).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "host_requests.hpp"
#include "projects/api_support.hpp"
#include "support/eventually.hpp"
#include "support/release_upload.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using nlohmann::json;

namespace {

// Counts its starts in a file of its HOME and answers GREETING with a per-process instance.
const char* const kGreetingApp = R"JS(
const instance = process.pid + '.' + Math.random().toString(36).slice(2, 10);
require('fs').appendFileSync(process.env.HOME + '/starts.log', instance + '\n');
require('http').createServer((req, res) => {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({instance, greeting: process.env.GREETING || null}));
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

int countLines(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (!line.empty()) ++n;
  return n;
}

class ApiSecretNodes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions a;
    a.plugins = {"projects", "storage", "runtime"};
    a.extra_yaml = secretsKeyYaml() +
                   "  creation_burst: 100\n"
                   "runtime:\n  start_timeout_seconds: 20\n  stop_grace_seconds: 2\n";
    nodeA = new BerthdProcess(a);
    nodeA->start();
    options_b = new BerthdOptions(a);
    options_b->set = {"database.url=" + nodeA->databaseUrl()};  // one control plane for both
    owner = new Account(makeAccount(*nodeA, "secretnodes"));
  }
  static void TearDownTestSuite() {
    delete owner;
    delete nodeB;
    delete nodeA;
    delete options_b;
  }

  // B starts once A built and runs the app: with local storage only A has the upload, and B
  // must not take the build.
  static void startB() {
    if (nodeB) return;
    nodeB = new BerthdProcess(*options_b);
    nodeB->start();
  }

  static ApiClient apiA() { return nodeA->api(owner->token); }
  static ApiClient apiB() { return nodeB->api(owner->token); }

  static void setGreeting(const ApiClient& api, const std::string& name, const std::string& value) {
    auto r = api.post("/projects/" + name + "/secrets",
                      {{"name", "GREETING"}, {"value", value}, {"scope", "runtime"}});
    ASSERT_EQ(r.status, 201) << r.body;
  }

  // Asks A's app until it greets with `expected` (null: no GREETING); its answer.
  static json greetsOnA(const std::string& name, const json& expected) {
    json seen;
    EXPECT_TRUE(eventually(
        [&] {
          auto r = onProjectHost(*nodeA, name, "/");
          if (r.status != 200) return false;
          seen = r.json();
          return seen.value("greeting", json()) == expected;
        },
        std::chrono::seconds(20)))
        << "expected " << expected.dump() << ", last answer " << seen.dump();
    return seen;
  }

  static BerthdProcess* nodeA;
  static BerthdProcess* nodeB;
  static BerthdOptions* options_b;
  static Account* owner;
};

BerthdProcess* ApiSecretNodes::nodeA = nullptr;
BerthdProcess* ApiSecretNodes::nodeB = nullptr;
BerthdOptions* ApiSecretNodes::options_b = nullptr;
Account* ApiSecretNodes::owner = nullptr;

TEST_F(ApiSecretNodes, ASecretSetThroughAnotherNodeReachesTheAppWhereItRuns) {
  mustCreate(apiA(), "greeter");
  const std::string name = projectName("greeter", owner->slug);
  setGreeting(apiA(), name, "first");
  deployLive(apiA(), name, nodeRelease(kGreetingApp), std::chrono::seconds(120));
  const std::string starts =
      nodeA->dataDir() + "/runtime/homes/" + projectId(*nodeA, name) + "/starts.log";
  const json first = greetsOnA(name, "first");
  ASSERT_EQ(countLines(starts), 1);
  startB();

  // Set through B, which runs no app of it: A's app restarts with the new value.
  setGreeting(apiB(), name, "second");
  const json second = greetsOnA(name, "second");
  EXPECT_NE(second.value("instance", ""), first.value("instance", ""));
  EXPECT_EQ(countLines(starts), 2);

  // Set through A: its hook restarts the app at once; the NOTIFY that follows finds the app
  // with that environment already and leaves it.
  setGreeting(apiA(), name, "third");
  const json third = greetsOnA(name, "third");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the NOTIFY has come meanwhile
  EXPECT_EQ(countLines(starts), 3);
  auto still = onProjectHost(*nodeA, name, "/");
  ASSERT_EQ(still.status, 200) << still.body;
  EXPECT_EQ(still.json().value("instance", ""), third.value("instance", "x"));

  // Deleted through B: A's app loses it.
  auto removed = apiB().del("/projects/" + name + "/secrets/GREETING");
  ASSERT_LT(removed.status, 300) << removed.body;
  greetsOnA(name, json());
  EXPECT_EQ(countLines(starts), 4);
}

}  // namespace
