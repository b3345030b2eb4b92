// ctest-label: api (two real berthds on one PostgreSQL and one S3-compatible store, s3rver:
// tests/support/cluster.hpp without its balancer)
// Releases on several nodes: node A builds a release and packs the folder its build made into
// the blob space "builds" (digest and size on the release row); node B, with its own data_dir,
// serves the release through its own edge after making the folder from that pack: fetched,
// checked against the row's digest, unpacked once (its log says so once, however many requests
// came), the same bytes (and ETag) as A. A pack whose object was overwritten in the store, or
// whose row's digest was changed, is refused on B with 503 and leaves nothing there; a release
// built before packing (no digest) is served by the node that has its folder and refused with
// 503 elsewhere; pruning removes the pack with the upload. Last, with A stopped, B runs a Node
// app whose node_modules (a link npm made) exist only in the pack.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <thread>

#include "host_requests.hpp"
#include "projects/api_support.hpp"
#include "support/release_upload.hpp"
#include "tar_builder.hpp"
#include "two_nodes.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::runtime::testing::TarBuilder;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A static site with a folder, an executable file and a link inside the release.
std::string staticSite(const std::string& word) {
  return TarBuilder()
      .file("index.html", "<h1>" + word + "</h1>\n")
      .file("assets/app.js", "console.log('" + word + "');\n")
      .file("assets/tool.sh", "#!/bin/sh\necho " + word + "\n", 0755)
      .symlink("latest.html", "index.html")
      .finish();
}

// How often `needle` appears in `text`.
size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string unpackedLine(const std::string& release) {
  return "release " + release + " unpacked on this node from its packed build";
}

class ApiReleaseFetch : public TwoNodes<ApiReleaseFetch> {
 protected:
  static void SetUpTestSuite() {
    ClusterOptions options;
    options.extra_yaml = "runtime:\n  keep_releases: 1\n  start_timeout_seconds: 20\n";
    startNodes(options, "fetcher");
  }

  static std::string releaseDir(const BerthdProcess& node, const std::string& name,
                                const std::string& release) {
    return node.dataDir() + "/releases/" + projectId(nodeA(), name) + "/" + release;
  }
  // What is in B's folder of the project's releases (hidden unpacking folders included).
  static std::vector<std::string> folderOnB(const std::string& name) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e :
         fs::directory_iterator(nodeB().dataDir() + "/releases/" + projectId(nodeA(), name), ec))
      names.push_back(e.path().filename().string());
    return names;
  }
  // The object (in the bucket) of a blob, from the storage plugin's table.
  static std::string objectOf(const std::string& name, const std::string& space,
                              const std::string& key) {
    auto objects =
        sql("SELECT object FROM storage.blobs WHERE project_id = $1 AND space = $2 AND key = $3",
            {projectId(nodeA(), name), space, key});
    return objects.empty() ? "" : objects[0];
  }
};

