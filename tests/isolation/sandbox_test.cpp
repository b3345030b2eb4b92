// ctest-label: api (starts a real berthd)
// A hostile tenant's app and build script against a victim tenant on one real berthd (runtime
// defaults: every project its own uid, bubblewrap around apps and builds). The victim has a
// runtime secret, a running Node app (its secret in its environment, a note in its HOME), a
// static release and a stored file. The attacker's app tries, on request, to read the victim
// app's /proc/<pid>/environ (the pid found here, as root, and handed over), its release, its
// static release, its HOME, its stored file, data_dir, the config file and
// data_dir/pg/superuser.password, to write into the victim's release and into its own release;
// its npm postinstall tries the same during the build and leaves what it got in a file of its
// release, which the test reads. Every attempt must fail.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../runtime/host_requests.hpp"
#include "../storage/storage_support.hpp"
#include "hostile_tenant.hpp"
#include "support/release_upload.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::isolation;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kVictimSecret = "victim-secret-7f3a9c";
const std::string kVictimNote = "victim-note-51d2e8";
const std::string kVictimFile = "victim-stored-file-c0ffee";
const std::string kSuperuserPassword = "superuser-password-9b4e1d";

// Writes its secret-bearing note into its HOME, serves its own environment's marker.
const char* const kVictimApp = R"JS(
const fs = require('fs');
fs.writeFileSync(process.env.HOME + '/note.txt', 'victim-note-51d2e8');
require('http').createServer((req, res) => res.end('victim ok\n'))
  .listen(Number(process.env.PORT), '127.0.0.1');
)JS";

// Each attempt: {op: read|list|write, path}; the answer says, per attempt, what it got.
const char* const kAttackLib = R"JS(
const fs = require('fs');
exports.attempt = (a) => {
  try {
    if (a.op === 'read') return {ok: true, got: fs.readFileSync(a.path).toString('latin1').slice(0, 400)};
    if (a.op === 'list') return {ok: true, got: fs.readdirSync(a.path).join(',')};
    if (a.op === 'write') { fs.writeFileSync(a.path, 'pwned'); return {ok: true, got: 'written'}; }
    return {ok: false, error: 'unknown op'};
  } catch (e) { return {ok: false, error: String(e.code || e.message)}; }
};
)JS";

const char* const kAttackerApp = R"JS(
const attack = require('./attack.js');
require('http').createServer((req, res) => {
  let body = '';
  req.on('data', (c) => body += c);
  req.on('end', () => {
    const attempts = body ? JSON.parse(body) : [];
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify(attempts.map(attack.attempt)));
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

// npm's postinstall, during the build: the targets come in the release (targets.json).
const char* const kAttackerBuild = R"JS(
const fs = require('fs');
const attack = require('./attack.js');
const attempts = JSON.parse(fs.readFileSync('targets.json'));
fs.writeFileSync('build-results.json', JSON.stringify(attempts.map(attack.attempt)));
)JS";

// The host pid of the process whose environment holds `marker` (the victim's app).
pid_t pidWithEnvironment(const std::string& marker) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (env.find(marker) != std::string::npos && env.find("PORT=") != std::string::npos)
      return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

// The stored file's object on disk (found as root by its contents).
std::string fileContaining(const std::string& dir, const std::string& text) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (body.find(text) != std::string::npos) return it->path().string();
  }
  return "";
}

// Whether an attempt got nothing. A listing of a folder on the way to the attacker's own
// release or writable folder may succeed inside the sandbox, where it shows only the mount
// points bubblewrap made for them: then it must show none of what the real folder holds.
bool failed(const json& attempt, const json& result, const std::string& own_project_id) {
  if (!result.value("ok", true)) return true;
  if (attempt.value("op", "") != "list") return false;
  const std::string got = "," + result.value("got", "") + ",";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(attempt.value("path", ""), ec)) {
    const std::string name = entry.path().filename().string();
    if (name == own_project_id || name == "releases" || name == "runtime" || name == "homes")
      continue;
    if (got.find("," + name + ",") != std::string::npos) return false;
  }
  return !ec;
}

