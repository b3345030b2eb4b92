// ctest-label: api (starts a real berthd)
// The blob store as other plugins use it (storage.blobs.v1 and storage.stats.v1, called by the
// blobclient fixture plugin over the real plugin ABI): put from a file (copied or moved), get
// with a local path and a byte range, read, stat, list by prefix with pages, delete and
// delete_prefix, spaces kept apart from the public files, refusals; and a berthd killed with
// SIGKILL during a large upload, restarted on the same data_dir: nothing partial is listed and
// the leftovers of the crash are cleaned up.
#include <signal.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "sha256.hpp"
#include "storage_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::storage_api;
using berth::storage::Sha256;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class ApiBlobs : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "blobclient"};
    options.extra_yaml = "projects:\n  creation_burst: 100\n";
    startServer(options);
    owner = std::make_unique<Account>(makeAccount(*server, "blobsown"));
    scratch = makeTempDir("storage-blobs-src");
  }
  static void TearDownTestSuite() {
    removeTree(scratch);
    owner.reset();
    dropServer();
  }
  static ApiClient api() { return server->api(owner->token); }
  // A new project; returns its id.
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectId(*server, projectName(label, owner->slug));
  }
  static HttpResult call(const std::string& method, const json& request) {
    return server->api().post("/blobclient/blobs/" + method, request);
  }
  static json ok(const std::string& method, const json& request) {
    auto r = call(method, request);
    EXPECT_EQ(r.status, 200) << method << " " << request.dump() << ": " << r.body;
    return r.json();
  }
  // A source file with these bytes, where the edge spools request bodies: put takes no other.
  static std::string source(const std::string& name, const std::string& bytes) {
    std::string path = server->dataDir() + "/edge/client_body/" + name;
    writeFile(path, bytes);
    return path;
  }

  static inline std::unique_ptr<Account> owner;
  static inline std::string scratch;
};

TEST_F(ApiBlobs, PutCopiesAFileAndGetHandsOutItsPathAndRange) {
  std::string id = project("put");
  std::string bytes = everyByte(1000);
  std::string from = source("archive.tar.gz", bytes);
  json put = ok("put", {{"project_id", id},
                        {"space", "releases"},
                        {"key", "r1/archive.tar.gz"},
                        {"from_file", from}});
  EXPECT_EQ(put["project_id"], id);
  EXPECT_EQ(put["space"], "releases");
  EXPECT_EQ(put["key"], "r1/archive.tar.gz");
  EXPECT_EQ(put["size"], bytes.size());
  EXPECT_EQ(put["sha256"], Sha256::of(bytes));
  EXPECT_EQ(put["content_type"], "application/gzip");  // from the key's extension
  EXPECT_EQ(put["created_at"], put["updated_at"]);
  EXPECT_TRUE(put["etag"].is_string());
  EXPECT_EQ(readFile(from), bytes);  // copied: the caller keeps its file

  json address = {{"project_id", id}, {"space", "releases"}, {"key", "r1/archive.tar.gz"}};
  json got = ok("get", address);
  EXPECT_EQ(got["size"], bytes.size());
  EXPECT_EQ(got["offset"], 0);
  EXPECT_EQ(got["length"], bytes.size());
  std::string path = got["path"];
  EXPECT_EQ(path.rfind(server->dataDir() + "/blobs/objects/" + id + "/", 0), 0u) << path;
  EXPECT_EQ(readFile(path), bytes);
  EXPECT_EQ(ok("stat", address), put);

  json ranged = address;
  ranged["offset"] = 100;
  ranged["length"] = 50;
  got = ok("get", ranged);
  EXPECT_EQ(got["offset"], 100);
  EXPECT_EQ(got["length"], 50);
  auto slice = server->api().post("/blobclient/slice", ranged);
  EXPECT_EQ(slice.status, 200);
  EXPECT_TRUE(slice.body == bytes.substr(100, 50));
  ranged["length"] = 1000000;  // clamped to what is there
  EXPECT_EQ(ok("get", ranged)["length"], bytes.size() - 100);
  ranged["offset"] = bytes.size();
  EXPECT_EQ(ok("get", ranged)["length"], 0);
  ranged["offset"] = bytes.size() + 1;
  auto r = call("get", ranged);
  EXPECT_EQ(r.status, 416);
  EXPECT_EQ(errorText(r), "the range starts after the end of the blob (256000 bytes)");
}

