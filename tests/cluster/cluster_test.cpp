// ctest-label: e2e (three real berthds on one PostgreSQL and one s3rver, behind a front nginx)
// Berth as a cluster (tests/support/cluster.hpp): a client reaches it only through a
// round-robin balancer, so every step of the API flow lands on whichever node the balancer
// picks, and each effect is then checked on every node. The flow: an account and a token,
// projects, files uploaded and read back through each node, a static site and a Node app
// deployed and answered by each node, a secret restarting the app with its new value, a cron
// schedule whose runs are made exactly once across the nodes, a token revoked and refused at
// once everywhere. Then the changes said to travel between nodes by NOTIFY (secrets, custom
// domains, cache purges, data API settings, tokens), each made on node 0 and checked on nodes
// 1 and 2 within a bound. Last, the node owning the Node app is killed -9 and the next request
// through the balancer is served by another node.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

#include "projects/api_support.hpp"
#include "projects/dns_fixture.hpp"
#include "support/cluster.hpp"
#include "support/eventually.hpp"
#include "support/release_upload.hpp"
#include "support/tar_gz.hpp"

using namespace berth::testing;
using nlohmann::json;
using projects_api::Account;
using projects_api::makeAccount;
using projects_api::mustCreate;
using projects_api::projectName;

namespace {

// Who answered (an instance id per process), the GREETING secret it started with, and for
// /cached a count of the requests it saw, kept by the edge for ten minutes.
const char* const kApp = R"JS(
const instance = process.pid + '.' + Math.random().toString(36).slice(2, 10);
let seen = 0;
require('http').createServer((req, res) => {
  seen += 1;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', req.url.startsWith('/cached') ? 'public, max-age=600' : 'no-store');
  res.end(JSON.stringify({instance, greeting: process.env.GREETING || '', seen}));
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

constexpr auto kBound = std::chrono::seconds(10);  // a change on one node, in force on another

class ClusterE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ClusterOptions options;
    options.plugins = {"projects", "storage", "runtime", "scheduler", "sqlconsole"};
    dns_port = berth::core::freeLoopbackPort();
    options.projects_yaml = "  dns_resolver: \"127.0.0.1:" + std::to_string(dns_port) + "\"\n";
    options.extra_yaml =
        "runtime:\n  start_timeout_seconds: 30\n"
        "scheduler:\n  minute_ms: 400\n";
    cluster = std::make_unique<Cluster>(options);
    owner = std::make_unique<Account>(makeAccount(cluster->node(0), "clus"));
  }
  static void TearDownTestSuite() {
    owner.reset();
    cluster.reset();
  }

  static ApiClient api() { return cluster->api(owner->token); }
  static ApiClient apiVia(size_t i) { return cluster->apiVia(i, owner->token); }
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectName(label, owner->slug);
  }
  static HttpResult upload(const ApiClient& via, const std::string& name, const std::string& path,
                           const std::string& bytes) {
    return via.raw("POST", "/projects/" + name + "/files/" + path, bytes,
                   {"Content-Type: application/octet-stream"});
  }
  // The Node app of the suite, deployed once (the later cases share it).
  static const std::string& app() {
    static const std::string name = [] {
      const std::string n = project("nodeapp");
      deployLive(api(), n, nodeRelease(kApp), std::chrono::seconds(120));
      return n;
    }();
    return name;
  }
  static json answer(const HttpResult& r) { return r.status == 200 ? r.json() : json::object(); }
  // Adds `host` to the project through node 0 and verifies it there, with a DNS server that
  // answers the domain's token (returned running; the caller stops it). Throws on a refusal.
  static berth::core::Child verifiedDomain(const std::string& name, const std::string& host,
                                           const std::string& dns_log) {
    auto added = apiVia(0).post("/projects/" + name + "/domains", {{"host", host}});
    if (added.status != 201) throw std::runtime_error("adding " + host + ": " + added.body);
    auto dns = projects_api::startDnsmasq(
        dns_port, "cluster.test",
        {{"_berth." + host, "berth-verify=" + projects_api::tokenOf(added.json())}}, dns_log);
    auto verified = apiVia(0).raw("POST", "/projects/" + name + "/domains/" + host + "/verify", "");
    if (verified.status != 200)
      throw std::runtime_error("verifying " + host + ": " + verified.body);
    return dns;
  }

  static inline std::unique_ptr<Cluster> cluster;
  static inline std::unique_ptr<Account> owner;
  static inline uint16_t dns_port = 0;
};

