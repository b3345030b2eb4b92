// ctest-label: api (starts a real berthd)
// Only the edge speaks to berthd, and host routing cannot be bent: a local process that reaches
// berthd's backend port directly (with or without the edge's headers, naming files for it to
// take) is refused and changes nothing; a body file is only ever one the edge spooled; a forged
// schedule header is an ordinary header; management routes are not served on project_listen
// nor through a project's server block; a symlink planted in a tree the edge serves from is
// not followed; the access log and the edge's folder are private and show no apikey value.
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "../runtime/host_requests.hpp"
#include "../storage/storage_support.hpp"
#include "hostile_tenant.hpp"
#include "support/loopback_socket.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::isolation;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kRefused = "requests reach berthd through its edge only";

mode_t modeOf(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// A static release: a gzip-compressed tar of these files (made by the system's tar).
std::string staticRelease(const std::map<std::string, std::string>& files) {
  TarBuilder tar;
  for (const auto& [name, content] : files) tar.file(name, content);
  return tar.finish();
}

// True when nginx (master in edge_dir/nginx.pid) runs workers, all started after nginx.conf was
// last written: they serve that configuration. (The file is written, checked with nginx -t and
// only then loaded, so a worker of the new configuration starts well after the write.)
bool edgeLoadedItsConfig(const std::string& edge_dir) {
  struct stat conf {};
  if (::stat((edge_dir + "/nginx.conf").c_str(), &conf) != 0) return false;
  const double written = conf.st_mtim.tv_sec + conf.st_mtim.tv_nsec / 1e9;
  timespec real{}, boot{};
  ::clock_gettime(CLOCK_REALTIME, &real);
  ::clock_gettime(CLOCK_BOOTTIME, &boot);
  const double booted = (real.tv_sec - boot.tv_sec) + (real.tv_nsec - boot.tv_nsec) / 1e9;
  const std::string master = std::to_string(std::stoi(readFile(edge_dir + "/nginx.pid")));
  int workers = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = readFile("/proc/" + pid + "/stat");
    std::string cmdline = readFile("/proc/" + pid + "/cmdline");
    size_t close = stat.rfind(')');
    if (close == std::string::npos || cmdline.rfind("nginx: worker process", 0) != 0 ||
        cmdline.find("shutting down") != std::string::npos)
      continue;
    std::istringstream fields(stat.substr(close + 2));
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (f.size() < 20 || f[1] != master) continue;  // f[1]: ppid; f[19]: starttime
    const double started = booted + std::stod(f[19]) / ::sysconf(_SC_CLK_TCK);
    if (started <= written) return false;
    ++workers;
  }
  return workers > 0;
}

int statusOf(const std::string& answer) {
  std::smatch m;
  if (!std::regex_search(answer, m, std::regex("^HTTP/1\\.[01] ([0-9]{3})"))) return 0;
  return std::stoi(m[1]);
}

class EdgeIsolation : public HostileTenantSuite {
 protected:
  static void SetUpTestSuite() {
    project_port = berth::core::freeLoopbackPort();
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "sqlconsole"};
    options.extra_yaml = manyProjectsYaml();
    options.set = {"server.project_listen=127.0.0.1:" + std::to_string(project_port)};
    startServer(options);
    owner = new Account(makeAccount(*server, "edgeiso"));
    outside = makeTempDir("edge-isolation");
  }
  static void TearDownTestSuite() {
    removeTree(outside);
    delete owner;
    owner = nullptr;
    HostileTenantSuite::TearDownTestSuite();
  }

  static ApiClient api() { return server->api(owner->token); }
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectName(label, owner->slug);
  }

  static std::string edgeDir() { return server->dataDir() + "/edge"; }
  static std::string nginxConf() { return readFile(edgeDir() + "/nginx.conf"); }

  // The backend's port, as the generated nginx.conf names it.
  static uint16_t backendPort() {
    std::smatch m;
    std::string conf = nginxConf();
    if (!std::regex_search(conf, m,
                           std::regex("upstream berth_backend \\{\\s*server 127\\.0\\.0\\.1:"
                                      "([0-9]+);")))
      throw std::runtime_error("no backend port in nginx.conf");
    return static_cast<uint16_t>(std::stoi(m[1]));
  }

  // A request straight to the backend, past the edge.
  static HttpResult direct(const std::string& method, const std::string& path,
                           std::vector<std::string> headers, const std::string& body = "") {
    HttpRequestSpec spec;
    spec.method = method;
    spec.url = "http://127.0.0.1:" + std::to_string(backendPort()) + path;
    spec.headers = std::move(headers);
    spec.body = body;
    return send(spec);
  }

  // What the edge would add, forged by a local process.
  static std::vector<std::string> forgedEdgeHeaders(const std::string& host) {
    return {"Host: " + host,
            "X-Berth-Edge: api",
            "X-Real-IP: 203.0.113.7",
            "X-Berth-Request-Id: forged-1",
            "X-Berth-Edge-Proof: " + std::string(64, '0'),
            "Authorization: Bearer " + owner->token};
  }

  static json logs(const std::string& name) { return runtime_api::projectLogs(api(), name); }

  static inline Account* owner = nullptr;
  static inline std::string outside;
  static inline uint16_t project_port = 0;
};

}  // namespace