TEST_F(ApiBlobs, PutCanMoveTheFileAndTakeAnExplicitContentType) {
  std::string id = project("move");
  std::string from = source("moved.bin", "moved bytes");
  json put = ok("put", {{"project_id", id},
                        {"space", "releases"},
                        {"key", "moved"},
                        {"from_file", from},
                        {"move", true},
                        {"content_type", "application/x-berth-test"}});
  EXPECT_EQ(put["content_type"], "application/x-berth-test");
  EXPECT_FALSE(fs::exists(from));
  json got = ok("get", {{"project_id", id}, {"space", "releases"}, {"key", "moved"}});
  EXPECT_EQ(readFile(got["path"]), "moved bytes");
  struct stat st {};
  ASSERT_EQ(::stat(got["path"].get<std::string>().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(ApiBlobs, ReadReturnsASliceInBase64) {
  std::string id = project("read");
  ok("put",
     {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"from_file", source("r", "0123456789")}});
  json read =
      ok("read", {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"offset", 2}, {"length", 5}});
  EXPECT_EQ(read["data_base64"], "MjM0NTY=");  // "23456"
  EXPECT_EQ(read["length"], 5);
  read = ok("read", {{"project_id", id}, {"space", "s"}, {"key", "k"}});
  EXPECT_EQ(read["data_base64"], "MDEyMzQ1Njc4OQ==");
  auto r = call("read", {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"length", 4194305}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "read returns at most 4194304 bytes at a time");
}

TEST_F(ApiBlobs, ListWalksAPrefixInByteOrderByPages) {
  std::string id = project("list");
  std::string from = source("item", "x");
  for (const std::string& key :
       std::vector<std::string>{"logs/2024/b", "logs/2024/a", "logs/2025/a", "logz", "other/a"})
    ok("put", {{"project_id", id}, {"space", "misc"}, {"key", key}, {"from_file", from}});
  auto keys = [](const json& answer) {
    std::vector<std::string> out;
    for (const auto& b : answer.at("blobs")) out.push_back(b.at("key"));
    return out;
  };
  json all = ok("list", {{"project_id", id}, {"space", "misc"}, {"prefix", "logs/"}});
  EXPECT_EQ(keys(all), (std::vector<std::string>{"logs/2024/a", "logs/2024/b", "logs/2025/a"}));
  EXPECT_TRUE(all["next"].is_null());

  json page =
      ok("list", {{"project_id", id}, {"space", "misc"}, {"prefix", "logs/"}, {"limit", 2}});
  EXPECT_EQ(keys(page), (std::vector<std::string>{"logs/2024/a", "logs/2024/b"}));
  EXPECT_EQ(page["next"], "logs/2024/b");
  page = ok("list", {{"project_id", id},
                     {"space", "misc"},
                     {"prefix", "logs/"},
                     {"limit", 2},
                     {"after", page["next"]}});
  EXPECT_EQ(keys(page), std::vector<std::string>{"logs/2025/a"});
  EXPECT_EQ(keys(ok("list", {{"project_id", id}, {"space", "misc"}})).size(), 5u);
  EXPECT_TRUE(ok("list", {{"project_id", id}, {"space", "empty"}})["blobs"].empty());

  EXPECT_EQ(ok("delete_prefix",
               {{"project_id", id}, {"space", "misc"}, {"prefix", "logs/2024/"}})["deleted"],
            2);
  EXPECT_EQ(keys(ok("list", {{"project_id", id}, {"space", "misc"}})),
            (std::vector<std::string>{"logs/2025/a", "logz", "other/a"}));
}

TEST_F(ApiBlobs, DeleteRemovesTheBlobAndItsObject) {
  std::string id = project("delete");
  json address = {{"project_id", id}, {"space", "s"}, {"key", "gone"}};
  json put = address;
  put["from_file"] = source("gone", "bye");
  ok("put", put);
  std::string path = ok("get", address)["path"];
  EXPECT_EQ(ok("delete", address)["deleted"], true);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(ok("delete", address)["deleted"], false);
  auto r = call("stat", address);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no blob called gone in s");
  EXPECT_EQ(call("get", address).status, 404);
}

TEST_F(ApiBlobs, SpacesAreApartAndOnlyFilesArePublicAndCounted) {
  std::string label = "spaces";
  std::string id = project(label);
  std::string name = projectName(label, owner->slug);
  ok("put", {{"project_id", id},
             {"space", "releases"},
             {"key", "a.txt"},
             {"from_file", source("rel", "release bytes")}});
  EXPECT_EQ(download(*server, name, "a.txt").status, 404);
  EXPECT_TRUE(listed(api(), name).empty());
  auto stats = server->api().post("/blobclient/stats", {{"ids", {id, "no-such-id"}}});
  ASSERT_EQ(stats.status, 200) << stats.body;
  EXPECT_EQ(stats.json()[id], (json{{"files_count", 0}, {"files_bytes", 0}}));
  EXPECT_EQ(stats.json()["no-such-id"], (json{{"files_count", 0}, {"files_bytes", 0}}));

  // A blob put in "files" is a stored file: listed, served and counted.
  ok("put", {{"project_id", id},
             {"space", "files"},
             {"key", "a.txt"},
             {"from_file", source("pub", "public bytes")}});
  EXPECT_EQ(download(*server, name, "a.txt").body, "public bytes");
  EXPECT_EQ(listed(api(), name).size(), 1u);
  stats = server->api().post("/blobclient/stats", {{"ids", {id}}});
  EXPECT_EQ(stats.json()[id], (json{{"files_count", 1}, {"files_bytes", 12}}));
  EXPECT_EQ(ok("stat", {{"project_id", id}, {"space", "releases"}, {"key", "a.txt"}})["size"], 13);

  // api_files_test checks that deleting the project removes the blobs of every space.
}

TEST_F(ApiBlobs, BadRequestsAreRefusedWithTheirReasons) {
  std::string id = project("refusals");
  std::string from = source("ok", "ok");
  // A file a caller names outside the edge's body folder is never read.
  std::string outside = scratch + "/outside";
  writeFile(outside, "not a spooled body");
  struct Case {
    std::string method;
    json request;
    int status;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"put",
       {{"space", "s"}, {"key", "k"}, {"from_file", from}},
       400,
       "project_id is required and must be a string"},
      {"put",
       {{"project_id", "../x"}, {"space", "s"}, {"key", "k"}, {"from_file", from}},
       400,
       "project_id may contain only letters, digits, '-' and '_'"},
      {"put",
       {{"project_id", id}, {"space", "Files"}, {"key", "k"}, {"from_file", from}},
       400,
       "space must be 1 to 32 of [a-z0-9_-], starting with a letter"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", ""}, {"from_file", from}},
       400,
       "key cannot be empty"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", std::string(1025, 'k')}, {"from_file", from}},
       400,
       "key can be at most 1024 bytes"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"from_file", "relative"}},
       400,
       "from_file must be an absolute path"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", "k"}},
       400,
       "from_file is required and must be a string"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"from_file", from}, {"move", "yes"}},
       400,
       "move must be a boolean"},
      {"put",
       {{"project_id", id},
        {"space", "s"},
        {"key", "k"},
        {"from_file", from},
        {"content_type", "bad\r\ntype"}},
       400,
       "content_type must be a media type such as text/plain"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"from_file", scratch + "/none"}},
       400,
       "from_file must be a request body the edge spooled"},
      {"put",
       {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"from_file", outside}},
       400,
       "from_file must be a request body the edge spooled"},
      {"list",
       {{"project_id", id}, {"space", "s"}, {"limit", 0}},
       400,
       "limit must be between 1 and 10000"},
      {"list",
       {{"project_id", id}, {"space", "s"}, {"limit", -3}},
       400,
       "limit must be a non-negative integer"},
      {"get",
       {{"project_id", id}, {"space", "s"}, {"key", "k"}, {"offset", "1"}},
       400,
       "offset must be a non-negative integer"},
      {"delete_prefix",
       {{"project_id", id}, {"space", "s"}},
       400,
       "prefix is required and must be a string"},
      {"rename", {{"project_id", id}}, 404, "service storage.blobs.v1 has no method rename"},
  };
  for (const auto& c : cases) {
    auto r = call(c.method, c.request);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.request.dump().substr(0, 80) << " "
                                  << r.body;
    EXPECT_EQ(errorText(r), c.error) << c.method << " " << c.request.dump().substr(0, 80);
  }
  EXPECT_TRUE(ok("list", {{"project_id", id}, {"space", "s"}})["blobs"].empty());
  EXPECT_EQ(filesUnder(objectsDir(*server) + "/" + id), 0u);
  auto stats = server->api().post("/blobclient/stats", {{"ids", "nope"}});
  EXPECT_EQ(stats.status, 400);
  EXPECT_EQ(errorText(stats), "ids is required and must be an array of strings");
}

