// ctest-label: api (starts a real berthd)
// The stored-file routes over real HTTP, through berthd's nginx edge: uploads (binary bodies,
// the empty file, exactly 64 MB and one byte more), paths with spaces, unicode and
// percent-encoding, every refused path, replacing, listing and deleting; /_files/ on the
// project's host with Range, conditional requests and HEAD; files_count and files_bytes on
// the Project; another account's 404 on every route; and deleting a project, including a
// backend that does not confirm (blobs of every space go with the project).
#include <gtest/gtest.h>

#include <fstream>

#include "sha256.hpp"
#include "storage_support.hpp"
#include "support/berthd_suite.hpp"
#include "support/process_pause.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::storage_api;
using berth::storage::Sha256;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class ApiFiles : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    // blobclient: to put a blob in another space, as the runtime would.
    options.plugins = {"projects", "storage", "blobclient"};
    options.extra_yaml = "projects:\n  creation_burst: 100\n";
    startServer(options);
    owner = std::make_unique<Account>(makeAccount(*server, "filesown"));
    stranger = std::make_unique<Account>(makeAccount(*server, "filesoth"));
  }
  static void TearDownTestSuite() {
    owner.reset();
    stranger.reset();
    dropServer();
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }
  // A new project of the owner's, named <label>-filesown.
  static std::string project(const std::string& label) {
    mustCreate(api(*owner), label);
    return projectName(label, owner->slug);
  }
  static std::string fileUrl(const std::string& name, const std::string& encoded_path) {
    return "http://" + name + ".localhost:" + std::to_string(server->port()) + "/_files/" +
           encoded_path;
  }
  static json projectView(const std::string& name) {
    auto r = api(*owner).get("/projects/" + name);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
  }

  static inline std::unique_ptr<Account> owner;
  static inline std::unique_ptr<Account> stranger;
};

TEST_F(ApiFiles, AnUploadAnswers201AndIsServedOnTheProjectHost) {
  std::string name = project("upload");
  auto r = upload(api(*owner), name, "hello.txt", "hello, world\n");
  ASSERT_EQ(r.status, 201) << r.body;
  json file = r.json();
  EXPECT_EQ(file["path"], "hello.txt");
  EXPECT_EQ(file["bytes"], 13);
  EXPECT_EQ(file["url"], fileUrl(name, "hello.txt"));
  EXPECT_EQ(file["content_type"], "text/plain");
  EXPECT_EQ(file["sha256"], Sha256::of("hello, world\n"));
  EXPECT_EQ(r.header("content-type"), "application/json");

  auto files = listed(api(*owner), name);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files["hello.txt"]["bytes"], 13);
  EXPECT_EQ(files["hello.txt"]["url"], file["url"]);
  EXPECT_EQ(files["hello.txt"]["content_type"], "text/plain");

  auto got = download(*server, name, "hello.txt");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.body, "hello, world\n");
  EXPECT_EQ(got.header("content-type"), "text/plain");
  EXPECT_EQ(got.header("content-length"), "13");
  EXPECT_FALSE(got.header("etag").empty());
  EXPECT_FALSE(got.header("last-modified").empty());
  EXPECT_EQ(got.header("accept-ranges"), "bytes");
}

TEST_F(ApiFiles, ContentTypesComeFromTheExtension) {
  std::string name = project("types");
  struct Case {
    std::string path, type;
  };
  for (const Case& c : std::vector<Case>{{"index.html", "text/html"},
                                         {"site/style.css", "text/css"},
                                         {"data.JSON", "application/json"},
                                         {"logo.png", "image/png"},
                                         {"icon.svg", "image/svg+xml"},
                                         {"README", "application/octet-stream"},
                                         {"blob.unknownext", "application/octet-stream"}}) {
    auto r = upload(api(*owner), name, c.path, "x");
    ASSERT_EQ(r.status, 201) << c.path << " " << r.body;
    EXPECT_EQ(r.json()["content_type"], c.type) << c.path;
    EXPECT_EQ(download(*server, name, c.path).header("content-type"), c.type) << c.path;
  }
}

