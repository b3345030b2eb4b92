// ctest-label: api (starts a real berthd)
// The release and log routes over real HTTP, through berthd's nginx edge, with the projects,
// storage and runtime plugins: an upload answered 202 that becomes live (and the Project's
// `live`), x-berth-cmd recorded, 413 above 256 MB, every refused archive failing with its
// error and nothing left on disk, 409 while a (deliberately gated) npm build runs, promote,
// 410 after pruning and for a failed release, 404 for another account's project and an
// unknown release, the listing caps, the logs route, builds interrupted by a stopped berthd,
// and deleting a project removing its releases.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../projects/api_support.hpp"
#include "support/berthd_suite.hpp"
#include "support/release_upload.hpp"
#include "tar_builder.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using berth::runtime::testing::TarBuilder;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class ApiReleases : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    // Small limits, so that a tar bomb is cheap and pruning shows after three releases; the
    // ratio limit (unit-tested in releases_test) is raised so that the byte limit shows.
    options.extra_yaml =
        "projects:\n  creation_burst: 100\n"
        "runtime:\n  keep_releases: 2\n  max_release_mb: 1\n  max_release_files: 20\n"
        "  max_unpack_ratio: 1000000\n";
    startServer(options);
    owner = std::make_unique<Account>(makeAccount(*server, "relown"));
    stranger = std::make_unique<Account>(makeAccount(*server, "reloth"));
    gate_dir = new std::string(makeTempDir("berth-release-gate"));
  }
  static void TearDownTestSuite() {
    stopServer();  // its threads joined, and no sanitizer report
    removeTree(*gate_dir);
    delete gate_dir;
    owner.reset();
    stranger.reset();
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }
  static std::string project(const std::string& label, const Account& a = *owner) {
    mustCreate(api(a), label);
    return projectName(label, a.slug);
  }
  static HttpResult deploy(const std::string& name, const std::string& archive,
                           std::vector<std::string> headers = {}, const Account& a = *owner) {
    headers.push_back("Content-Type: application/gzip");
    return api(a).raw("POST", "/projects/" + name + "/deploys", archive, headers);
  }
  // Uploads and returns the 202 Release; fails the test otherwise.
  static json mustDeploy(const std::string& name, const std::string& archive,
                         std::vector<std::string> headers = {}) {
    auto r = deploy(name, archive, std::move(headers));
    if (r.status != 202)
      throw std::runtime_error("POST deploys: " + std::to_string(r.status) + " " + r.body);
    return r.json();
  }
  static json release(const std::string& name, const std::string& id) {
    auto r = api(*owner).get("/projects/" + name + "/deploys/" + id);
    if (r.status != 200)
      throw std::runtime_error("GET deploy: " + std::to_string(r.status) + " " + r.body);
    return r.json();
  }
  // Polls GET one until the release is no longer building.
  static json built(const std::string& name, const std::string& id) {
    return waitUntilBuilt(api(*owner), name, id, std::chrono::seconds(60));
  }
  static std::string releasesDir(const std::string& name) {
    return server->dataDir() + "/releases/" + projectId(*server, name);
  }
  static size_t entriesIn(const std::string& dir) {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
      ++n;
    return n;
  }
  static std::string staticSite(const std::string& text) {
    return TarBuilder().file("index.html", text).finish();
  }
  static std::vector<std::string> ids(const HttpResult& r) {
    std::vector<std::string> out;
    auto body = r.json();  // must outlive the loop
    for (const auto& d : body.at("deploys")) out.push_back(d.at("id").get<std::string>());
    return out;
  }
  static std::string dbValue(const std::string& sql, const std::vector<berth::core::Param>& p) {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    auto v = column(db, sql, p);
    return v.empty() ? "<no row>" : v[0];
  }
  static void dbExec(const std::string& sql, const std::vector<berth::core::Param>& p) {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    db.exec(sql, p);
  }
  static std::vector<json> logs(const std::string& name, const std::string& query = "") {
    auto r = api(*owner).get("/projects/" + name + "/logs" + query);
    if (r.status != 200)
      throw std::runtime_error("GET logs: " + std::to_string(r.status) + " " + r.body);
    auto body = r.json();
    return body.at("logs").get<std::vector<json>>();
  }
  static bool logged(const std::string& name, const std::string& message) {
    for (const auto& e : logs(name, "?limit=1000"))
      if (e.at("message") == message) return true;
    return false;
  }

  static inline std::unique_ptr<Account> owner;
  static inline std::unique_ptr<Account> stranger;
  static inline std::string* gate_dir = nullptr;
};

