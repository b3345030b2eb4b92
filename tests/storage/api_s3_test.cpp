// ctest-label: api (starts a real berthd and a real S3-compatible server, s3rver)
// The storage plugin with storage.backend: s3, over real HTTP through berthd's edge: a stored
// file goes to the bucket, /_files/ is sent by nginx from the local copy (whole, a Range, and
// after the copy is lost: filled again from the store and verified), a replace leaves one
// object, a delete none; storage.blobs.v1 read is a ranged GET; a store that is down answers
// 502 and nothing is half-written; a credentials file other users can read stops the start;
// past storage.s3_cache_mb the least recently used copy is evicted, its edge link swept, and
// the next GET fetches it again.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "s3_client.hpp"
#include "sha256.hpp"
#include "storage_support.hpp"
#include "support/s3rver_process.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::storage_api;
using berth::storage::S3Client;
using berth::storage::S3Settings;
using berth::storage::Sha256;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string credentialsFile(const std::string& dir, mode_t mode) {
  std::string path = dir + "/s3-credentials";
  std::ofstream(path) << "[default]\naws_access_key_id = " << S3rverProcess::kAccessKey
                      << "\naws_secret_access_key = " << S3rverProcess::kSecret << "\n";
  ::chmod(path.c_str(), mode);
  return path;
}

std::string s3Yaml(const S3rverProcess& store, const std::string& credentials) {
  return "projects:\n  creation_burst: 100\nstorage:\n  backend: s3\n  s3_endpoint: " +
         store.endpoint() + "\n  s3_bucket: " + store.bucket() +
         "\n  s3_credentials_file: " + credentials + "\n  s3_timeout_seconds: 3\n";
}

std::string base64Decode(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int value = 0, bits = -8;
  for (char c : text) {
    size_t at = kAlphabet.find(c);
    if (at == std::string::npos) break;
    value = (value << 6) + static_cast<int>(at);
    bits += 6;
    if (bits >= 0) {
      out += static_cast<char>((value >> bits) & 0xFF);
      bits -= 8;
    }
  }
  return out;
}

class ApiS3 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store = new S3rverProcess();
    store->start();
    scratch = makeTempDir("storage-s3-api");
    BerthdOptions options;
    options.plugins = {"projects", "storage", "serviceprobe"};
    options.extra_yaml = s3Yaml(*store, credentialsFile(scratch, 0600));
    server = new BerthdProcess(options);
    server->start();
    owner = new Account(makeAccount(*server, "s3owner"));
  }
  static void TearDownTestSuite() {
    delete owner;
    delete server;
    delete store;
    removeTree(scratch);
  }
  void SetUp() override {
    if (!store->running()) store->start();
  }
  static ApiClient api() { return server->api(owner->token); }
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectName(label, owner->slug);
  }
  // The objects in the bucket under the project's id.
  static std::vector<std::string> bucketObjects(const std::string& project_id) {
    S3Settings s;
    s.endpoint = store->endpoint();
    s.bucket = store->bucket();
    s.credentials = {S3rverProcess::kAccessKey, S3rverProcess::kSecret};
    std::vector<std::string> keys;
    for (const auto& o : S3Client(s).list(project_id + "/", "", std::nullopt).objects)
      keys.push_back(o.key);
    return keys;
  }
  static std::string cacheDir() { return server->dataDir() + "/blobs/cache"; }

  static S3rverProcess* store;
  static BerthdProcess* server;
  static Account* owner;
  static std::string scratch;
};

S3rverProcess* ApiS3::store = nullptr;
BerthdProcess* ApiS3::server = nullptr;
Account* ApiS3::owner = nullptr;
std::string ApiS3::scratch;