TEST_F(ApiFiles, EveryByteValueAndTheEmptyFileRoundTrip) {
  std::string name = project("binary");
  std::string bytes = everyByte(257);  // 65792 bytes, every value in every position mod 256
  auto r = upload(api(*owner), name, "all.bin", bytes);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["bytes"], bytes.size());
  EXPECT_EQ(r.json()["sha256"], Sha256::of(bytes));
  auto got = download(*server, name, "all.bin");
  ASSERT_EQ(got.status, 200);
  EXPECT_TRUE(got.body == bytes) << "the served bytes differ from the uploaded ones";

  r = upload(api(*owner), name, "empty.txt", "");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["bytes"], 0);
  EXPECT_EQ(r.json()["sha256"], Sha256::of(""));
  got = download(*server, name, "empty.txt");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, "");
  EXPECT_EQ(got.header("content-length"), "0");
  EXPECT_EQ(listed(api(*owner), name).at("empty.txt")["bytes"], 0);
}

TEST_F(ApiFiles, SixtyFourMegabytesAreStoredAndOneByteMoreIs413WithNothingStored) {
  std::string name = project("limit");
  std::string bytes = everyByte(256 * 1024);  // 64 MB exactly
  ASSERT_EQ(bytes.size(), 64u * 1024 * 1024);
  auto r = upload(api(*owner), name, "exact.bin", bytes);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["bytes"], 67108864);
  std::string digest = Sha256::of(bytes);
  EXPECT_EQ(r.json()["sha256"], digest);
  auto got = download(*server, name, "exact.bin");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body.size(), bytes.size());
  EXPECT_EQ(Sha256::of(got.body), digest);

  size_t objects = filesUnder(objectsDir(*server));
  bytes.push_back('!');
  for (const std::string& path :
       std::vector<std::string>{"over.bin", "exact.bin"}) {  // a new path, and a replace
    r = upload(api(*owner), name, path, bytes);
    EXPECT_EQ(r.status, 413) << path;
    EXPECT_EQ(errorText(r), kTooLarge) << path;
  }
  auto files = listed(api(*owner), name);
  EXPECT_EQ(files.size(), 1u);
  EXPECT_EQ(files["exact.bin"]["sha256"], digest);
  EXPECT_EQ(filesUnder(objectsDir(*server)), objects);
  EXPECT_EQ(projectView(name)["files_bytes"], 67108864);
}

TEST_F(ApiFiles, PathsWithSpacesUnicodeAndPercentEncodingRoundTrip) {
  std::string name = project("paths");
  struct Case {
    std::string encoded, path;
  };
  const std::vector<Case> cases = {
      {"a/b%20c/%C3%BC.txt", "a/b c/\xC3\xBC.txt"},
      {"100%25.txt", "100%.txt"},
      {"q%3Fx%23y.txt", "q?x#y.txt"},
      {"x+y.txt", "x+y.txt"},
      {"%E6%97%A5%E6%9C%AC/%E3%83%87%E3%83%BC%E3%82%BF.json", "日本/データ.json"},
      {"%2Eenv", ".env"},
      {"a/b", "a/b"},
      {"a", "a"},  // a file and a "folder" of the same name are independent keys
  };
  for (const auto& c : cases) {
    auto r = upload(api(*owner), name, c.encoded, "body of " + c.path);
    ASSERT_EQ(r.status, 201) << c.encoded << " " << r.body;
    EXPECT_EQ(r.json()["path"], c.path);
    // The url spells the path encoded, and decodes back to it.
    std::string url = r.json()["url"];
    EXPECT_EQ(url.rfind(fileUrl(name, ""), 0), 0u) << url;
    auto got = download(*server, name, url.substr(fileUrl(name, "").size()));
    EXPECT_EQ(got.status, 200) << url;
    EXPECT_EQ(got.body, "body of " + c.path) << url;
    EXPECT_EQ(download(*server, name, c.encoded).body, "body of " + c.path) << c.encoded;
  }
  auto files = listed(api(*owner), name);
  EXPECT_EQ(files.size(), cases.size());
  for (const auto& c : cases) EXPECT_EQ(files.count(c.path), 1u) << c.path;
  for (const auto& c : cases) {
    auto r = removeFile(api(*owner), name, c.encoded);
    EXPECT_EQ(r.status, 204) << c.encoded << " " << r.body;
    EXPECT_EQ(download(*server, name, c.encoded).status, 404) << c.encoded;
  }
  EXPECT_TRUE(listed(api(*owner), name).empty());
}