TEST_F(ApiReleases, AStaticSiteIsAnswered202ThenBecomesLiveOnTheProject) {
  std::string name = project("site");
  json created = mustDeploy(name, staticSite("<h1>hello</h1>"));
  EXPECT_EQ(created["status"], "building");
  EXPECT_EQ(created["project"], name);
  EXPECT_EQ(created["region"], "us-central");
  EXPECT_EQ(created["error"], nullptr);
  EXPECT_TRUE(created["created_at"].is_number_integer());
  std::string id = created["id"];

  json done = built(name, id);
  ASSERT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done["files"], 1);
  EXPECT_EQ(done["bytes"], 14);
  EXPECT_EQ(done["cmd"], "");
  EXPECT_EQ(done["runtime"], "Static");
  EXPECT_EQ(done["error"], nullptr);
  EXPECT_EQ(readFile(releasesDir(name) + "/" + id + "/index.html"), "<h1>hello</h1>");

  auto p = api(*owner).get("/projects/" + name);
  ASSERT_EQ(p.status, 200) << p.body;
  json live = p.json()["live"];
  ASSERT_TRUE(live.is_object()) << p.body;
  EXPECT_EQ(live["id"], id);
  EXPECT_EQ(live["created_at"], created["created_at"]);
  EXPECT_EQ(live["files"], 1);
  EXPECT_EQ(live["bytes"], 14);
  EXPECT_EQ(p.json()["state"], "stopped");  // a static site has no process

  auto list = api(*owner).get("/projects/" + name + "/deploys");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(ids(list), std::vector<std::string>{id});
  auto everywhere = api(*owner).get("/deploys");
  ASSERT_EQ(everywhere.status, 200) << everywhere.body;
  auto all = ids(everywhere);
  EXPECT_NE(std::find(all.begin(), all.end(), id), all.end());

  // Build events are platform log entries.
  EXPECT_TRUE(eventually([&] { return logged(name, "build of release " + id + " started"); }));
  EXPECT_TRUE(eventually(
      [&] { return logged(name, "release " + id + " is live (1 files, 14 bytes, static)"); }));
}

TEST_F(ApiReleases, TheStartCommandHeaderIsRecordedAsCmd) {
  std::string name = project("cmdhdr");
  std::string archive = TarBuilder()
                            .file("server.js", "require('http').createServer().listen(0);\n")
                            .file("index.html", "x")
                            .finish();
  json created = mustDeploy(name, archive, {"x-berth-cmd: node server.js"});
  EXPECT_EQ(created["cmd"], "node server.js");
  json done = built(name, created["id"]);
  ASSERT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done["cmd"], "node server.js");
  EXPECT_EQ(done["runtime"], "Node");

  // The header follows the cmd rules (no shell): refused before anything is recorded.
  auto refused = deploy(name, archive, {"x-berth-cmd: node server.js | tee log"});
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(errorText(refused).rfind("x-berth-cmd: ", 0), 0u) << refused.body;
  EXPECT_EQ(ids(api(*owner).get("/projects/" + name + "/deploys")).size(), 1u);
}