TEST_F(ClusterE2e, ATokenMadeThroughTheBalancerWorksOnEveryNode) {
  auto made = api().post("/tokens", {{"name", "laptop"}});
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string token = made.json().at("token");
  for (size_t i = 0; i < cluster->size(); ++i) {
    auto me = cluster->apiVia(i, token).get("/me");
    EXPECT_EQ(me.status, 200) << "node " << i << ": " << me.body;
    EXPECT_EQ(me.json().value("email", ""), owner->email) << "node " << i;
  }
  EXPECT_EQ(cluster->api("bt_not_a_token").get("/me").status, 401);
}

TEST_F(ClusterE2e, ProjectsMadeThroughTheBalancerAreSeenByEveryNode) {
  std::set<std::string> made;
  for (const char* label : {"alpha", "beta", "gamma"}) made.insert(project(label));
  for (size_t i = 0; i < cluster->size(); ++i)
    for (const auto& name : made) {
      auto r = apiVia(i).get("/projects/" + name);
      EXPECT_EQ(r.status, 200) << "node " << i << " " << name << ": " << r.body;
    }
}

// Each node's edge sends /_files/ from its own tree of links without asking berthd (the storage
// README, "Several nodes"): a replace or a delete made through node 0 must reach the links the
// other nodes made when they first answered the file.
TEST_F(ClusterE2e, FilesUploadedThroughTheBalancerAreReadOnEveryNode) {
  const std::string name = project("files");
  const std::vector<std::string> ids =
      cluster->sql("SELECT id FROM projects.projects WHERE name = $1", {name});
  ASSERT_EQ(ids.size(), 1u);
  const std::string& id = ids[0];
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes.push_back(static_cast<char>(i * 7 % 256));
  auto put = upload(api(), name, "docs/a.bin", bytes);
  ASSERT_EQ(put.status, 201) << put.body;
  for (size_t i = 0; i < cluster->size(); ++i) {
    // The first answer is berthd's, which links the file; the second is the edge's.
    for (int round = 0; round < 2; ++round) {
      auto got = cluster->onHostVia(i, name, "/_files/docs/a.bin");
      EXPECT_EQ(got.status, 200) << "node " << i << ": " << got.body;
      EXPECT_TRUE(got.body == bytes) << "node " << i << " answered other bytes";
    }
    // What the edge of every node would keep sending if nothing told it of the changes below.
    EXPECT_TRUE(std::filesystem::exists(cluster->node(i).dataDir() + "/blobs/edge/projects/" + id +
                                        "/docs/a.bin"))
        << "node " << i << " did not link the file";
  }
  // A replacement made on node 0 is what every node sends next, though each linked the old one.
  ASSERT_EQ(upload(apiVia(0), name, "docs/a.bin", "second").status, 201);
  for (size_t i = 0; i < cluster->size(); ++i) {
    HttpResult got;
    EXPECT_TRUE(eventually(
        [&] {
          got = cluster->onHostVia(i, name, "/_files/docs/a.bin");
          return got.status == 200 && got.body == "second";
        },
        kBound))
        << "node " << i << " still answers " << got.status << " (" << got.body.size() << " bytes)";
    // And keeps sending it (its edge links the new bytes now).
    for (int round = 0; round < 2; ++round) {
      got = cluster->onHostVia(i, name, "/_files/docs/a.bin");
      EXPECT_TRUE(got.body == "second")
          << "node " << i << " answers " << got.body.size() << " bytes";
    }
  }
  // And a delete, made on node 0 while every node links the new bytes.
  ASSERT_EQ(apiVia(0).del("/projects/" + name + "/files/docs/a.bin").status, 204);
  for (size_t i = 0; i < cluster->size(); ++i) {
    EXPECT_TRUE(eventually(
        [&] { return cluster->onHostVia(i, name, "/_files/docs/a.bin").status == 404; }, kBound))
        << "node " << i << " still serves a deleted file";
    EXPECT_EQ(cluster->onHostVia(i, name, "/_files/docs/a.bin").status, 404) << "node " << i;
  }
}

TEST_F(ClusterE2e, AStaticSiteIsServedByEveryNode) {
  const std::string name = project("site");
  deployLive(api(), name, TarGz().file("index.html", "<h1>one site</h1>").finish());
  for (size_t i = 0; i < cluster->size(); ++i) {
    auto r = cluster->onHostVia(i, name, "/");
    EXPECT_EQ(r.status, 200) << "node " << i << ": " << r.body;
    EXPECT_EQ(r.body, "<h1>one site</h1>") << "node " << i;
  }
  // A second release made live through the balancer replaces the first on every node.
  deployLive(api(), name, TarGz().file("index.html", "<h1>two</h1>").finish());
  for (size_t i = 0; i < cluster->size(); ++i) {
    HttpResult r;
    EXPECT_TRUE(eventually(
        [&] {
          r = cluster->onHostVia(i, name, "/");
          return r.body == "<h1>two</h1>";
        },
        kBound))
        << "node " << i << ": " << r.status << " " << r.body;
  }
}