TEST_F(ApiFiles, EveryRefusedPathAnswers400AndStoresNothing) {
  std::string name = project("refused");
  ASSERT_EQ(upload(api(*owner), name, "kept.txt", "kept").status, 201);
  size_t objects = filesUnder(objectsDir(*server));
  const std::string dots = "a file path cannot have . or .. segments";
  const std::string empty_segment =
      "a file path cannot have empty segments (no leading, trailing or double /)";
  struct Case {
    std::string encoded, error;
  };
  const std::vector<Case> cases = {
      {"", "a file path cannot be empty"},
      {"a/%2E%2E/b", dots},
      {"%2E%2E/kept.txt", dots},
      {"a/%2E/b", dots},
      {"%2E", dots},
      {"a/%2E%2E", dots},
      // nginx refuses a NUL in a URL before berthd sees it, with the edge's JSON 400.
      {"a%00b.txt", "the request is malformed: its URL or headers cannot be read"},
      {"a%5Cb.txt", "a file path cannot contain a backslash"},
      {std::string(1025, 'x'), "a file path can be at most 1024 bytes"},
      {std::string(1023, 'x') + "%C3%BC", "a file path can be at most 1024 bytes"},
      {"a//b", empty_segment},
      {"/a", empty_segment},
      {"a/", empty_segment},
      {"a%0Ab", "a file path cannot contain control characters"},
      {"%FF.txt", "a file path must be UTF-8 text"},
  };
  for (const auto& c : cases) {
    auto r = upload(api(*owner), name, c.encoded, "refused");
    EXPECT_EQ(r.status, 400) << c.encoded.substr(0, 40) << " " << r.body.substr(0, 200);
    EXPECT_EQ(errorText(r), c.error) << c.encoded.substr(0, 40);
    r = removeFile(api(*owner), name, c.encoded);
    EXPECT_EQ(r.status, 400) << c.encoded.substr(0, 40) << " " << r.body.substr(0, 200);
    EXPECT_EQ(errorText(r), c.error) << c.encoded.substr(0, 40);
  }
  // The longest accepted path is exactly 1024 bytes.
  auto r = upload(api(*owner), name, std::string(1024, 'x'), "long");
  EXPECT_EQ(r.status, 201) << r.body;
  auto files = listed(api(*owner), name);
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(files.count("kept.txt"), 1u);
  EXPECT_EQ(filesUnder(objectsDir(*server)), objects + 1);
  EXPECT_EQ(projectView(name)["files_count"], 2);
}

TEST_F(ApiFiles, RangesAnswer206AndAnUnsatisfiableRange416) {
  std::string name = project("ranges");
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes.push_back(static_cast<char>('a' + i % 26));
  ASSERT_EQ(upload(api(*owner), name, "r.txt", bytes).status, 201);

  auto r = download(*server, name, "r.txt", {"Range: bytes=10-19"});
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.body, bytes.substr(10, 10));
  EXPECT_EQ(r.header("content-range"), "bytes 10-19/1000");
  EXPECT_EQ(r.header("content-length"), "10");
  EXPECT_EQ(r.header("content-type"), "text/plain");

  r = download(*server, name, "r.txt", {"Range: bytes=-5"});
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.body, bytes.substr(995));
  r = download(*server, name, "r.txt", {"Range: bytes=990-"});
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.body, bytes.substr(990));
  EXPECT_EQ(r.header("content-range"), "bytes 990-999/1000");

  r = download(*server, name, "r.txt", {"Range: bytes=1000-"});
  EXPECT_EQ(r.status, 416);
  EXPECT_EQ(r.header("content-range"), "bytes */1000");
  r = download(*server, name, "r.txt", {"Range: bytes=5000-6000"});
  EXPECT_EQ(r.status, 416);
}

TEST_F(ApiFiles, ConditionalRequestsAnswer304) {
  std::string name = project("conditional");
  ASSERT_EQ(upload(api(*owner), name, "c.css", "body { color: red }").status, 201);
  auto first = download(*server, name, "c.css");
  ASSERT_EQ(first.status, 200);
  std::string etag = first.header("etag"), modified = first.header("last-modified");
  ASSERT_FALSE(etag.empty());
  ASSERT_FALSE(modified.empty());

  auto r = download(*server, name, "c.css", {"If-None-Match: " + etag});
  EXPECT_EQ(r.status, 304);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(r.header("etag"), etag);
  r = download(*server, name, "c.css", {"If-Modified-Since: " + modified});
  EXPECT_EQ(r.status, 304);
  EXPECT_EQ(r.body, "");
  r = download(*server, name, "c.css", {"If-None-Match: \"something-else\""});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "body { color: red }");
  r = download(*server, name, "c.css", {"If-Modified-Since: Thu, 01 Jan 1970 00:00:01 GMT"});
  EXPECT_EQ(r.status, 200);
}