// ---- a crash during a large upload ----------------------------------------------------------

class CrashRecovery : public ::testing::Test {};

// The edge has the whole body once its spooled file holds every byte; berthd gets the request
// right after. Returns when that is seen (or the upload ended first).
void waitForSpooledBody(const std::string& data_dir, uintmax_t size,
                        const std::atomic<bool>& upload_done) {
  std::string spool = data_dir + "/edge/client_body";
  while (!upload_done.load()) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(spool, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code size_ec;
      if (it->is_regular_file() && it->file_size(size_ec) == size && !size_ec) return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

TEST_F(CrashRecovery, AKillDuringALargeUploadLeavesNothingPartialAndItsLeftoversAreCleaned) {
  BerthdOptions options;
  options.plugins = {"projects", "storage"};
  BerthdProcess server(options);
  server.start();
  Account owner = makeAccount(server, "crashown");
  ApiClient api = server.api(owner.token);
  mustCreate(api, "crash");
  std::string name = projectName("crash", owner.slug);
  std::string id = projectId(server, name);
  ASSERT_EQ(upload(api, name, "before.txt", "stored before the crash").status, 201);

  std::string bytes = everyByte(192 * 1024);  // 48 MB
  std::string digest = Sha256::of(bytes);
  std::atomic<bool> upload_done{false};
  std::thread uploader([&] {
    upload(api, name, "big.bin", bytes);  // answered 502 by the edge, or 201 if it won the race
    upload_done = true;
  });
  waitForSpooledBody(server.dataDir(), bytes.size(), upload_done);
  ::kill(server.pid(), SIGKILL);
  uploader.join();
  EXPECT_TRUE(eventually([&] { return !server.running(); }));

  // What a crash between a write and its rename (or its commit) leaves behind, whatever
  // moment the kill above hit: an unfinished temporary and an object no row refers to.
  std::string blobs = server.dataDir() + "/blobs";
  writeFile(blobs + "/tmp/0123456789abcdef0123456789abcdef.part", bytes.substr(0, 1000));
  std::string orphan_dir = blobs + "/objects/" + id + "/ab";
  fs::create_directories(orphan_dir);
  std::string orphan = orphan_dir + "/ab23456789abcdef0123456789abcdef";
  writeFile(orphan, bytes.substr(0, 2000));
  fs::last_write_time(orphan, fs::file_time_type::clock::now() - std::chrono::hours(2));

  // berthd again, on the same data_dir and control-plane database.
  BerthdOptions again = options;
  again.data_dir = server.dataDir();
  again.set = {"database.url=" + server.databaseUrl()};
  BerthdProcess restarted(again);
  restarted.start();
  api = restarted.api(owner.token);
  EXPECT_EQ(filesUnder(blobs + "/tmp"), 0u);
  auto files = listed(api, name);
  EXPECT_EQ(files.count("before.txt"), 1u);
  if (files.count("big.bin") > 0) {  // the upload finished before the kill: then it is whole
    EXPECT_EQ(files["big.bin"]["bytes"], bytes.size());
    EXPECT_EQ(files["big.bin"]["sha256"], digest);
    EXPECT_EQ(Sha256::of(download(restarted, name, "big.bin").body), digest);
  }
  EXPECT_EQ(files.size(), files.count("big.bin") + 1);
  // The sweep at start removes objects nothing refers to: the project's folder ends up with
  // exactly one object per listed file.
  EXPECT_TRUE(eventually([&] { return !fs::exists(orphan); }));
  EXPECT_TRUE(
      eventually([&] { return filesUnder(blobs + "/objects/" + id) == listed(api, name).size(); }));
  EXPECT_EQ(download(restarted, name, "before.txt").body, "stored before the crash");

  // And the store works as before.
  auto r = upload(api, name, "big.bin", bytes);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Sha256::of(download(restarted, name, "big.bin").body), digest);
}

}  // namespace