TEST_F(ClusterE2e, ANodeAppIsOneInstanceAnsweringThroughEveryNode) {
  const std::string& name = app();
  std::set<std::string> instances;
  for (size_t i = 0; i < cluster->size(); ++i) {
    auto r = cluster->onHostVia(i, name, "/");
    EXPECT_EQ(r.status, 200) << "node " << i << ": " << r.body;
    instances.insert(answer(r).value("instance", ""));
  }
  EXPECT_EQ(instances.size(), 1u) << "one app instance, owned by one node";
  EXPECT_GE(cluster->ownerOf(name), 0) << "runtime.app_owners names a node";
}

TEST_F(ClusterE2e, ASecretSetThroughTheBalancerRestartsTheAppWithIt) {
  const std::string& name = app();
  const std::string before = answer(cluster->onHost(name, "/")).value("instance", "");
  auto r = api().post("/projects/" + name + "/secrets", {{"name", "GREETING"}, {"value", "v2"}});
  ASSERT_EQ(r.status, 201) << r.body;
  for (size_t i = 0; i < cluster->size(); ++i) {
    json got;
    EXPECT_TRUE(eventually(
        [&] {
          got = answer(cluster->onHostVia(i, name, "/"));
          return got.value("greeting", "") == "v2";
        },
        std::chrono::seconds(30)))
        << "node " << i << " answers " << got.dump();
    EXPECT_NE(got.value("instance", ""), before) << "the app restarted";
  }
  // Changed on node 0, the next value is what nodes 1 and 2 answer.
  ASSERT_EQ(apiVia(0)
                .post("/projects/" + name + "/secrets", {{"name", "GREETING"}, {"value", "v3"}})
                .status,
            201);
  for (size_t i = 1; i < cluster->size(); ++i) {
    json got;
    EXPECT_TRUE(eventually(
        [&] {
          got = answer(cluster->onHostVia(i, name, "/"));
          return got.value("greeting", "") == "v3";
        },
        std::chrono::seconds(30)))
        << "node " << i << " answers " << got.dump();
  }
}

TEST_F(ClusterE2e, ACronScheduleRunsOnceAcrossTheNodes) {
  const std::string name = project("cron");
  auto made = api().post("/projects/" + name + "/schedules",
                         {{"name", "tick"}, {"spec", "* * * * *"}, {"path", "/tick"}});
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string id = made.json().at("id");
  const std::string runs_path = "/projects/" + name + "/schedules/" + id + "/runs";
  auto runs = [&] { return api().get(runs_path).json().value("runs", json::array()); };
  ASSERT_TRUE(eventually([&] { return runs().size() >= 12; }, std::chrono::seconds(60)));
  ASSERT_EQ(api().patch("/projects/" + name + "/schedules/" + id, {{"enabled", false}}).status,
            204);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // runs in flight reach the history
  const json history = runs();
  ASSERT_LT(history.size(), 50u) << "the history shows the last 50 only";
  std::set<int64_t> minutes;
  for (const auto& run : history) minutes.insert(run.at("due_at").get<int64_t>());
  EXPECT_EQ(minutes.size(), history.size()) << "a minute ran twice: " << history.dump();
  // Each node logs the runs it made: together, one per run.
  size_t total = 0;
  std::string by_node;
  for (size_t i = 0; i < cluster->size(); ++i) {
    const std::string out = cluster->node(i).output();
    const std::string marker = "schedule " + id + " GET";
    size_t n = 0;
    for (size_t at = out.find(marker); at != std::string::npos; at = out.find(marker, at + 1)) ++n;
    total += n;
    by_node += " " + std::to_string(n);
  }
  EXPECT_EQ(total, history.size()) << "runs logged by node:" << by_node;
  std::cout << "[ runs     ] " << history.size() << " runs, by node:" << by_node << "\n";
}