TEST_F(ApiS3, FilesGoToTheBucketAndTheEdgeSendsTheLocalCopy) {
  std::string name = project("files");
  std::string id = projectId(*server, name);
  std::string bytes = everyByte(40);  // 10240 bytes
  auto put = upload(api(), name, "docs/a.bin", bytes);
  ASSERT_EQ(put.status, 201) << put.body;
  EXPECT_EQ(put.json()["sha256"], Sha256::of(bytes));
  auto objects = bucketObjects(id);
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_EQ(filesUnder(cacheDir() + "/" + id), 1u) << "the spooled body is the local copy";
  EXPECT_EQ(filesUnder(server->dataDir() + "/blobs/objects"), 0u) << "no local objects";

  auto got = download(*server, name, "docs/a.bin");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.body, bytes);
  std::string etag = got.header("etag");
  std::string modified = got.header("last-modified");
  auto ranged = download(*server, name, "docs/a.bin", {"Range: bytes=10-19"});
  EXPECT_EQ(ranged.status, 206);
  EXPECT_EQ(ranged.body, bytes.substr(10, 10));

  // A node that never had the copy (or lost it): filled from the store, verified, and sent
  // with the same validators.
  fs::remove_all(cacheDir() + "/" + id);
  fs::remove_all(server->dataDir() + "/blobs/edge/projects/" + id);
  auto again = download(*server, name, "docs/a.bin");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.body, bytes);
  EXPECT_EQ(again.header("etag"), etag);
  EXPECT_EQ(again.header("last-modified"), modified);
  EXPECT_EQ(filesUnder(cacheDir() + "/" + id), 1u);

  // storage.blobs.v1 get answers the local copy's path; read is a ranged GET to the store.
  json asked = {{"project_id", id}, {"space", "files"}, {"key", "docs/a.bin"}};
  json slice = mustCallService(*server, "storage.blobs.v1", "get", asked);
  EXPECT_EQ(slice["path"].get<std::string>().rfind(cacheDir() + "/" + id + "/", 0), 0u);
  fs::remove_all(cacheDir() + "/" + id);
  asked["offset"] = 100;
  asked["length"] = 7;
  json read = mustCallService(*server, "storage.blobs.v1", "read", asked);
  EXPECT_EQ(base64Decode(read["data_base64"]), bytes.substr(100, 7));
  EXPECT_EQ(filesUnder(cacheDir() + "/" + id), 0u) << "read does not fill the copy";
}

TEST_F(ApiS3, AReplaceLeavesOneObjectAndADeleteNone) {
  std::string name = project("replace");
  std::string id = projectId(*server, name);
  ASSERT_EQ(upload(api(), name, "page.html", "<p>one</p>").status, 201);
  auto first = bucketObjects(id);
  auto v1 = download(*server, name, "page.html");
  ASSERT_EQ(upload(api(), name, "page.html", "<p>two, longer</p>").status, 201);
  auto second = bucketObjects(id);
  ASSERT_EQ(second.size(), 1u) << "the old version was removed after the commit";
  EXPECT_NE(second, first);
  auto v2 = download(*server, name, "page.html");
  EXPECT_EQ(v2.body, "<p>two, longer</p>");
  EXPECT_EQ(v2.header("content-type").rfind("text/html", 0), 0u);
  EXPECT_NE(v2.header("etag"), v1.header("etag"));

  EXPECT_EQ(removeFile(api(), name, "page.html").status, 204);
  EXPECT_TRUE(bucketObjects(id).empty());
  EXPECT_EQ(download(*server, name, "page.html").status, 404);
  EXPECT_EQ(filesUnder(cacheDir() + "/" + id), 0u);
}

TEST_F(ApiS3, AStoreThatIsDownAnswers502AndNothingIsHalfWritten) {
  std::string name = project("down");
  std::string id = projectId(*server, name);
  ASSERT_EQ(upload(api(), name, "kept.txt", "kept").status, 201);
  store->stop();
  auto put = upload(api(), name, "lost.bin", everyByte(4096));  // 1 MB
  EXPECT_EQ(put.status, 502) << put.body;
  EXPECT_EQ(errorText(put), "object storage did not store the file; try again");
  auto replace = upload(api(), name, "kept.txt", "not kept");
  EXPECT_EQ(replace.status, 502);
  // The edge still sends what it has a copy of; the listing is the rows, unchanged.
  EXPECT_EQ(download(*server, name, "kept.txt").body, "kept");
  auto files = listed(api(), name);
  EXPECT_EQ(files.size(), 1u);
  EXPECT_EQ(files.count("lost.bin"), 0u);
  store->start();
  EXPECT_EQ(bucketObjects(id).size(), 1u) << "only the file that was stored";
  EXPECT_EQ(download(*server, name, "kept.txt").body, "kept");
  ASSERT_EQ(upload(api(), name, "lost.bin", "now").status, 201) << "the store is back";
}

