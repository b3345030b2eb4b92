// ctest-label: api (two real berthds, each with its own data_dir and edge, on one PostgreSQL and an
// S3 store: tests/support/cluster.hpp without its balancer) One owner node per project app. A Node
// app started on node A (which built it) is reached through node B's edge: B proxies it to A's
// registered address (same instance, the client's method, Host, path, query and body), needing no
// release files of its own; the cluster secret never reaches the app. A forged X-Berth-Forwarded
// marker changes nothing (B still proxies); a request carrying the real secret is served where it
// arrives, never forwarded again. A cacheable answer through B is kept at A's edge, and a purge
// made on B reaches that copy. The claim statement leaves one owner when several nodes claim at
// once, and a claim not renewed for 5 s is taken. Last, node A is killed (SIGKILL): once its claim
// expires, B starts the app itself (from the pack in the store) and serves it.
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "app_owner_rules.hpp"
#include "host_requests.hpp"
#include "projects/api_support.hpp"
#include "support/release_upload.hpp"
#include "two_nodes.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Says which process answers (its pid alone would not tell, in the sandbox's pid namespace)
// and what reached it.
const char* const kWhoApp = R"JS(
const instance = process.pid + '.' + Math.random().toString(36).slice(2, 10);
require('http').createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk) => { bytes += chunk.length; });
  req.on('end', () => {
    res.setHeader('cache-control', 'no-store');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({instance, method: req.method, url: req.url, host: req.headers.host,
      bytes, forwarded: req.headers['x-berth-forwarded'] || ''}));
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

// Counts the requests it sees; /cached answers may be kept by the edge for ten minutes.
const char* const kCountingApp = R"JS(
let seen = 0;
require('http').createServer((req, res) => {
  seen += 1;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', req.url.startsWith('/cached') ? 'public, max-age=600' : 'no-store');
  res.end(JSON.stringify({seen}));
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

class ApiAppOwners : public TwoNodes<ApiAppOwners> {
 protected:
  static void SetUpTestSuite() {
    ClusterOptions options;
    options.node_address = false;  // each registers the address it derives from its edge
    options.labels = {{{"region", "a"}}, {{"region", "b"}}};
    options.extra_yaml = "runtime:\n  start_timeout_seconds: 20\n";
    startNodes(options, "owners");
  }

  static bool releasesOnB(const std::string& name) {
    return fs::exists(nodeB().dataDir() + "/releases/" + projectId(nodeA(), name));
  }
  // The project's request log entries for `path` (the access log's path, query included).
  static int requestsLogged(const std::string& name, const std::string& path) {
    auto r = api().get("/projects/" + name + "/logs?limit=1000");
    if (r.status != 200) throw std::runtime_error("GET logs: " + r.body);
    const json body = r.json();
    int count = 0;
    for (const auto& e : body.at("logs"))
      if (e.at("kind") == "request" && e.at("path").is_string() && e.at("path") == path) ++count;
    return count;
  }
  // A Node app made live and started on A; its answer there.
  static json startedOnA(const std::string& name) {
    deployLive(api(), name, nodeRelease(kWhoApp), std::chrono::seconds(120));
    auto r = onProjectHost(nodeA(), name, "/start");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
  }
};

TEST_F(ApiAppOwners, NodesRegisterTheirAddressAndLabels) {
  auto rows = sql("SELECT address || ' ' || (labels->>'region') FROM core.nodes ORDER BY pid");
  std::vector<std::string> expected = {"127.0.0.1:" + std::to_string(nodeA().port()) + " a",
                                       "127.0.0.1:" + std::to_string(nodeB().port()) + " b"};
  if (nodeA().pid() > nodeB().pid()) std::swap(expected[0], expected[1]);
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(sql("SELECT length(secret)::text FROM core.cluster_secret"),
            std::vector<std::string>{"64"});
}

TEST_F(ApiAppOwners, AnAppRunningOnAIsReachedThroughBsEdge) {
  const std::string name = project("owned");
  const json onA = startedOnA(name);
  const std::string instance = onA.value("instance", "");
  ASSERT_FALSE(instance.empty());
  EXPECT_EQ(cluster->ownerOf(name), 0);

  auto r = onProjectHost(nodeB(), name, "/some/path?b=2&a=1&b=3");
  ASSERT_EQ(r.status, 200) << r.body;
  json viaB = r.json();
  EXPECT_EQ(viaB.value("instance", ""), instance);  // A's process answered
  EXPECT_EQ(viaB.value("url", ""), "/some/path?b=2&a=1&b=3");
  EXPECT_EQ(viaB.value("host", ""), onA.value("host", "x"));
  EXPECT_EQ(viaB.value("forwarded", "x"), "");  // the cluster secret never reaches an app
  // Logged once, by the owner's edge, not again by B's, which only passed it on. Both nodes
  // write their entries within a second or two; the count is read after both have.
  EXPECT_TRUE(eventually([&] { return requestsLogged(name, "/some/path?b=2&a=1&b=3") > 0; }));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(requestsLogged(name, "/some/path?b=2&a=1&b=3"), 1);

  // A body goes on whole, with the client's method. (B's berthd reads it before deciding, as a
  // wake's request on one node: up to edge.json_body_limit + 1 MB; README "Known limits".)
  const std::string body(1024 * 1024 + 7, 'b');
  auto posted = onProjectHost(nodeB(), name, "/upload", {"Content-Type: text/plain"}, "POST", body);
  ASSERT_EQ(posted.status, 200) << posted.body;
  EXPECT_EQ(posted.json().value("instance", ""), instance);
  EXPECT_EQ(posted.json().value("method", ""), "POST");
  EXPECT_EQ(posted.json().value("bytes", 0), static_cast<int>(body.size()));

  // B needed no files of the release: it proxied.
  EXPECT_FALSE(releasesOnB(name));
  EXPECT_EQ(cluster->ownerOf(name), 0);
}

TEST_F(ApiAppOwners, AForgedForwardMarkerIsProxiedLikeAnyRequest) {
  const std::string name = project("forged");
  const std::string instance = startedOnA(name).value("instance", "");
  // Trusting any X-Berth-Forwarded would make B serve (and start) the app itself.
  for (const std::string& forged : {std::string(64, 'a'), std::string("1"), std::string()}) {
    auto r = onProjectHost(nodeB(), name, "/forged", {"X-Berth-Forwarded: " + forged});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json().value("instance", ""), instance) << forged;
  }
  EXPECT_FALSE(releasesOnB(name));
  EXPECT_EQ(cluster->ownerOf(name), 0);
}

TEST_F(ApiAppOwners, ARequestForwardedWithTheSecretIsServedWhereItArrives) {
  const std::string name = project("guard");
  const std::string instance = startedOnA(name).value("instance", "");
  const std::string secret = sql("SELECT secret FROM core.cluster_secret").at(0);
  // As another node's edge sends it: B serves it itself (starting the app there), never
  // forwarding it again, although A owns the app.
  auto r = onProjectHost(nodeB(), name, "/guarded", {"X-Berth-Forwarded: " + secret});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.json().value("instance", ""), instance);
  EXPECT_EQ(r.json().value("forwarded", "x"), "");
  EXPECT_EQ(cluster->ownerOf(name), 0);
  EXPECT_NE(nodeB().output().find("served here, not forwarded again"), std::string::npos);
  // A plain request on B still goes to the owner.
  auto plain = onProjectHost(nodeB(), name, "/plain");
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(plain.json().value("instance", ""), instance);
}

// A cacheable answer through B is kept at the owner's edge (B keeps none: it has no rule for
// the host), so the purge, which reaches A through the stored epoch, empties the only copy. The
// project's host starts with "n": nginx once read the map entry "\news-..." as a newline and
// "ews-...", so A's edge neither cached nor routed that host directly.
TEST_F(ApiAppOwners, ACacheableAnswerThroughBIsKeptAtTheOwnerAndAPurgeOnBReachesIt) {
  const std::string name = project("news");
  deployLive(api(), name, nodeRelease(kCountingApp), std::chrono::seconds(120));
  ASSERT_EQ(onProjectHost(nodeA(), name, "/start").status, 200);
  ASSERT_EQ(cluster->ownerOf(name), 0);
  HttpResult first, second;
  ASSERT_TRUE(eventually(
      [&] {
        first = onProjectHost(nodeB(), name, "/cached");
        second = onProjectHost(nodeB(), name, "/cached");
        return first.status == 200 && second.body == first.body;
      },
      std::chrono::seconds(10)))
      << "no copy kept: " << first.body << " then " << second.body;
  const std::string kept = second.body;
  // On A too: the copy is A's edge's.
  auto onA = onProjectHost(nodeA(), name, "/cached");
  EXPECT_EQ(onA.body, kept);
  EXPECT_EQ(onA.header("x-berth-cache"), "HIT");
  EXPECT_FALSE(releasesOnB(name));

  ASSERT_EQ(nodeB().api(owner->token).del("/projects/" + name + "/cache").status, 204);
  HttpResult fresh;
  EXPECT_TRUE(eventually(
      [&] {
        fresh = onProjectHost(nodeB(), name, "/cached");
        return fresh.status == 200 && fresh.body != kept;
      },
      std::chrono::seconds(10)))
      << "B still sends the purged copy: " << fresh.body;
  EXPECT_EQ(cluster->ownerOf(name), 0);
}

TEST_F(ApiAppOwners, TheClaimStatementLeavesOneOwnerWhenNodesClaimAtOnce) {
  constexpr int kNodes = 6;
  constexpr int kRounds = 15;
  const std::string seconds = std::to_string(berth::runtime::kClaimLasts.count());
  std::vector<std::unique_ptr<berth::core::Pool>> pools;
  for (int i = 0; i < kNodes; ++i)
    pools.push_back(
        std::make_unique<berth::core::Pool>(cluster->databaseUrl(), 1, std::chrono::seconds(10)));
  for (int round = 0; round < kRounds; ++round) {
    const std::string project = "race-" + std::to_string(round) + "-" + std::to_string(::getpid());
    std::atomic<int> ready{0};
    std::atomic<int> won{0};
    std::vector<std::string> winners(kNodes);
    std::vector<std::thread> threads;
    for (int i = 0; i < kNodes; ++i) {
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < kNodes) std::this_thread::yield();
        auto r = pools[i]->exec(berth::runtime::kClaimStatement,
                                {project, "node-" + std::to_string(i), seconds});
        if (r.rows() > 0) {
          won.fetch_add(1);
          winners[i] = r.value(0, 0);
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(won.load(), 1) << project;
    auto stored = sql("SELECT node_id FROM runtime.app_owners WHERE project_id = $1", {project});
    ASSERT_EQ(stored.size(), 1u);
    int winner = -1;
    for (int i = 0; i < kNodes; ++i)
      if (!winners[i].empty()) winner = i;
    ASSERT_GE(winner, 0);
    EXPECT_EQ(stored[0], "node-" + std::to_string(winner));
    sql("DELETE FROM runtime.app_owners WHERE project_id = $1 RETURNING 1", {project});
  }
}

TEST_F(ApiAppOwners, AClaimNotRenewedWithinItsLifetimeIsTaken) {
  const std::string project = "expiry-" + std::to_string(::getpid());
  const std::string seconds = std::to_string(berth::runtime::kClaimLasts.count());
  auto claim = [&](const std::string& node) {
    return sql(berth::runtime::kClaimStatement, {project, node, seconds});
  };
  EXPECT_EQ(claim("one"), std::vector<std::string>{"one"});
  EXPECT_TRUE(claim("two").empty());                         // fresh: one's
  EXPECT_EQ(claim("one"), std::vector<std::string>{"one"});  // its owner renews
  // Renewed 4 s ago: still one's.
  sql("UPDATE runtime.app_owners SET renewed_at = now() - interval '4 seconds' "
      "WHERE project_id = $1 RETURNING 1",
      {project});
  EXPECT_TRUE(claim("two").empty());
  // 6 s: expired; two takes it, and one cannot take it back.
  sql("UPDATE runtime.app_owners SET renewed_at = now() - interval '6 seconds' "
      "WHERE project_id = $1 RETURNING 1",
      {project});
  EXPECT_EQ(claim("two"), std::vector<std::string>{"two"});
  EXPECT_TRUE(claim("one").empty());
  sql("DELETE FROM runtime.app_owners WHERE project_id = $1 RETURNING 1", {project});
}

// Last: it kills node A.
TEST_F(ApiAppOwners, ZZWhenTheOwnerIsKilledTheNextNodeStartsTheApp) {
  const std::string name = project("failover");
  const std::string instance = startedOnA(name).value("instance", "");
  auto before = onProjectHost(nodeB(), name, "/before");
  ASSERT_EQ(before.status, 200) << before.body;
  ASSERT_EQ(before.json().value("instance", ""), instance);
  ASSERT_EQ(cluster->ownerOf(name), 0);  // A's id is known before its row goes

  const auto killed = std::chrono::steady_clock::now();
  // Its edge and app may outlive it; a dead node's do not answer: kill9 ends them too.
  ASSERT_TRUE(cluster->kill9(0));

  HttpResult after;
  EXPECT_TRUE(eventually(
      [&] {
        after = onProjectHost(nodeB(), name, "/after");
        return after.status == 200 && after.json().value("instance", "") != instance;
      },
      std::chrono::seconds(40), std::chrono::milliseconds(250)))
      << after.status << " " << after.body;
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - killed);
  std::cout << "served by B " << took.count() << " ms after A was killed" << std::endl;
  EXPECT_EQ(cluster->ownerOf(name), 1);
  EXPECT_TRUE(releasesOnB(name));
}

}  // namespace