TEST_F(EdgeIsolation, TheBackendRefusesRequestsThatDidNotComeThroughTheEdge) {
  // Plain, as any local process would.
  auto r = direct("GET", "/regions", {"Host: localhost"});
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kRefused);
  r = direct("GET", "/projects", {"Host: localhost", "Authorization: Bearer " + owner->token});
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kRefused);
  // With every header the edge sets, and a proof that is not the edge's.
  r = direct("GET", "/projects", forgedEdgeHeaders("localhost"));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kRefused);
  // The same through the edge is answered.
  EXPECT_EQ(api().get("/projects").status, 200);
}

TEST_F(EdgeIsolation, AForgedBodyFileIsNeitherMovedNorRead) {
  std::string name = project("bodyfile");
  // A secret of berthd's below data_dir and a root-owned file outside it.
  const std::string inside = server->dataDir() + "/superuser.password.copy";
  const std::string secret = "SELECT 'the superuser password';\n";
  writeFile(inside, secret);
  ::chmod(inside.c_str(), 0600);
  const std::string beyond = outside + "/root-owned.txt";
  writeFile(beyond, secret);
  ::chmod(beyond.c_str(), 0600);

  for (const std::string& victim : {inside, beyond}) {
    for (const std::string& route :
         {"/projects/" + name + "/files/stolen.txt", "/projects/" + name + "/deploys",
          "/projects/" + name + "/import"}) {
      auto headers = forgedEdgeHeaders("localhost");
      headers.push_back("X-Berth-Body-File: " + victim);
      headers.push_back("Content-Type: application/octet-stream");
      auto r = direct("POST", route, headers);
      EXPECT_EQ(r.status, 403) << route << " " << victim << ": " << r.body;
      EXPECT_EQ(errorText(r), kRefused) << route;
      EXPECT_EQ(readFile(victim), secret) << route << " " << victim;
    }
  }
  EXPECT_EQ(storage_api::listed(api(), name).count("stolen.txt"), 0u);
  auto deploys = api().get("/projects/" + name + "/deploys");
  ASSERT_EQ(deploys.status, 200) << deploys.body;
  EXPECT_EQ(deploys.body.find("\"id\""), std::string::npos) << deploys.body;
  EXPECT_EQ(storage_api::download(*server, name, "stolen.txt").status, 404);
}