TEST_F(ApiFiles, HeadAnswersTheHeadersWithoutTheBody) {
  std::string name = project("head");
  ASSERT_EQ(upload(api(*owner), name, "h.json", "{\"a\": 1}").status, 201);
  auto get = download(*server, name, "h.json");
  auto head = onProjectHost(*server, name, "HEAD", "/_files/h.json");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(head.header("content-length"), "8");
  EXPECT_EQ(head.header("content-type"), "application/json");
  EXPECT_EQ(head.header("etag"), get.header("etag"));
  EXPECT_EQ(head.header("last-modified"), get.header("last-modified"));
  EXPECT_EQ(onProjectHost(*server, name, "HEAD", "/_files/missing.json").status, 404);
}

TEST_F(ApiFiles, ReplacingAFileChangesItsBytesEtagAndLastModified) {
  std::string name = project("replace");
  auto first = upload(api(*owner), name, "doc.txt", "first");
  ASSERT_EQ(first.status, 201);
  auto before = download(*server, name, "doc.txt");
  size_t objects = filesUnder(objectsDir(*server));

  // The same size, straight away: the edge's validators must still change.
  auto second = upload(api(*owner), name, "doc.txt", "again");
  ASSERT_EQ(second.status, 201) << second.body;
  EXPECT_EQ(second.json()["bytes"], 5);
  EXPECT_EQ(second.json()["created_at"], first.json()["created_at"]);
  EXPECT_GT(second.json()["updated_at"].get<int64_t>(), first.json()["updated_at"].get<int64_t>());
  auto after = download(*server, name, "doc.txt");
  EXPECT_EQ(after.body, "again");
  EXPECT_NE(after.header("etag"), before.header("etag"));
  EXPECT_NE(after.header("last-modified"), before.header("last-modified"));
  EXPECT_EQ(download(*server, name, "doc.txt", {"If-None-Match: " + before.header("etag")}).status,
            200);
  EXPECT_EQ(filesUnder(objectsDir(*server)), objects);  // the old object is gone
  auto files = listed(api(*owner), name);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files["doc.txt"]["sha256"], Sha256::of("again"));
}

TEST_F(ApiFiles, FilesCountAndBytesFollowUploadsReplacesAndDeletes) {
  std::string name = project("counts");
  using Counts = std::pair<int64_t, int64_t>;  // files_count, files_bytes
  auto counts = [&] {
    json p = projectView(name);
    return Counts(p["files_count"].get<int64_t>(), p["files_bytes"].get<int64_t>());
  };
  EXPECT_EQ(counts(), Counts(0, 0));
  ASSERT_EQ(upload(api(*owner), name, "one.txt", "0123456789").status, 201);
  EXPECT_EQ(counts(), Counts(1, 10));
  ASSERT_EQ(upload(api(*owner), name, "two.txt", "01234").status, 201);
  EXPECT_EQ(counts(), Counts(2, 15));
  ASSERT_EQ(upload(api(*owner), name, "one.txt", "012").status, 201);
  EXPECT_EQ(counts(), Counts(2, 8));
  ASSERT_EQ(removeFile(api(*owner), name, "two.txt").status, 204);
  EXPECT_EQ(counts(), Counts(1, 3));

  // The list of projects carries the same numbers; PATCH answers zeros as docs/openapi.yaml says.
  auto all = api(*owner).get("/projects");
  auto body = all.json();
  bool seen = false;
  for (const auto& p : body.at("projects")) {
    if (p.at("name") != name) continue;
    seen = true;
    EXPECT_EQ(p.at("files_count"), 1);
    EXPECT_EQ(p.at("files_bytes"), 3);
  }
  EXPECT_TRUE(seen);
  auto patched = api(*owner).patch("/projects/" + name, {{"cmd", ""}});
  EXPECT_EQ(patched.json()["files_count"], 0);
  EXPECT_EQ(patched.json()["files_bytes"], 0);
}

TEST_F(ApiFiles, MissingFilesAnswer404) {
  std::string name = project("missing");
  auto r = download(*server, name, "nothing.txt");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no such file");
  r = removeFile(api(*owner), name, "nothing.txt");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no file called nothing.txt");
  r = download(*server, "nosuchproject-filesown", "x.txt");
  EXPECT_EQ(r.status, 404);
}

