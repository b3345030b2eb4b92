// ctest-label: api (two real berthds, each with its own data_dir and edge, on one PostgreSQL and an
// S3 store) One owner node per project app. A Node app started on node A (which built it) is
// reached through node B's edge: B proxies it to A's registered address (same instance, the
// client's method, Host, path, query and body), needing no release files of its own; the cluster
// secret never reaches the app. A forged X-Berth-Forwarded marker changes nothing (B still
// proxies); a request carrying the real secret is served where it arrives, never forwarded again.
// A cacheable answer through B is kept at A's edge, and a purge made on B reaches that copy.
// The claim statement leaves one owner when several nodes claim at once, and a claim not renewed
// for 5 s is taken. Last, node A is killed (SIGKILL): once its claim expires, B starts the app
// itself (from the pack in the store) and serves it.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "app_owner_rules.hpp"
#include "host_requests.hpp"
#include "projects/api_support.hpp"
#include "support/release_upload.hpp"
#include "support/s3rver_process.hpp"

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

std::string credentialsFile(const std::string& dir) {
  std::string path = dir + "/s3-credentials";
  std::ofstream(path) << "[default]\naws_access_key_id = " << S3rverProcess::kAccessKey
                      << "\naws_secret_access_key = " << S3rverProcess::kSecret << "\n";
  ::chmod(path.c_str(), 0600);
  return path;
}

std::string nodeYaml(const S3rverProcess& store, const std::string& credentials,
                     const std::string& region) {
  return secretsKeyYaml() +
         "  creation_burst: 100\n"
         "storage:\n  backend: s3\n  s3_endpoint: " +
         store.endpoint() + "\n  s3_bucket: " + store.bucket() +
         "\n  s3_credentials_file: " + credentials +
         "\n  s3_timeout_seconds: 5\n"
         "runtime:\n  start_timeout_seconds: 20\n"
         "cluster:\n  labels:\n    region: " +
         region + "\n";
}

// Kills what a SIGKILLed berthd left running (its nginx, its apps): every process whose
// command line or working folder names its data_dir, and their children (nginx's workers).
void killLeftovers(const std::string& data_dir) {
  std::map<int, int> parents;  // pid -> ppid
  std::set<int> doomed;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::stoi(name);
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::error_code ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", ec).string();
    if (cmdline.find(data_dir) != std::string::npos || cwd.rfind(data_dir, 0) == 0)
      doomed.insert(pid);
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    std::string state;
    int ppid = 0;
    rest >> state >> ppid;
    parents[pid] = ppid;
  }
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& [pid, ppid] : parents)
      if (doomed.contains(ppid)) doomed.insert(pid);
  for (int pid : doomed) ::kill(pid, SIGKILL);
}

class ApiAppOwners : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store = new S3rverProcess();
    store->start();
    scratch = makeTempDir("app-owners");
    const std::string credentials = credentialsFile(scratch);
    BerthdOptions a;
    a.plugins = {"projects", "storage", "runtime"};
    a.extra_yaml = nodeYaml(*store, credentials, "a");
    nodeA = new BerthdProcess(a);
    nodeA->start();
    BerthdOptions b = a;
    b.extra_yaml = nodeYaml(*store, credentials, "b");
    b.set = {"database.url=" + nodeA->databaseUrl()};  // one control plane for both
    nodeB = new BerthdProcess(b);
    nodeB->start();
    owner = new Account(makeAccount(*nodeA, "owners"));
  }
  static void TearDownTestSuite() {
    delete owner;
    delete nodeB;
    delete nodeA;
    delete store;
    removeTree(scratch);
  }

  static ApiClient api() { return nodeA->api(owner->token); }
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectName(label, owner->slug);
  }
  static std::vector<std::string> sql(const std::string& statement,
                                      const std::vector<berth::core::Param>& params = {}) {
    berth::core::Pool db(nodeA->databaseUrl(), 1, std::chrono::seconds(10));
    return column(db, statement, params);
  }
  // A node's id in core.nodes (both run on this host: the pid tells them apart).
  static std::string nodeId(const BerthdProcess& node) {
    std::vector<std::string> ids;
    eventually([&] {
      ids = sql("SELECT id FROM core.nodes WHERE pid = $1", {std::to_string(node.pid())});
      return ids.size() == 1;
    });
    return ids.size() == 1 ? ids[0] : "";
  }
  static std::string ownerOf(const std::string& name) {
    auto owners = sql("SELECT node_id FROM runtime.app_owners WHERE project_id = $1",
                      {projectId(*nodeA, name)});
    return owners.empty() ? "" : owners[0];
  }
  static bool releasesOnB(const std::string& name) {
    return fs::exists(nodeB->dataDir() + "/releases/" + projectId(*nodeA, name));
  }
  // A Node app made live and started on A; its answer there.
  static json startedOnA(const std::string& name) {
    deployLive(api(), name, nodeRelease(kWhoApp), std::chrono::seconds(120));
    auto r = onProjectHost(*nodeA, name, "/start");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
  }

  static S3rverProcess* store;
  static BerthdProcess* nodeA;
  static BerthdProcess* nodeB;
  static Account* owner;
  static std::string scratch;
};