// Content-Length above the limit: the edge answers 413 from the headers alone, so the test
// never sends 256 MB.
TEST_F(ApiReleases, AnArchiveOver256MegabytesIs413AndRecordsNothing) {
  std::string name = project("huge");
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server->port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval timeout{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string head = "POST /projects/" + name +
                     "/deploys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     owner->token + "\r\nContent-Type: application/gzip\r\nContent-Length: " +
                     std::to_string(256ull * 1024 * 1024 + 1) + "\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) {
    answer.append(buf, static_cast<size_t>(n));
    if (answer.find("}") != std::string::npos) break;
  }
  ::close(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  EXPECT_NE(answer.find("the request body is too large for this route (limit 256 MB)"),
            std::string::npos)
      << answer;
  EXPECT_TRUE(ids(api(*owner).get("/projects/" + name + "/deploys")).empty());
}

TEST_F(ApiReleases, RefusedArchivesFailWithTheirErrorAndLeaveNothingOnDisk) {
  std::string name = project("unsafe");
  std::string twenty_five;
  {
    TarBuilder many;
    for (int i = 0; i < 25; ++i) many.file("f" + std::to_string(i) + ".txt", "x");
    twenty_five = many.finish();
  }
  struct Case {
    std::string what, archive, error;
  };
  std::vector<Case> cases = {
      {"not gzip", "this is not an archive", "the release is not a gzip-compressed tar archive: "},
      {"traversal", TarBuilder().file("index.html", "x").file("../x", "evil").finish(),
       "../x: '..' is not allowed in a release path"},
      {"absolute", TarBuilder().file("/tmp/berth-evil.txt", "evil").finish(),
       "/tmp/berth-evil.txt: absolute paths are not allowed in a release"},
      {"outside link", TarBuilder().symlink("passwd", "/etc/passwd").finish(),
       "passwd: a link pointing outside the release is not allowed"},
      {"device", TarBuilder().special("null", AE_IFCHR).finish(),
       "null: device files, fifos and sockets are not allowed in a release"},
      {"bytes bomb", TarBuilder().zeros("zeros.bin", 2 * 1024 * 1024).finish(),
       "the release expands past 1048576 bytes, the limit for one release"},
      {"files bomb", twenty_five,
       "the release holds more than 20 files, the limit for one release"},
  };
  std::string failed_id;
  for (const auto& c : cases) {
    json created = mustDeploy(name, c.archive);
    json done = built(name, created["id"]);
    EXPECT_EQ(done["status"], "failed") << c.what;
    ASSERT_TRUE(done["error"].is_string()) << c.what << " " << done.dump();
    if (c.what == "not gzip")
      EXPECT_EQ(done["error"].get<std::string>().rfind(c.error, 0), 0u) << done["error"];
    else
      EXPECT_EQ(done["error"], c.error) << c.what;
    EXPECT_EQ(entriesIn(releasesDir(name)), 0u) << c.what << ": something was left on disk";
    failed_id = created["id"];
  }
  EXPECT_FALSE(fs::exists("/tmp/berth-evil.txt"));
  EXPECT_FALSE(fs::exists(server->dataDir() + "/releases/x"));

  // A failed release cannot be made live.
  auto promote = api(*owner).post("/projects/" + name + "/deploys/" + failed_id + "/promote", {});
  EXPECT_EQ(promote.status, 410) << promote.body;
  EXPECT_EQ(errorText(promote),
            "release " + failed_id + " failed to build, so it cannot be made live");
  auto p = api(*owner).get("/projects/" + name);
  EXPECT_EQ(p.json()["live"], nullptr);
}

// The gated build: a Node release whose package.json has a `file:` dependency (npm installs
// it offline) and a postinstall script that waits until the test creates a file. The release
// stays `building` exactly as long as the test wants, without a sleep anywhere.
TEST_F(ApiReleases, ConflictsWhileBuildingThenPromoteAndPruning) {
  std::string name = project("promo");
  std::string r1 = mustDeploy(name, staticSite("one"))["id"];
  ASSERT_EQ(built(name, r1)["status"], "live");
  std::string r2 = mustDeploy(name, staticSite("two"))["id"];
  ASSERT_EQ(built(name, r2)["status"], "live");
  EXPECT_EQ(release(name, r1)["status"], "ready");

  // In the project's writable folder: the build runs in the sandbox, which sees no other.
  std::string gate =
      server->dataDir() + "/runtime/homes/" + projectId(*server, name) + "/open-" + name;
  // Opens the gate however the test ends, so a failed assertion cannot leave the build (and
  // berthd's shutdown, which waits for it) hanging.
  struct GateOpener {
    std::string path;
    ~GateOpener() { std::ofstream(path) << "go\n"; }
  } opener{gate};
  json package = {{"name", "gated"},
                  {"version", "1.0.0"},
                  {"dependencies", {{"localdep", "file:./localdep"}}},
                  {"scripts", {{"start", "node server.js"}, {"postinstall", "node wait.js"}}}};
  std::string wait_js =
      "const fs = require('fs');\n"
      "const gate = " +
      json(gate).dump() +
      ";\n"
      "const give_up = Date.now() + 120000;\n"
      "console.log('waiting for the gate');\n"
      "const timer = setInterval(() => {\n"
      "  if (fs.existsSync(gate)) { console.log('gate open'); clearInterval(timer); }\n"
      "  else if (Date.now() > give_up) { console.log('gave up'); process.exit(1); }\n"
      "}, 20);\n";
  std::string gated = TarBuilder()
                          .file("package.json", package.dump())
                          .file("server.js", "require('http').createServer().listen(0);\n")
                          .file("wait.js", wait_js)
                          .file("localdep/package.json",
                                R"({"name": "localdep", "version": "1.0.0", "main": "index.js"})")
                          .file("localdep/index.js", "module.exports = 42;\n")
                          .finish();
  std::string r3 = mustDeploy(name, gated)["id"];

  auto second = deploy(name, staticSite("three"));
  EXPECT_EQ(second.status, 409) << second.body;
  EXPECT_EQ(errorText(second),
            "a release of " + name + " is already building; upload again when it is done");
  auto early = api(*owner).post("/projects/" + name + "/deploys/" + r1 + "/promote", {});
  EXPECT_EQ(early.status, 409) << early.body;
  EXPECT_EQ(errorText(early), "a release is building; promote again when it is done");
  EXPECT_EQ(release(name, r3)["status"], "building");
  EXPECT_EQ(release(name, r2)["status"], "live");

  std::ofstream(gate) << "go\n";
  json done = built(name, r3);
  ASSERT_EQ(done["status"], "live") << done.dump();
  EXPECT_EQ(done["cmd"], "node server.js");
  EXPECT_EQ(done["runtime"], "Node");
  std::string log = done["build_log"];
  EXPECT_NE(log.find("waiting for the gate"), std::string::npos) << log;
  EXPECT_NE(log.find("gate open"), std::string::npos) << log;
  EXPECT_TRUE(fs::exists(releasesDir(name) + "/" + r3 + "/node_modules/localdep"));

  // keep_releases 2: r3 (live) and r2 keep their files; r1 was pruned.
  EXPECT_EQ(release(name, r2)["status"], "ready");
  EXPECT_EQ(release(name, r1)["status"], "pruned");
  EXPECT_FALSE(fs::exists(releasesDir(name) + "/" + r1));
  auto gone = api(*owner).post("/projects/" + name + "/deploys/" + r1 + "/promote", {});
  EXPECT_EQ(gone.status, 410) << gone.body;
  EXPECT_EQ(errorText(gone),
            "release " + r1 + " was pruned: its files are gone, so it cannot be made live");

  auto back = api(*owner).post("/projects/" + name + "/deploys/" + r2 + "/promote", {});
  ASSERT_EQ(back.status, 200) << back.body;
  EXPECT_EQ(back.json()["id"], r2);
  EXPECT_EQ(back.json()["status"], "live");
  EXPECT_EQ(release(name, r3)["status"], "ready");
  EXPECT_EQ(api(*owner).get("/projects/" + name).json()["live"]["id"], r2);
  EXPECT_TRUE(
      eventually([&] { return logged(name, "release " + r2 + " promoted: it is live again"); }));

  auto unknown = api(*owner).post("/projects/" + name + "/deploys/nope/promote", {});
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(errorText(unknown), "no release called nope");
  auto missing = api(*owner).get("/projects/" + name + "/deploys/nope");
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(errorText(missing), "no release called nope");
}

TEST_F(ApiReleases, AnotherAccountsProjectIs404OnEveryRoute) {
  std::string name = project("private");
  std::string id = mustDeploy(name, staticSite("mine"))["id"];
  ASSERT_EQ(built(name, id)["status"], "live");
  ApiClient them = api(*stranger);
  std::string expected = "no project called " + name;
  std::vector<HttpResult> answers = {
      them.raw("POST", "/projects/" + name + "/deploys", staticSite("theirs"),
               {"Content-Type: application/gzip"}),
      them.get("/projects/" + name + "/deploys"),
      them.get("/projects/" + name + "/deploys/" + id),
      them.post("/projects/" + name + "/deploys/" + id + "/promote", {}),
      them.get("/projects/" + name + "/logs"),
  };
  for (const auto& r : answers) {
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(errorText(r), expected);
  }
  auto theirs = them.get("/deploys");
  ASSERT_EQ(theirs.status, 200) << theirs.body;
  EXPECT_TRUE(ids(theirs).empty()) << theirs.body;
  EXPECT_EQ(ids(api(*owner).get("/projects/" + name + "/deploys")).size(), 1u);
}

// 120 releases made directly in the table (uploading them would only test the same code 120
// times): the listings answer the 50 and 100 newest, newest first.
TEST_F(ApiReleases, ListingsAnswerThe50And100Newest) {
  Account lister = makeAccount(*server, "rellist");
  mustCreate(api(lister), "one");
  mustCreate(api(lister), "two");
  std::string one = projectName("one", lister.slug), two = projectName("two", lister.slug);
  std::string account =
      dbValue("SELECT account_id::text FROM projects.projects WHERE name = $1", {one});
  for (const auto& name : {one, two})
    dbExec(
        "INSERT INTO runtime.runtime_releases (id, project_id, project, account_id, status, "
        "region, error) SELECT $1 || '-' || n, $2, $1, $3, 'failed', 'us-central', 'made up' "
        "FROM generate_series(1, 60) n ORDER BY n",
        {name, projectId(*server, name), account});
  auto list = api(lister).get("/projects/" + one + "/deploys");
  ASSERT_EQ(list.status, 200) << list.body;
  auto listed = ids(list);
  ASSERT_EQ(listed.size(), 50u);
  EXPECT_EQ(listed.front(), one + "-60");
  EXPECT_EQ(listed.back(), one + "-11");

  auto all = api(lister).get("/deploys");
  ASSERT_EQ(all.status, 200) << all.body;
  auto everywhere = ids(all);
  ASSERT_EQ(everywhere.size(), 100u);
  EXPECT_EQ(everywhere.front(), two + "-60");
  EXPECT_EQ(everywhere[59], two + "-1");
  EXPECT_EQ(everywhere[60], one + "-60");
  EXPECT_EQ(everywhere.back(), one + "-21");
}

// A team's releases are listed for each of its members, across their own projects too.
TEST_F(ApiReleases, TeamMembersSeeTheTeamsReleases) {
  Account member = makeAccount(*server, "relmemb");
  makeTeam(*server, "relteam", owner->email);
  addToTeam(*server, "relteam", member.email, "member");
  mustCreate(api(member), "shared", "relteam");
  std::string name = projectName("shared", "relteam");
  auto up = deploy(name, staticSite("team"), {}, member);
  ASSERT_EQ(up.status, 202) << up.body;
  std::string id = up.json()["id"];
  ASSERT_EQ(built(name, id)["status"], "live");
  for (const Account* who : {owner.get(), &member}) {
    auto all = ids(api(*who).get("/deploys"));
    EXPECT_NE(std::find(all.begin(), all.end(), id), all.end()) << who->slug;
  }
  auto theirs = ids(api(*stranger).get("/deploys"));
  EXPECT_EQ(std::find(theirs.begin(), theirs.end(), id), theirs.end());
}

TEST_F(ApiReleases, TheLogsRouteChecksItsLimit) {
  std::string name = project("logs");
  std::string id = mustDeploy(name, staticSite("logged"))["id"];
  ASSERT_EQ(built(name, id)["status"], "live");
  for (const std::string bad : {"0", "1001", "abc", "1.5", "-3", ""}) {
    auto r = api(*owner).get("/projects/" + name + "/logs?limit=" + bad);
    EXPECT_EQ(r.status, 400) << bad << " " << r.body;
    EXPECT_EQ(errorText(r), "limit must be a whole number from 1 to 1000") << bad;
  }
  ASSERT_TRUE(eventually([&] { return logs(name).size() >= 2; }));
  auto newest = logs(name, "?limit=1");
  ASSERT_EQ(newest.size(), 1u);
  EXPECT_EQ(newest[0]["kind"], "platform");
  EXPECT_EQ(newest[0]["message"], "release " + id + " is live (1 files, 6 bytes, static)");
  EXPECT_EQ(newest[0]["method"], nullptr);
  EXPECT_EQ(newest[0]["status"], nullptr);
  EXPECT_TRUE(newest[0]["at"].is_number_integer());
  auto all = logs(name, "?limit=1000");
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[1]["message"], "build of release " + id + " started");
}