TEST_F(ApiReleaseFetch, AStaticSiteBuiltOnAIsServedByBFromItsPack) {
  const std::string name = project("site");
  const std::string id = deployLive(api(), name, staticSite("first"));
  // The pack is recorded on the row and kept in the store.
  // Five entries: index.html, assets/, assets/app.js, assets/tool.sh, latest.html.
  auto row =
      sql("SELECT (build_sha256 ~ '^[0-9a-f]{64}$' AND build_size > 0 AND build_entries = 5 AND "
          "build_bytes > 0)::text FROM runtime.runtime_releases WHERE id = $1",
          {id});
  ASSERT_EQ(row, std::vector<std::string>{"true"});
  EXPECT_NE(objectOf(name, "builds", id), "");
  EXPECT_FALSE(fs::exists(releaseDir(nodeB(), name, id)));

  auto onA = onProjectHost(nodeA(), name, "/assets/app.js");
  ASSERT_EQ(onA.status, 200) << onA.body;
  auto onB = onProjectHost(nodeB(), name, "/assets/app.js");
  ASSERT_EQ(onB.status, 200) << onB.body;
  EXPECT_EQ(onB.body, onA.body);
  EXPECT_EQ(onB.header("etag"), onA.header("etag"));  // modification times kept
  auto page = onProjectHost(nodeB(), name, "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<h1>first</h1>\n");
  EXPECT_EQ(onProjectHost(nodeB(), name, "/latest.html").body, "<h1>first</h1>\n");

  // The folder on B is the one A made: modes, the link's own text.
  const std::string dir = releaseDir(nodeB(), name, id);
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/assets/tool.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((dir + "/index.html").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(fs::read_symlink(dir + "/latest.html"), "index.html");
  // Unpacked once, however many requests came.
  EXPECT_EQ(count(nodeB().output(), unpackedLine(id)), 1u) << nodeB().output();
  EXPECT_EQ(count(nodeA().output(), unpackedLine(id)), 0u);  // A has the folder it built
  EXPECT_TRUE(eventually([&] {
    for (const auto& entry : projectLogs(api(), name))
      if (entry.value("message", "").starts_with(unpackedLine(id))) return true;
    return false;
  }));
}

TEST_F(ApiReleaseFetch, ConcurrentFirstRequestsOnBShareOneUnpack) {
  const std::string name = project("herd");
  // Text gzip cannot shrink much (runtime.max_unpack_ratio), enough to take the unpack a while.
  auto text = [](int i) {
    std::mt19937 random(static_cast<unsigned>(i));
    std::string out(8000, ' ');
    for (auto& c : out) c = static_cast<char>('a' + random() % 26);
    return out;
  };
  TarBuilder tar;
  tar.file("index.html", "<h1>herd</h1>\n");
  for (int i = 0; i < 300; ++i) tar.file("files/f" + std::to_string(i) + ".txt", text(i));
  const std::string id = deployLive(api(), name, tar.finish());

  constexpr int kRequests = 20;
  std::vector<HttpResult> answers(kRequests);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i)
    threads.emplace_back([&answers, &name, i] {
      answers[i] = onProjectHost(nodeB(), name, "/files/f" + std::to_string(i) + ".txt");
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kRequests; ++i) {
    EXPECT_EQ(answers[i].status, 200) << i << ": " << answers[i].body;
    EXPECT_EQ(answers[i].body, text(i)) << i;
  }
  EXPECT_EQ(count(nodeB().output(), unpackedLine(id)), 1u);
  EXPECT_EQ(folderOnB(name), std::vector<std::string>{id});  // no half folder left beside it
}

TEST_F(ApiReleaseFetch, APackWhoseDigestDoesNotMatchTheRowIsRefusedAndLeavesNothing) {
  const std::string name = project("digest");
  const std::string id = deployLive(api(), name, staticSite("digest"));
  const std::string wrong(64, '0');
  ASSERT_EQ(sql("UPDATE runtime.runtime_releases SET build_sha256 = $2 WHERE id = $1 "
                "RETURNING id",
                {id, wrong})
                .size(),
            1u);
  auto r = onProjectHost(nodeB(), name, "/index.html");
  EXPECT_EQ(r.status, 503) << r.body;
  const std::string text = errorText(r);
  EXPECT_TRUE(text.starts_with("release " + id +
                               " was refused: its packed files in the blob store are not the "
                               "ones its build recorded"))
      << text;
  EXPECT_NE(text.find("expected sha256 " + wrong), std::string::npos) << text;
  EXPECT_NE(text.find("nothing of it was unpacked"), std::string::npos) << text;
  EXPECT_TRUE(folderOnB(name).empty());
  EXPECT_EQ(count(nodeB().output(), unpackedLine(id)), 0u);
  EXPECT_NE(nodeB().output().find("release " + id + " was refused"), std::string::npos);
  // The node that built it still serves its own folder.
  EXPECT_EQ(onProjectHost(nodeA(), name, "/index.html").status, 200);
}

TEST_F(ApiReleaseFetch, APackOverwrittenInTheStoreIsRefusedAndLeavesNothing) {
  const std::string name = project("tamper");
  const std::string id = deployLive(api(), name, staticSite("tamper"));
  const std::string object = objectOf(name, "builds", id);
  ASSERT_NE(object, "");
  const std::string file = cluster->store().directory() + "/data/" + cluster->store().bucket() +
                           "/" + object + "._S3rver_object";
  ASSERT_TRUE(fs::exists(file)) << file;
  std::string bytes = readFile(file);
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x55;  // same size, other bytes
  writeFile(file, bytes);

  auto r = onProjectHost(nodeB(), name, "/index.html");
  EXPECT_EQ(r.status, 503) << r.body;
  // The storage plugin's own check of its copy refuses it first.
  EXPECT_EQ(errorText(r), "the files of release " + id +
                              " could not be fetched from the blob store: object storage did "
                              "not return the blob; try again");
  EXPECT_TRUE(folderOnB(name).empty());
  EXPECT_EQ(count(nodeB().output(), unpackedLine(id)), 0u);
}

TEST_F(ApiReleaseFetch, AReleaseBuiltBeforePackingIsServedWhereItsFolderIsAndRefusedElsewhere) {
  const std::string name = project("older");
  const std::string id = deployLive(api(), name, staticSite("older"));
  // As a release built before this change: no pack recorded.
  ASSERT_EQ(sql("UPDATE runtime.runtime_releases SET build_sha256 = NULL, build_size = NULL, "
                "build_entries = NULL, build_bytes = NULL WHERE id = $1 RETURNING id",
                {id})
                .size(),
            1u);
  auto onA = onProjectHost(nodeA(), name, "/index.html");
  EXPECT_EQ(onA.status, 200) << onA.body;
  auto onB = onProjectHost(nodeB(), name, "/index.html");
  EXPECT_EQ(onB.status, 503) << onB.body;
  EXPECT_EQ(errorText(onB),
            "release " + id + " was built on " +
                sql("SELECT build_node FROM runtime.runtime_releases WHERE id = $1", {id})[0] +
                " before built releases were kept in the blob store, so its files are only "
                "there; upload it again to serve it from this node");
  EXPECT_TRUE(folderOnB(name).empty());
}

TEST_F(ApiReleaseFetch, PruningRemovesThePackWithTheUpload) {
  const std::string name = project("prune");
  const std::string first = deployLive(api(), name, staticSite("one"));
  ASSERT_EQ(onProjectHost(nodeB(), name, "/").body, "<h1>one</h1>\n");
  ASSERT_NE(objectOf(name, "builds", first), "");
  const std::string second = deployLive(api(), name, staticSite("two"));  // keep_releases: 1
  EXPECT_TRUE(eventually([&] {
    return objectOf(name, "builds", first).empty() && objectOf(name, "releases", first).empty();
  }));
  EXPECT_NE(objectOf(name, "builds", second), "");
  // B follows the live release (its watch job) and serves the new one from its pack.
  EXPECT_TRUE(eventually([&] {
    return onProjectHost(nodeB(), name, "/").body == "<h1>two</h1>\n";
  })) << onProjectHost(nodeB(), name, "/").body;
}

// Last: it stops node A.
TEST_F(ApiReleaseFetch, ZZANodeAppBuiltOnARunsOnBWithAStopped) {
  const std::string name = project("nodeapp");
  json package = {{"name", "fetched"},
                  {"version", "1.0.0"},
                  {"main", "server.js"},
                  {"dependencies", {{"greeting", "file:./greeting"}}}};
  const std::string server_js =
      "const greeting = require('greeting');\n"
      "require('http').createServer((req, res) => res.end(greeting + ' ' + req.url + '\\n'))\n"
      "  .listen(Number(process.env.PORT), '127.0.0.1');\n";
  const std::string archive =
      TarBuilder()
          .file("package.json", package.dump())
          .file("server.js", server_js)
          .file("greeting/package.json",
                R"({"name": "greeting", "version": "1.0.0", "main": "index.js"})")
          .file("greeting/index.js", "module.exports = 'hello from the pack';\n")
          .finish();
  const std::string id = deployLive(api(), name, archive, std::chrono::seconds(120));
  // npm made node_modules on A (the upload has none): a link to ../greeting.
  ASSERT_TRUE(fs::is_symlink(releaseDir(nodeA(), name, id) + "/node_modules/greeting"));

  stopCleanly(nodeA());
  auto r = onProjectHost(nodeB(), name, "/hi");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "hello from the pack /hi\n");
  const std::string dir = releaseDir(nodeB(), name, id);
  ASSERT_TRUE(fs::is_symlink(dir + "/node_modules/greeting"));
  EXPECT_EQ(fs::read_symlink(dir + "/node_modules/greeting"), "../greeting");
  EXPECT_EQ(count(nodeB().output(), unpackedLine(id)), 1u);
}

}  // namespace