S3rverProcess* ApiAppOwners::store = nullptr;
BerthdProcess* ApiAppOwners::nodeA = nullptr;
BerthdProcess* ApiAppOwners::nodeB = nullptr;
Account* ApiAppOwners::owner = nullptr;
std::string ApiAppOwners::scratch;

TEST_F(ApiAppOwners, NodesRegisterTheirAddressAndLabels) {
  auto rows = sql("SELECT address || ' ' || (labels->>'region') FROM core.nodes ORDER BY pid");
  std::vector<std::string> expected = {"127.0.0.1:" + std::to_string(nodeA->port()) + " a",
                                       "127.0.0.1:" + std::to_string(nodeB->port()) + " b"};
  if (nodeA->pid() > nodeB->pid()) std::swap(expected[0], expected[1]);
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(sql("SELECT length(secret)::text FROM core.cluster_secret"),
            std::vector<std::string>{"64"});
}

TEST_F(ApiAppOwners, AnAppRunningOnAIsReachedThroughBsEdge) {
  const std::string name = project("owned");
  const json onA = startedOnA(name);
  const std::string instance = onA.value("instance", "");
  ASSERT_FALSE(instance.empty());
  EXPECT_EQ(ownerOf(name), nodeId(*nodeA));

  auto r = onProjectHost(*nodeB, name, "/some/path?b=2&a=1&b=3");
  ASSERT_EQ(r.status, 200) << r.body;
  json viaB = r.json();
  EXPECT_EQ(viaB.value("instance", ""), instance);  // A's process answered
  EXPECT_EQ(viaB.value("url", ""), "/some/path?b=2&a=1&b=3");
  EXPECT_EQ(viaB.value("host", ""), onA.value("host", "x"));
  EXPECT_EQ(viaB.value("forwarded", "x"), "");  // the cluster secret never reaches an app

  // A body goes on whole, with the client's method. (B's berthd reads it before deciding, as a
  // wake's request on one node: up to edge.json_body_limit + 1 MB; README "Known limits".)
  const std::string body(1024 * 1024 + 7, 'b');
  auto posted = onProjectHost(*nodeB, name, "/upload", {"Content-Type: text/plain"}, "POST", body);
  ASSERT_EQ(posted.status, 200) << posted.body;
  EXPECT_EQ(posted.json().value("instance", ""), instance);
  EXPECT_EQ(posted.json().value("method", ""), "POST");
  EXPECT_EQ(posted.json().value("bytes", 0), static_cast<int>(body.size()));

  // B needed no files of the release: it proxied.
  EXPECT_FALSE(releasesOnB(name));
  EXPECT_EQ(ownerOf(name), nodeId(*nodeA));
}

TEST_F(ApiAppOwners, AForgedForwardMarkerIsProxiedLikeAnyRequest) {
  const std::string name = project("forged");
  const std::string instance = startedOnA(name).value("instance", "");
  // Trusting any X-Berth-Forwarded would make B serve (and start) the app itself.
  for (const std::string& forged : {std::string(64, 'a'), std::string("1"), std::string()}) {
    auto r = onProjectHost(*nodeB, name, "/forged", {"X-Berth-Forwarded: " + forged});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json().value("instance", ""), instance) << forged;
  }
  EXPECT_FALSE(releasesOnB(name));
  EXPECT_EQ(ownerOf(name), nodeId(*nodeA));
}

