// ctest-label: api (two real berthds on one PostgreSQL and one s3rver store,
// tests/support/cluster.hpp) Each node's edge sends /_files/ from its own tree of links without
// asking berthd. A change made through one node must stop the other's edge sending the old bytes
// within the bound of plugins/storage/README.md ("Several nodes"): a replaced file, a deleted file,
// and a custom domain removed from its project. Node 1 first reads each through its edge (which
// makes its links); the change is then made through node 0.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "projects/api_support.hpp"
#include "support/cluster.hpp"
#include "support/eventually.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// README.md promises milliseconds (a NOTIFY); this leaves room for a loaded machine while
// staying far below anything that would expire on its own (there is no expiry).
constexpr auto kBound = std::chrono::seconds(3);

class StorageNodes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ClusterOptions options;
    options.nodes = 2;
    options.plugins = {"projects", "storage"};
    cluster = new Cluster(options);
    owner = new Account(makeAccount(cluster->node(0), "nodes"));
  }
  static void TearDownTestSuite() {
    delete owner;
    delete cluster;
  }

  static ApiClient apiVia(size_t i) { return cluster->apiVia(i, owner->token); }
  static HttpResult upload(size_t node, const std::string& name, const std::string& path,
                           const std::string& bytes) {
    return apiVia(node).raw("POST", "/projects/" + name + "/files/" + path, bytes,
                            {"Content-Type: application/octet-stream"});
  }
  // The edge tree of node i (storage.root "blobs" under its data_dir).
  static std::string edgeTree(size_t i) { return cluster->node(i).dataDir() + "/blobs/edge"; }

  static inline Cluster* cluster = nullptr;
  static inline Account* owner = nullptr;
};

TEST_F(StorageNodes, AFileReplacedOrDeletedOnOneNodeIsNoLongerSentByTheOther) {
  const json made = mustCreate(apiVia(0), "files");
  const std::string name = projectName("files", owner->slug);
  const std::string id = made.at("id");
  ASSERT_EQ(upload(0, name, "docs/a.txt", "first").status, 201);
  // Node 1 reads it until its edge holds the link (a notification of the upload may drop the
  // first one it makes).
  const std::string link = edgeTree(1) + "/projects/" + id + "/docs/a.txt";
  EXPECT_TRUE(eventually(
      [&] {
        auto got = cluster->onHostVia(1, name, "/_files/docs/a.txt");
        return got.status == 200 && got.body == "first" && fs::exists(link);
      },
      std::chrono::seconds(10)))
      << "node 1 never linked " << link;

  ASSERT_EQ(upload(0, name, "docs/a.txt", "second").status, 201);
  HttpResult got;
  EXPECT_TRUE(eventually(
      [&] {
        got = cluster->onHostVia(1, name, "/_files/docs/a.txt");
        return got.status == 200 && got.body == "second";
      },
      kBound))
      << "node 1 still sends " << got.status << " " << got.body << " after a replace";

  // Node 1 links the new bytes, then the file is deleted through node 0.
  EXPECT_TRUE(eventually(
      [&] {
        got = cluster->onHostVia(1, name, "/_files/docs/a.txt");
        return got.body == "second" && fs::exists(link);
      },
      std::chrono::seconds(10)));
  ASSERT_EQ(apiVia(0).del("/projects/" + name + "/files/docs/a.txt").status, 204);
  EXPECT_TRUE(eventually(
      [&] {
        got = cluster->onHostVia(1, name, "/_files/docs/a.txt");
        return got.status == 404;
      },
      kBound))
      << "node 1 still sends a deleted file: " << got.status << " " << got.body;
}

TEST_F(StorageNodes, ACustomDomainRemovedOnOneNodeNoLongerReachesTheFilesOnTheOther) {
  const json made = mustCreate(apiVia(0), "domain");
  const std::string name = projectName("domain", owner->slug);
  const std::string id = made.at("id");
  const std::string host = "files.nodes.test";
  ASSERT_EQ(upload(0, name, "hello.txt", "hi from the domain").status, 201);
  // Verified as the verify route would (its DNS check is the projects tests' business).
  cluster->sql(
      "INSERT INTO projects.domains (host, project_id, token, verified, created_at, verified_at) "
      "VALUES ($1, $2, 'token', true, extract(epoch FROM now())::bigint, "
      "extract(epoch FROM now())::bigint)",
      {host, id});
  auto viaDomain = [&](size_t i) {
    return sendToHost(cluster->node(i).baseUrl(), host, "GET", "/_files/hello.txt");
  };
  const std::string link = edgeTree(1) + "/hosts/" + host;
  HttpResult got;
  EXPECT_TRUE(eventually(
      [&] {
        got = viaDomain(1);
        return got.status == 200 && got.body == "hi from the domain" &&
               fs::is_symlink(fs::symlink_status(link)) &&
               fs::exists(edgeTree(1) + "/projects/" + id + "/hello.txt");
      },
      std::chrono::seconds(15)))
      << "node 1 never linked " << link << ": " << got.status << " " << got.body;

  ASSERT_EQ(apiVia(0).del("/projects/" + name + "/domains/" + host).status, 204);
  EXPECT_TRUE(eventually(
      [&] {
        got = viaDomain(1);
        return got.body != "hi from the domain";
      },
      kBound))
      << "node 1 still sends the files of a removed domain";
  EXPECT_FALSE(fs::is_symlink(fs::symlink_status(link)));
}

}  // namespace