// A request to the project host that gives up soon (berthd may be paused); status 0 then.
HttpResult quickly(const BerthdProcess& server, const std::string& project,
                   const std::string& method, const std::string& path,
                   std::vector<std::string> headers = {}, long timeout_ms = 2000) {
  return sendToHost(server.baseUrl(), project + ".localhost", method, path, std::move(headers), "",
                    timeout_ms);
}

TEST_F(ApiFiles, TheEdgeSendsStoredFilesItHasSeenWithoutAskingBerthd) {
  std::string name = project("edgetree");
  ASSERT_EQ(upload(api(*owner), name, "dir/a%20b.txt", "first version").status, 201);
  auto first = download(*server, name, "dir/a%20b.txt");  // berthd answers, linking the host
  ASSERT_EQ(first.status, 200) << first.body;
  std::string tree = server->dataDir() + "/blobs/edge";
  ASSERT_TRUE(fs::is_symlink(tree + "/hosts/" + name + ".localhost"));
  std::string id = fs::read_symlink(tree + "/hosts/" + name + ".localhost").filename();
  EXPECT_TRUE(fs::exists(tree + "/projects/" + id + "/dir/a b.txt"));
  {
    ProcessPause paused(server->pid());  // the edge alone answers
    auto hit = quickly(*server, name, "GET", "/_files/dir/a%20b.txt");
    EXPECT_EQ(hit.status, 200) << hit.body;
    EXPECT_EQ(hit.body, "first version");
    EXPECT_EQ(hit.header("content-type"), "text/plain");
    EXPECT_EQ(hit.header("etag"), first.header("etag"));
    EXPECT_EQ(hit.header("last-modified"), first.header("last-modified"));
    auto range = quickly(*server, name, "GET", "/_files/dir/a%20b.txt", {"Range: bytes=0-4"});
    EXPECT_EQ(range.status, 206);
    EXPECT_EQ(range.body, "first");
    auto head = quickly(*server, name, "HEAD", "/_files/dir/a%20b.txt");
    EXPECT_EQ(head.status, 200);
    EXPECT_EQ(head.header("content-length"), "13");
    auto again = quickly(*server, name, "GET", "/_files/dir/a%20b.txt",
                         {"If-None-Match: " + first.header("etag")});
    EXPECT_EQ(again.status, 304);
    // A schedule's run is berthd's to log.
    EXPECT_EQ(quickly(*server, name, "GET", "/_files/dir/a%20b.txt", {"x-berth-schedule: s1"}, 500)
                  .status,
              0);
    // A file the tree does not have waits for berthd.
    EXPECT_NE(quickly(*server, name, "GET", "/_files/nothing.txt").status, 404);
  }

  // A replace is what the edge sends once it is answered; a delete is gone at once.
  ASSERT_EQ(upload(api(*owner), name, "dir/a%20b.txt", "second").status, 201);
  {
    ProcessPause paused(server->pid());  // the edge alone answers
    auto hit = quickly(*server, name, "GET", "/_files/dir/a%20b.txt");
    EXPECT_EQ(hit.status, 200);
    EXPECT_EQ(hit.body, "second");
  }
  ASSERT_EQ(removeFile(api(*owner), name, "dir/a%20b.txt").status, 204);
  EXPECT_FALSE(fs::exists(tree + "/projects/" + id + "/dir/a b.txt"));
  auto gone = download(*server, name, "dir/a%20b.txt");
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(errorText(gone), "no such file");

  // Spellings nginx would normalise are berthd's to judge, tree or not: with berthd paused,
  // the edge does not answer them itself. (Dot segments too; curl resolves those first.)
  ASSERT_EQ(upload(api(*owner), name, "x/y.txt", "y").status, 201);
  ASSERT_EQ(download(*server, name, "x/y.txt").status, 200);
  {
    ProcessPause paused(server->pid());  // the edge alone answers
    EXPECT_EQ(quickly(*server, name, "GET", "/_files/x/y.txt").status, 200);
    for (const char* odd : {"x//y.txt", "x%2Fy.txt", "x%2fy.txt", "x/%2e/y.txt", "x%5Cy.txt"})
      EXPECT_EQ(quickly(*server, name, "GET", std::string("/_files/") + odd, {}, 500).status, 0)
          << odd;
    EXPECT_EQ(quickly(*server, name, "POST", "/_files/x/y.txt", {}, 500).status, 0);
  }
  EXPECT_EQ(download(*server, name, "x//y.txt").status, 404);
  EXPECT_EQ(onProjectHost(*server, name, "POST", "/_files/x/y.txt").status, 405);

  // The project's tree and host link go with it.
  ASSERT_EQ(api(*owner).del("/projects/" + name).status, 204);
  EXPECT_FALSE(fs::exists(tree + "/projects/" + id));
  EXPECT_FALSE(fs::is_symlink(tree + "/hosts/" + name + ".localhost"));
  EXPECT_EQ(download(*server, name, "x/y.txt").status, 404);
}