// A follower passes the last answer's cursor as `after` and gets only what came since, oldest
// first, with the cursor to pass next time.
TEST_F(ApiReleases, TheLogsRouteFollowsFromACursor) {
  std::string name = project("follow");
  std::string first = mustDeploy(name, staticSite("one"))["id"];
  ASSERT_EQ(built(name, first)["status"], "live");
  std::string first_live = "release " + first + " is live (1 files, 3 bytes, static)";
  ASSERT_TRUE(eventually([&] { return logged(name, first_live); }));

  for (const std::string bad : {"abc", "", "-1", "1.5", "12x", "9999999999999999999999"}) {
    auto r = api(*owner).get("/projects/" + name + "/logs?after=" + bad);
    EXPECT_EQ(r.status, 400) << bad << " " << r.body;
    EXPECT_EQ(errorText(r), "after must be a cursor from an earlier answer") << bad;
  }

  auto start = api(*owner).get("/projects/" + name + "/logs?limit=1");
  ASSERT_EQ(start.status, 200) << start.body;
  json newest = start.json();
  ASSERT_EQ(newest["logs"].size(), 1u);
  EXPECT_EQ(newest["logs"][0]["message"], first_live);
  std::string cursor = newest["cursor"];
  EXPECT_EQ(newest["logs"][0]["cursor"], cursor);

  // Nothing new yet: no entry, the same cursor back.
  auto idle = api(*owner).get("/projects/" + name + "/logs?after=" + cursor);
  ASSERT_EQ(idle.status, 200) << idle.body;
  EXPECT_EQ(idle.json()["logs"].size(), 0u);
  EXPECT_EQ(idle.json()["cursor"], cursor);

  std::string second = mustDeploy(name, staticSite("two"))["id"];
  ASSERT_EQ(built(name, second)["status"], "live");
  std::string second_live = "release " + second + " is live (1 files, 3 bytes, static)";
  ASSERT_TRUE(eventually([&] { return logged(name, second_live); }));

  // Followed one entry at a time, then all at once: the same entries, in order, none before
  // the cursor.
  std::vector<std::string> paged;
  std::string at = cursor;
  for (int i = 0; i < 100; ++i) {
    auto r = api(*owner).get("/projects/" + name + "/logs?limit=1&after=" + at);
    ASSERT_EQ(r.status, 200) << r.body;
    json body = r.json();
    if (body["logs"].empty()) {
      EXPECT_EQ(body["cursor"], at);
      break;
    }
    ASSERT_EQ(body["logs"].size(), 1u);
    EXPECT_EQ(body["cursor"], body["logs"][0]["cursor"]);
    paged.push_back(body["logs"][0]["message"]);
    at = body["cursor"];
  }
  auto since = api(*owner).get("/projects/" + name + "/logs?after=" + cursor);
  ASSERT_EQ(since.status, 200) << since.body;
  json body = since.json();
  std::vector<std::string> all;
  for (const auto& e : body["logs"]) all.push_back(e["message"]);
  EXPECT_EQ(all, paged);
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all.front(), "build of release " + second + " started");
  EXPECT_EQ(all.back(), second_live);
  EXPECT_EQ(std::find(all.begin(), all.end(), first_live), all.end());
  EXPECT_EQ(body["cursor"], at);
  EXPECT_EQ(body["cursor"], body["logs"].back()["cursor"]);

  // Another account's cursor question is still "no project called".
  auto theirs = api(*stranger).get("/projects/" + name + "/logs?after=" + cursor);
  EXPECT_EQ(theirs.status, 404);
}