TEST_F(ApiAppOwners, ARequestForwardedWithTheSecretIsServedWhereItArrives) {
  const std::string name = project("guard");
  const std::string instance = startedOnA(name).value("instance", "");
  const std::string secret = sql("SELECT secret FROM core.cluster_secret").at(0);
  // As another node's edge sends it: B serves it itself (starting the app there), never
  // forwarding it again, although A owns the app.
  auto r = onProjectHost(*nodeB, name, "/guarded", {"X-Berth-Forwarded: " + secret});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.json().value("instance", ""), instance);
  EXPECT_EQ(r.json().value("forwarded", "x"), "");
  EXPECT_EQ(ownerOf(name), nodeId(*nodeA));
  EXPECT_NE(nodeB->output().find("served here, not forwarded again"), std::string::npos);
  // A plain request on B still goes to the owner.
  auto plain = onProjectHost(*nodeB, name, "/plain");
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
  ASSERT_EQ(onProjectHost(*nodeA, name, "/start").status, 200);
  ASSERT_EQ(ownerOf(name), nodeId(*nodeA));
  HttpResult first, second;
  ASSERT_TRUE(eventually(
      [&] {
        first = onProjectHost(*nodeB, name, "/cached");
        second = onProjectHost(*nodeB, name, "/cached");
        return first.status == 200 && second.body == first.body;
      },
      std::chrono::seconds(10)))
      << "no copy kept: " << first.body << " then " << second.body;
  const std::string kept = second.body;
  // On A too: the copy is A's edge's.
  auto onA = onProjectHost(*nodeA, name, "/cached");
  EXPECT_EQ(onA.body, kept);
  EXPECT_EQ(onA.header("x-berth-cache"), "HIT");
  EXPECT_FALSE(releasesOnB(name));

  ASSERT_EQ(nodeB->api(owner->token).del("/projects/" + name + "/cache").status, 204);
  HttpResult fresh;
  EXPECT_TRUE(eventually(
      [&] {
        fresh = onProjectHost(*nodeB, name, "/cached");
        return fresh.status == 200 && fresh.body != kept;
      },
      std::chrono::seconds(10)))
      << "B still sends the purged copy: " << fresh.body;
  EXPECT_EQ(ownerOf(name), nodeId(*nodeA));
}

TEST_F(ApiAppOwners, TheClaimStatementLeavesOneOwnerWhenNodesClaimAtOnce) {
  constexpr int kNodes = 6;
  constexpr int kRounds = 15;
  const std::string seconds = std::to_string(berth::runtime::kClaimLasts.count());
  std::vector<std::unique_ptr<berth::core::Pool>> pools;
  for (int i = 0; i < kNodes; ++i)
    pools.push_back(
        std::make_unique<berth::core::Pool>(nodeA->databaseUrl(), 1, std::chrono::seconds(10)));
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
  auto before = onProjectHost(*nodeB, name, "/before");
  ASSERT_EQ(before.status, 200) << before.body;
  ASSERT_EQ(before.json().value("instance", ""), instance);
  const std::string b_id = nodeId(*nodeB);

  const std::string a_dir = nodeA->dataDir();
  ASSERT_EQ(::kill(nodeA->pid(), SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();
  killLeftovers(a_dir);  // its edge and app may outlive it; a dead node's do not answer

  HttpResult after;
  EXPECT_TRUE(eventually(
      [&] {
        after = onProjectHost(*nodeB, name, "/after");
        return after.status == 200 && after.json().value("instance", "") != instance;
      },
      std::chrono::seconds(40), std::chrono::milliseconds(250)))
      << after.status << " " << after.body;
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - killed);
  std::cout << "served by B " << took.count() << " ms after A was killed" << std::endl;
  EXPECT_EQ(ownerOf(name), b_id);
  EXPECT_TRUE(releasesOnB(name));
  killLeftovers(a_dir);
}

}  // namespace