TEST_F(ClusterE2e, ARevokedTokenIsRefusedAtOnceOnEveryNode) {
  // Through the API, on node 0.
  auto made = apiVia(0).post("/tokens", {{"name", "revoked-by-api"}});
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string token = made.json().at("token");
  const std::string id = made.json().at("id");
  for (size_t i = 0; i < cluster->size(); ++i)  // each node has it in its cache now
    ASSERT_EQ(cluster->apiVia(i, token).get("/me").status, 200) << "node " << i;
  ASSERT_EQ(apiVia(0).del("/tokens/" + id).status, 204);
  for (size_t i = 0; i < cluster->size(); ++i)
    EXPECT_EQ(cluster->apiVia(i, token).get("/me").status, 401) << "node " << i;

  // With the CLI (on node 2's configuration).
  auto cli = apiVia(1).post("/tokens", {{"name", "revoked-by-cli"}});
  ASSERT_EQ(cli.status, 201) << cli.body;
  const std::string second = cli.json().at("token");
  for (size_t i = 0; i < cluster->size(); ++i)
    ASSERT_EQ(cluster->apiVia(i, second).get("/me").status, 200) << "node " << i;
  auto revoked = cluster->node(2).admin(
      {"token", "revoke", "--email", owner->email, "--name", "revoked-by-cli"});
  ASSERT_TRUE(revoked.status.ok()) << revoked.output;
  for (size_t i = 0; i < cluster->size(); ++i)
    EXPECT_EQ(cluster->apiVia(i, second).get("/me").status, 401) << "node " << i;
  EXPECT_EQ(cluster->api(second).get("/me").status, 401) << "through the balancer";
}

// ---- changes made on node 0, in force on nodes 1 and 2 ------------------------------------

// The other nodes' edges link the domain to the project's files when they first answer it; its
// removal on node 0 must take the link away on every node.
TEST_F(ClusterE2e, ACustomDomainVerifiedOnOneNodeIsServedByTheOthers) {
  const std::string name = project("domain");
  const std::string host = "www.cluster.test";
  ASSERT_EQ(upload(api(), name, "hello.txt", "hi from the domain").status, 201);
  const std::string root = makeTempDir("berth-cluster-dns");
  auto dns = verifiedDomain(name, host, root + "/dnsmasq.log");
  auto viaDomain = [&](size_t i) {
    return sendToHost(cluster->node(i).baseUrl(), host, "GET", "/_files/hello.txt");
  };
  for (size_t i = 1; i < cluster->size(); ++i) {
    HttpResult r;
    EXPECT_TRUE(eventually(
        [&] {
          r = viaDomain(i);
          return r.status == 200 && r.body == "hi from the domain";
        },
        kBound))
        << "node " << i << ": " << r.status << " " << r.body;
    r = viaDomain(i);  // from the link the first answer made
    EXPECT_EQ(r.body, "hi from the domain") << "node " << i;
    EXPECT_TRUE(std::filesystem::is_symlink(
        std::filesystem::symlink_status(cluster->node(i).dataDir() + "/blobs/edge/hosts/" + host)))
        << "node " << i << " did not link the domain";
  }
  ASSERT_EQ(apiVia(0).del("/projects/" + name + "/domains/" + host).status, 204);
  for (size_t i = 0; i < cluster->size(); ++i) {
    HttpResult r;
    EXPECT_TRUE(eventually(
        [&] {
          r = viaDomain(i);
          return r.status != 200 && r.body.find("hi from the domain") == std::string::npos;
        },
        kBound))
        << "node " << i << " still serves a deleted domain: " << r.status << " " << r.body;
    r = viaDomain(i);
    EXPECT_NE(r.status, 200) << "node " << i << ": " << r.body;
  }
  dns.stop(std::chrono::seconds(5));

  // The domain moves to another project, which has no hello.txt: no node may send the first
  // project's file under it again (a host link kept from before would lead there).
  const std::string second = project("domaintwo");
  ASSERT_EQ(upload(api(), second, "other.txt", "the second project").status, 201);
  auto dns_again = verifiedDomain(second, host, root + "/dnsmasq-again.log");
  for (size_t i = 0; i < cluster->size(); ++i) {
    HttpResult r;
    // Routed to the second project: berthd's "no such file" (before, the core's "no such route").
    EXPECT_TRUE(eventually(
        [&] {
          r = viaDomain(i);
          return r.status == 404 && r.body.find("no such file") != std::string::npos;
        },
        kBound))
        << "node " << i << " answers " << r.status << " " << r.body << " for a moved domain";
    // Its own files are served there (eventually: a node's edge reloads for its new hosts).
    EXPECT_TRUE(eventually(
        [&] {
          r = sendToHost(cluster->node(i).baseUrl(), host, "GET", "/_files/other.txt");
          return r.status == 200 && r.body == "the second project";
        },
        kBound))
        << "node " << i << " answers " << r.status << " " << r.body;
    r = viaDomain(i);
    EXPECT_TRUE(r.body.find("hi from the domain") == std::string::npos) << "node " << i;
  }
  dns_again.stop(std::chrono::seconds(5));
  removeTree(root);
}