TEST_F(ApiFiles, AnotherAccountGets404OnEveryRouteAndChangesNothing) {
  std::string name = project("private");
  ASSERT_EQ(upload(api(*owner), name, "secret.txt", "mine").status, 201);
  const std::string missing = "no project called " + name;
  auto r = upload(api(*stranger), name, "new.txt", "theirs");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), missing);
  r = upload(api(*stranger), name, "secret.txt", "theirs");
  EXPECT_EQ(r.status, 404);
  r = upload(api(*stranger), name, "", "theirs");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), missing);
  r = api(*stranger).get("/projects/" + name + "/files");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), missing);
  r = removeFile(api(*stranger), name, "secret.txt");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), missing);
  // The same answers as for a project that does not exist at all.
  r = upload(api(*owner), "ghost-filesown", "a.txt", "x");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called ghost-filesown");
  EXPECT_EQ(api(*owner).get("/projects/ghost-filesown/files").status, 404);
  EXPECT_EQ(removeFile(api(*owner), "ghost-filesown", "a.txt").status, 404);
  // Without a token: 401.
  EXPECT_EQ(upload(server->api(), name, "a.txt", "x").status, 401);
  EXPECT_EQ(server->api().get("/projects/" + name + "/files").status, 401);

  auto files = listed(api(*owner), name);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(download(*server, name, "secret.txt").body, "mine");
}

// Deleting a project removes its files; when the backend does not confirm, the delete answers
// 502, keeps the project, and can be sent again. (One test: each project delete drops a
// database, which costs seconds.)
TEST_F(ApiFiles, DeletingAProjectRemovesItsFilesAndAnUnconfirmedRemovalIs502) {
  std::string name = project("doomed");
  for (const std::string& path : std::vector<std::string>{"a.txt", "b/c.txt", "d.bin"})
    ASSERT_EQ(upload(api(*owner), name, path, "bytes of " + path).status, 201);
  std::string id = projectId(*server, name);
  std::string dir = objectsDir(*server) + "/" + id;
  // A blob of another plugin's space (a release archive) goes with the project too.
  std::string archive = server->dataDir() + "/edge/client_body/" + id + ".source";
  std::ofstream(archive) << "release archive";
  json release = {{"project_id", id}, {"space", "releases"}, {"key", "r1.tar.gz"}};
  json put = release;
  put["from_file"] = archive;
  ASSERT_EQ(server->api().post("/blobclient/blobs/put", put).status, 200);
  fs::remove(archive);
  EXPECT_EQ(filesUnder(dir), 4u);
  // Something the backend cannot remove: a non-empty folder where it expects object files.
  fs::path shard = fs::directory_iterator(dir)->path();
  fs::create_directories(shard / "obstacle" / "inside");

  auto r = api(*owner).del("/projects/" + name);
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(errorText(r), "object storage did not confirm removal; try again");
  EXPECT_EQ(api(*owner).get("/projects/" + name).status, 200);  // the project stays
  r = api(*owner).del("/projects/" + name);
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(api(*owner).get("/projects/" + name).status, 200);

  fs::remove_all(shard / "obstacle");
  r = api(*owner).del("/projects/" + name);
  ASSERT_EQ(r.status, 204) << r.body;
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(api(*owner).get("/projects/" + name).status, 404);
  EXPECT_EQ(server->api().post("/blobclient/blobs/stat", release).status, 404);
  EXPECT_EQ(download(*server, name, "a.txt").status, 404);
  // The name is free again, and the new project starts without files.
  mustCreate(api(*owner), "doomed");
  EXPECT_TRUE(listed(api(*owner), name).empty());
  EXPECT_EQ(projectView(name)["files_count"], 0);
  EXPECT_EQ(download(*server, name, "a.txt").status, 404);
}

}  // namespace