// A release left `building` by a berthd that stopped: on this node (another boot of the same
// host and data_dir), and on any node once it is older than the build time limit allows.
TEST_F(ApiReleases, BuildsInterruptedByAStoppedBerthdBecomeFailed) {
  std::string name = project("crash");
  std::string done_id = mustDeploy(name, staticSite("ok"))["id"];
  ASSERT_EQ(built(name, done_id)["status"], "live");
  std::string node =
      dbValue("SELECT build_node FROM runtime.runtime_releases WHERE id = $1", {done_id});
  std::string pid = projectId(*server, name);
  std::string account =
      dbValue("SELECT account_id::text FROM projects.projects WHERE name = $1", {name});

  dbExec(
      "INSERT INTO runtime.runtime_releases (id, project_id, project, account_id, status, "
      "region, build_node, build_boot) VALUES ('earlier-boot', $1, $2, $3, 'building', "
      "'us-central', $4, 'a-boot-before')",
      {pid, name, account, node});
  json failed;
  ASSERT_TRUE(eventually([&] {
    failed = release(name, "earlier-boot");
    return failed["status"] != "building";
  }));
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], "berthd stopped while this release was building; upload it again");

  dbExec(
      "INSERT INTO runtime.runtime_releases (id, project_id, project, account_id, status, "
      "region, build_node, build_boot, created_at) VALUES ('other-node', $1, $2, $3, "
      "'building', 'us-central', 'elsewhere:/var/berth', 'b', 1000)",
      {pid, name, account});
  ASSERT_TRUE(eventually([&] {
    failed = release(name, "other-node");
    return failed["status"] != "building";
  }));
  EXPECT_EQ(failed["error"],
            "the build did not finish in time on elsewhere:/var/berth (that berthd may have "
            "stopped); upload it again");
  // The project takes uploads again.
  std::string next = mustDeploy(name, staticSite("again"))["id"];
  EXPECT_EQ(built(name, next)["status"], "live");
}

TEST_F(ApiReleases, DeletingTheProjectRemovesItsReleases) {
  std::string name = project("gone");
  std::string id = mustDeploy(name, staticSite("bye"))["id"];
  ASSERT_EQ(built(name, id)["status"], "live");
  std::string dir = releasesDir(name);
  std::string pid = projectId(*server, name);
  ASSERT_TRUE(fs::exists(dir + "/" + id + "/index.html"));
  ASSERT_EQ(dbValue("SELECT count(*)::text FROM storage.blobs WHERE project_id = $1 AND "
                    "space = 'releases'",
                    {pid}),
            "1");

  auto r = api(*owner).del("/projects/" + name);
  ASSERT_EQ(r.status, 204) << r.body;
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(
      dbValue("SELECT count(*)::text FROM runtime.runtime_releases WHERE project_id = $1", {pid}),
      "0");
  EXPECT_EQ(dbValue("SELECT count(*)::text FROM storage.blobs WHERE project_id = $1", {pid}), "0");
  EXPECT_EQ(api(*owner).get("/projects/" + name + "/deploys").status, 404);
}

}  // namespace