TEST_F(ClusterE2e, ACachePurgeOnOneNodeStartsAfreshOnTheOthers) {
  const std::string& name = app();
  // Kept somewhere on the way (this node's edge or the owner's): two answers in a row are the
  // same one (the app counts every request it sees).
  std::vector<std::string> kept(cluster->size());
  for (size_t i = 1; i < cluster->size(); ++i) {
    HttpResult first, second;
    ASSERT_TRUE(eventually(
        [&] {
          first = cluster->onHostVia(i, name, "/cached");
          second = cluster->onHostVia(i, name, "/cached");
          return first.status == 200 && second.body == first.body;
        },
        kBound))
        << "node " << i << " keeps no copy: " << first.body << " then " << second.body;
    kept[i] = second.body;
  }
  ASSERT_EQ(apiVia(0).del("/projects/" + name + "/cache").status, 204);
  for (size_t i = 1; i < cluster->size(); ++i) {
    HttpResult r;
    EXPECT_TRUE(eventually(
        [&] {
          r = cluster->onHostVia(i, name, "/cached");
          return r.status == 200 && r.body != kept[i];
        },
        kBound))
        << "node " << i << " still sends its kept copy: " << r.body;
  }
}

TEST_F(ClusterE2e, DataApiSettingsChangedOnOneNodeAreInForceOnTheOthers) {
  const std::string name = project("data");
  auto made = api().post(
      "/projects/" + name + "/batch",
      {{"statements", {"CREATE TABLE things (id int)", "INSERT INTO things VALUES (1)"}}});
  ASSERT_EQ(made.status, 200) << made.body;
  const std::string settings = "/projects/" + name + "/data-api";
  auto open = [&](bool read) {
    return apiVia(0).raw("PUT", settings + "/tables/things", json({{"read", read}}).dump(),
                         {"Content-Type: application/json"});
  };
  auto key = apiVia(0).get(settings);
  ASSERT_EQ(key.status, 200) << key.body;
  const std::string old_key = key.json().at("key");
  auto read = [&](size_t i, const std::string& with) {
    return cluster->onHostVia(i, name, "/_data/things", {"apikey: " + with}).status;
  };
  // Opened on node 0: readable on the others.
  ASSERT_EQ(open(true).status, 200);
  for (size_t i = 1; i < cluster->size(); ++i)
    EXPECT_TRUE(eventually([&] { return read(i, old_key) == 200; }, kBound))
        << "node " << i << ": " << read(i, old_key);
  // A new key made on node 0: the old one refused on the others.
  auto rotated = apiVia(0).raw("POST", settings + "/key", "", {});
  ASSERT_EQ(rotated.status, 201) << rotated.body;
  const std::string new_key = rotated.json().at("key");
  for (size_t i = 1; i < cluster->size(); ++i) {
    EXPECT_TRUE(eventually([&] { return read(i, old_key) == 401; }, kBound))
        << "node " << i << " still takes the old key: " << read(i, old_key);
    EXPECT_EQ(read(i, new_key), 200) << "node " << i;
  }
  // Closed on node 0: refused on the others.
  ASSERT_EQ(open(false).status, 200);
  for (size_t i = 1; i < cluster->size(); ++i)
    EXPECT_TRUE(eventually([&] { return read(i, new_key) == 403; }, kBound))
        << "node " << i << " still reads a closed table: " << read(i, new_key);
}

// Last: it takes a node away from the cluster.
TEST_F(ClusterE2e, ZzTheAppOutlivesItsOwnerKilledNine) {
  const std::string& name = app();
  auto first = cluster->onHost(name, "/");
  ASSERT_EQ(first.status, 200) << first.body;
  const std::string before = answer(first).value("instance", "");
  const int owner_node = cluster->ownerOf(name);
  ASSERT_GE(owner_node, 0) << "no node owns the app";
  cluster->kill9(static_cast<size_t>(owner_node));
  HttpResult next;
  EXPECT_TRUE(eventually(
      [&] {
        next = cluster->onHost(name, "/");
        return next.status == 200;
      },
      std::chrono::seconds(60)))
      << next.status << " " << next.body << next.error;
  const int served = cluster->servedBy(next);
  EXPECT_GE(served, 0) << next.header("x-cluster-node");
  EXPECT_NE(served, owner_node);
  EXPECT_NE(answer(next).value("instance", ""), before) << "a new instance on a live node";
  const int new_owner = cluster->ownerOf(name);
  EXPECT_GE(new_owner, 0);
  EXPECT_NE(new_owner, owner_node);
}

}  // namespace