TEST_F(ApiS3, DeletingTheProjectEmptiesItsPrefix) {
  std::string name = project("gone");
  std::string id = projectId(*server, name);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(upload(api(), name, "f" + std::to_string(i), "x").status, 201);
  EXPECT_EQ(bucketObjects(id).size(), 3u);
  store->stop();
  auto refused = api().del("/projects/" + name);
  EXPECT_EQ(refused.status, 502) << refused.body;
  store->start();
  EXPECT_EQ(bucketObjects(id).size(), 3u);
  auto removed = api().del("/projects/" + name);
  EXPECT_TRUE(removed.status == 200 || removed.status == 204) << removed.body;
  EXPECT_TRUE(bucketObjects(id).empty());
  EXPECT_FALSE(fs::exists(cacheDir() + "/" + id));
}

TEST(ApiS3Start, ACredentialsFileOthersCanReadStopsTheStart) {
  S3rverProcess store;
  store.start();
  std::string dir = makeTempDir("storage-s3-mode");
  std::string file = credentialsFile(dir, 0644);
  BerthdOptions options;
  options.plugins = {"projects", "storage"};
  options.extra_yaml = s3Yaml(store, file);
  BerthdProcess server(options);
  try {
    server.start();
    FAIL() << "berthd started with a world-readable credentials file";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("storage.s3_credentials_file " + file +
                                         " has mode 0644: other users could read the secret; "
                                         "make it 0600"),
              std::string::npos)
        << e.what();
  }
  removeTree(dir);
}

TEST_F(ApiS3, CopiesPastTheBoundAreEvictedWithTheirEdgeLink) {
  BerthdOptions options;
  options.plugins = {"projects", "storage", "serviceprobe"};
  options.extra_yaml = s3Yaml(*store, credentialsFile(scratch, 0600)) + "  s3_cache_mb: 1\n";
  BerthdProcess bounded(options);
  bounded.start();
  Account account = makeAccount(bounded, "s3lru");
  ApiClient client = bounded.api(account.token);
  mustCreate(client, "lru");
  std::string name = projectName("lru", account.slug);
  std::string id = projectId(bounded, name);
  std::string cache = bounded.dataDir() + "/blobs/cache/" + id;
  std::string edge_a = bounded.dataDir() + "/blobs/edge/projects/" + id + "/a.bin";
  std::string a = everyByte(2400);  // 600 KB: two do not fit in 1 MB
  std::string b(a.rbegin(), a.rend());
  ASSERT_EQ(upload(client, name, "a.bin", a).status, 201);
  ASSERT_EQ(download(bounded, name, "a.bin").body, a);
  EXPECT_TRUE(fs::exists(edge_a)) << "the edge sends a.bin from its link to the copy";
  // A copy used within the last second is never evicted (its path may be in a response).
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  struct stat linked {};
  ASSERT_EQ(::stat(edge_a.c_str(), &linked), 0);
  EXPECT_EQ(linked.st_nlink, 2u) << "the copy and the edge's link, no leftover of a publish";
  ASSERT_EQ(upload(client, name, "b.bin", b).status, 201);
  EXPECT_EQ(filesUnder(cache), 1u) << "b's upload became its copy and a's was evicted";
  // The edge's hard link would keep a's bytes on disk: it is swept after the eviction.
  for (int i = 0; i < 50 && fs::exists(edge_a); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(fs::exists(edge_a)) << "the evicted copy's edge link is swept";
  auto again = download(bounded, name, "a.bin");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.body, a) << "fetched again from the store, whole";
}

}  // namespace