// Behind the proof, a second check: even a request carrying the edge's proof (read here from
// nginx.conf, as only root can) names a body file in vain unless it is a regular file directly
// in the edge's body folder.
TEST_F(EdgeIsolation, OnlyAFileTheEdgeSpooledIsTakenAsABody) {
  std::string name = project("spooled");
  std::smatch m;
  std::string conf = nginxConf();
  ASSERT_TRUE(std::regex_search(conf, m, std::regex("X-Berth-Edge-Proof ([0-9a-f]{64});")));
  const std::string proof = m[1];
  const std::string secret = "root's own bytes\n";
  const std::string beyond = outside + "/spooled-victim.txt";
  writeFile(beyond, secret);
  const std::string body_dir = edgeDir() + "/client_body";
  const std::string link = body_dir + "/0000000001";
  fs::create_symlink(beyond, link);
  const std::string dotted = body_dir + "/../../" + fs::path(beyond).filename().string();
  fs::copy_file(beyond, server->dataDir() + "/" + fs::path(beyond).filename().string());

  for (const std::string& named : {beyond, link, dotted, body_dir}) {
    for (const std::string& route :
         {"/projects/" + name + "/files/taken.txt", "/projects/" + name + "/deploys",
          "/projects/" + name + "/import"}) {
      auto r = direct("POST", route,
                      {"Host: localhost", "X-Berth-Edge: api", "X-Berth-Edge-Proof: " + proof,
                       "Authorization: Bearer " + owner->token, "X-Berth-Body-File: " + named,
                       "Content-Type: application/octet-stream"});
      EXPECT_EQ(r.status, 400) << route << " " << named << ": " << r.body;
      EXPECT_EQ(errorText(r), "the request body could not be read") << route << " " << named;
    }
  }
  EXPECT_EQ(readFile(beyond), secret);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(readFile(server->dataDir() + "/" + fs::path(beyond).filename().string()), secret);
  EXPECT_EQ(storage_api::listed(api(), name).count("taken.txt"), 0u);
  fs::remove(link);
  // What the edge spools is still taken.
  EXPECT_EQ(storage_api::upload(api(), name, "real.txt", "real bytes").status, 201);
  EXPECT_EQ(storage_api::download(*server, name, "real.txt").body, "real bytes");
}

TEST_F(EdgeIsolation, AForgedScheduleHeaderIsAnOrdinaryHeader) {
  std::string name = project("sched");
  auto r = uploadRelease(api(), name,
                         staticRelease({{"index.html", "<p>hi</p>\n"}, {"tick.txt", "tick\n"}}));
  ASSERT_EQ(r.status, 202) << r.body;
  std::string release = r.json().at("id").get<std::string>();
  ASSERT_TRUE(eventually([&] { return releaseStatus(api(), name, release) == "live"; },
                         std::chrono::seconds(60)));
  // From this machine, through the edge, with a node proof that is not berthd's.
  auto forged = runtime_api::onProjectHost(
      *server, name, "/tick.txt?from=forger",
      {"x-berth-schedule: sch_forged", "x-berth-node-proof: " + std::string(64, '0')});
  ASSERT_EQ(forged.status, 200) << forged.body;
  json seen;
  ASSERT_TRUE(eventually([&] {
    for (const auto& entry : logs(name))
      if (entry["kind"] == "request" && entry["path"] == "/tick.txt?from=forger") {
        seen = entry;
        return true;
      }
    return false;
  })) << logs(name).dump();
  EXPECT_TRUE(seen["message"].is_null() || seen["message"] == "") << seen.dump();
}