class Sandbox : public HostileTenantSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    options.extra_yaml = manyProjectsYaml() +
                         "runtime:\n"
                         "  start_timeout_seconds: 20\n"
                         "  stop_grace_seconds: 1\n";
    startServer(options);
    victim = new Account(makeAccount(*server, "victim"));
    attacker = new Account(makeAccount(*server, "attacker"));
  }
  static void TearDownTestSuite() {
    delete victim;
    delete attacker;
    HostileTenantSuite::TearDownTestSuite();
  }

  static std::string deploy(const Account& who, const std::string& name,
                            const std::string& archive) {
    return deployLive(server->api(who.token), name, archive, std::chrono::seconds(120));
  }

  static inline Account* victim = nullptr;
  static inline Account* attacker = nullptr;
};

TEST_F(Sandbox, AnotherTenantsAppAndBuildReachNothingOfTheVictimOrOfBerthd) {
  // --- the victim: a secret, a running app, a static release, a stored file -----------------
  auto vapi = server->api(victim->token);
  const std::string vapp = projectName("vapp", victim->slug);
  mustCreate(vapi, "vapp");
  ASSERT_EQ(vapi.post("/projects/" + vapp + "/secrets",
                      {{"name", "VICTIM_SECRET"}, {"value", kVictimSecret}, {"scope", "both"}})
                .status,
            201);
  const std::string vapp_release =
      deploy(*victim, vapp,
             TarBuilder()
                 .file("package.json", R"({"name": "victim", "main": "server.js"})")
                 .file("server.js", kVictimApp)
                 .finish());
  auto woke = runtime_api::onProjectHost(*server, vapp, "/");
  ASSERT_EQ(woke.status, 200) << woke.body;
  const pid_t victim_pid = pidWithEnvironment("VICTIM_SECRET=" + kVictimSecret);
  ASSERT_GT(victim_pid, 0) << "the victim's app runs with its secret";

  const std::string vsite = projectName("vsite", victim->slug);
  mustCreate(vapi, "vsite");
  const std::string vsite_release =
      deploy(*victim, vsite, TarBuilder().file("index.html", "<h1>victim site</h1>").finish());
  ASSERT_EQ(storage_api::upload(vapi, vsite, "private.txt", kVictimFile).status, 201);
  const std::string stored = fileContaining(server->dataDir() + "/blobs", kVictimFile);
  ASSERT_FALSE(stored.empty()) << "the stored file is on disk";

  const std::string data_dir = server->dataDir();
  const std::string vapp_dir = releaseDir(vapp, vapp_release);
  const std::string vsite_dir = releaseDir(vsite, vsite_release);
  const std::string victim_home = data_dir + "/runtime/homes/" + projectId(*server, vapp);
  ASSERT_TRUE(eventually([&] { return fs::exists(victim_home + "/note.txt"); }));
  // Where an embedded cluster keeps its superuser's password (this test's cluster is shared,
  // so the file is made here the way berthd makes it: root's, 0600).
  fs::create_directories(data_dir + "/pg");
  std::ofstream(data_dir + "/pg/superuser.password") << kSuperuserPassword;
  ::chmod((data_dir + "/pg/superuser.password").c_str(), 0600);

  // --- the attempts ------------------------------------------------------------------------
  json attempts = json::array({
      {{"op", "read"}, {"path", "/proc/" + std::to_string(victim_pid) + "/environ"}},
      {{"op", "read"}, {"path", vapp_dir + "/server.js"}},
      {{"op", "list"}, {"path", vapp_dir}},
      {{"op", "read"}, {"path", vsite_dir + "/index.html"}},
      {{"op", "read"}, {"path", victim_home + "/note.txt"}},
      {{"op", "write"}, {"path", vapp_dir + "/pwned.js"}},
      {{"op", "write"}, {"path", vsite_dir + "/pwned.html"}},
      {{"op", "read"}, {"path", stored}},
      {{"op", "list"}, {"path", data_dir}},
      {{"op", "list"}, {"path", data_dir + "/releases"}},
      {{"op", "read"}, {"path", server->configFile()}},
      {{"op", "read"}, {"path", data_dir + "/pg/superuser.password"}},
  });
  const std::vector<std::string> never_seen = {kVictimSecret,      kVictimNote,   kVictimFile,
                                               kSuperuserPassword, "victim site", "VICTIM_SECRET"};

  // --- the attacker: its app and its build script -----------------------------------------
  const std::string evil = projectName("evil", attacker->slug);
  mustCreate(server->api(attacker->token), "evil");
  // A local dependency makes a build step (npm install) without the network; postinstall is
  // the attacker's script.
  const std::string evil_release =
      deploy(*attacker, evil,
             TarBuilder()
                 .file("package.json", R"({"name": "evil", "version": "1.0.0", "main": "server.js",
                     "scripts": {"postinstall": "node build.js"},
                     "dependencies": {"dep": "file:./dep"}})")
                 .file("dep/package.json", R"({"name": "dep", "version": "1.0.0"})")
                 .file("attack.js", kAttackLib)
                 .file("server.js", kAttackerApp)
                 .file("build.js", kAttackerBuild)
                 .file("targets.json", attempts.dump())
                 .finish());
  const std::string evil_dir = releaseDir(evil, evil_release);

  // What the build script could reach (it wrote this into its release while building).
  const std::string build_results = readFile(evil_dir + "/build-results.json");
  ASSERT_FALSE(build_results.empty()) << "the postinstall script ran";
  json from_build = json::parse(build_results);
  ASSERT_EQ(from_build.size(), attempts.size());
  const std::string evil_id = projectId(*server, evil);
  for (std::size_t i = 0; i < attempts.size(); ++i)
    EXPECT_TRUE(failed(attempts[i], from_build[i], evil_id))
        << "the build could " << attempts[i].dump() << ": " << from_build[i].dump();

  // What the app can reach at run time; and it cannot write into its own release.
  json at_run_time = attempts;
  at_run_time.push_back({{"op", "write"}, {"path", evil_dir + "/pwned.js"}});
  at_run_time.push_back({{"op", "write"}, {"path", evil_dir + "/build-results.json"}});
  auto answer = runtime_api::onProjectHost(*server, evil, "/", {"Content-Type: application/json"},
                                           "POST", at_run_time.dump());
  ASSERT_EQ(answer.status, 200) << answer.body;
  json from_app = answer.json();
  ASSERT_EQ(from_app.size(), at_run_time.size());
  for (std::size_t i = 0; i < at_run_time.size(); ++i)
    EXPECT_TRUE(failed(at_run_time[i], from_app[i], evil_id))
        << "the app could " << at_run_time[i].dump() << ": " << from_app[i].dump();

  for (const auto& text : never_seen) {
    EXPECT_EQ(build_results.find(text), std::string::npos) << text;
    EXPECT_EQ(answer.body.find(text), std::string::npos) << text;
  }
  // Nothing was written anywhere.
  for (const auto& path :
       {vapp_dir + "/pwned.js", vsite_dir + "/pwned.html", evil_dir + "/pwned.js"})
    EXPECT_FALSE(fs::exists(path)) << path;
  EXPECT_EQ(readFile(evil_dir + "/build-results.json"), build_results);

  // Each project runs as its own uid, and neither owns a release.
  struct stat victim_app {
  }, evil_app{}, release{};
  ASSERT_EQ(::stat(("/proc/" + std::to_string(victim_pid)).c_str(), &victim_app), 0);
  const pid_t evil_pid =
      pidWithEnvironment("HOME=" + data_dir + "/runtime/homes/" + projectId(*server, evil));
  ASSERT_GT(evil_pid, 0);
  ASSERT_EQ(::stat(("/proc/" + std::to_string(evil_pid)).c_str(), &evil_app), 0);
  ASSERT_EQ(::stat(evil_dir.c_str(), &release), 0);
  if (::geteuid() == 0) {
    EXPECT_NE(victim_app.st_uid, 0u);
    EXPECT_NE(evil_app.st_uid, 0u);
    EXPECT_NE(victim_app.st_uid, evil_app.st_uid) << "one uid per project";
    EXPECT_EQ(release.st_uid, 0u) << "the release is berthd's, not the app's";
  }
}

}  // namespace