TEST_F(EdgeIsolation, ManagementRoutesAreNotServedAsProjectTraffic) {
  const std::string auth = "Authorization: Bearer " + owner->token;
  // On project_listen, whatever the Host: a 404, as project traffic for an unknown path.
  for (const char* host : {"localhost", "api.localhost", "127.0.0.1"}) {
    HttpRequestSpec spec;
    spec.url = "http://127.0.0.1:" + std::to_string(project_port) + "/projects";
    spec.headers = {std::string("Host: ") + host, auth};
    auto r = send(spec);
    EXPECT_EQ(r.status, 404) << host << ": " << r.body;
    // Answered as project traffic (no project at that host), never as the management API.
    EXPECT_FALSE(r.json().contains("projects")) << host << ": " << r.body;
  }
  // On the main listener, a request nginx gave to the project server block (the request line
  // names a project host) while the Host header says localhost.
  std::string name = project("hosted");
  std::string answer =
      rawExchange(server->port(), "GET http://" + name + ".localhost/projects HTTP/1.1\r\nHost: " +
                                      "localhost\r\n" + auth + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(statusOf(answer), 404) << answer;
  EXPECT_EQ(answer.find("\"projects\""), std::string::npos) << answer;
  // The management API is still where it belongs.
  EXPECT_EQ(api().get("/projects").status, 200);
}

TEST_F(EdgeIsolation, ASymlinkPlantedInATreeIsNotFollowedByTheEdge) {
  const std::string secret = "not the tenant's to read\n";
  const std::string target = outside + "/planted-target.txt";
  writeFile(target, secret);
  ::chmod(target.c_str(), 0644);  // readable by nginx's workers: only the link may stop them

  // Storage's /_files/ tree: the host's entry once a file has been served by berthd.
  std::string files = project("filetree");
  ASSERT_EQ(storage_api::upload(api(), files, "a.txt", "a").status, 201);
  ASSERT_EQ(storage_api::download(*server, files, "a.txt").body, "a");
  const std::string host_entry = server->dataDir() + "/blobs/edge/hosts/" + files + ".localhost";
  ASSERT_TRUE(fs::exists(host_entry));
  fs::create_symlink(target, fs::canonical(host_entry) / "leak.txt");
  auto r = storage_api::download(*server, files, "leak.txt");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(r.body.find(secret), std::string::npos) << r.body;
  EXPECT_EQ(storage_api::download(*server, files, "a.txt").body, "a");

  // A static release: its host's entry is a link to the release folder.
  std::string site = project("sitetree");
  auto up = uploadRelease(api(), site, staticRelease({{"index.html", "<p>site</p>\n"}}));
  ASSERT_EQ(up.status, 202) << up.body;
  std::string release = up.json().at("id").get<std::string>();
  ASSERT_TRUE(eventually([&] { return releaseStatus(api(), site, release) == "live"; },
                         std::chrono::seconds(60)));
  ASSERT_EQ(runtime_api::onProjectHost(*server, site, "/").body, "<p>site</p>\n");
  const std::string site_entry = server->dataDir() + "/runtime/edge/" + site + ".localhost";
  ASSERT_TRUE(eventually([&] { return fs::exists(site_entry); }));
  const fs::path release_dir = fs::canonical(site_entry);
  // The runtime gave the edge its tree rule when it first served the site: wait until nginx
  // serves a configuration with it.
  const std::string rule = "root " + server->dataDir() + "/runtime/edge/$berth_tree_host;";
  ASSERT_TRUE(eventually([&] {
    return nginxConf().find(rule) != std::string::npos && edgeLoadedItsConfig(edgeDir());
  }));
  fs::create_symlink(target, release_dir / "leak.txt");
  r = runtime_api::onProjectHost(*server, site, "/leak.txt");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(r.body.find(secret), std::string::npos) << r.body;
  EXPECT_EQ(runtime_api::onProjectHost(*server, site, "/index.html").body, "<p>site</p>\n");
}

TEST_F(EdgeIsolation, TheEdgesFilesArePrivateAndLogsShowNoApikey) {
  EXPECT_EQ(modeOf(edgeDir() + "/nginx.conf"), 0600u);
  EXPECT_EQ(modeOf(edgeDir()) & 0007, 0u) << std::oct << modeOf(edgeDir());
  EXPECT_EQ(modeOf(edgeDir()) & 0044, 0u) << std::oct << modeOf(edgeDir());

  std::string name = project("datakey");
  const std::string key = "bpk_" + std::string(24, 'q') + "leakcheck";
  auto r = sendToHost(server->baseUrl(), name + ".localhost", "GET",
                      "/_data/things?select=id&apikey=" + key + "&limit=1");
  EXPECT_NE(r.status, 0) << r.error;
  const std::string access_log = edgeDir() + "/access.log";
  ASSERT_TRUE(eventually(
      [&] { return readFile(access_log).find("/_data/things?select=id") != std::string::npos; }));
  EXPECT_EQ(modeOf(access_log), 0600u) << std::oct << modeOf(access_log);
  std::string lines = readFile(access_log);
  EXPECT_EQ(lines.find(key), std::string::npos);
  EXPECT_NE(lines.find("/_data/things?select=id&apikey=REDACTED&limit=1"), std::string::npos)
      << lines.substr(lines.size() > 4000 ? lines.size() - 4000 : 0);
  EXPECT_EQ(server->output().find(key), std::string::npos);

  // The test's berth.yaml is 0644: berthd said so at start.
  EXPECT_NE(server->output().find("is readable by others than its owner"), std::string::npos);
}
