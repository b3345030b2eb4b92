// ctest-label: api (starts a real berthd)
// runtime.commands.v1 over the plugin ABI (the serviceprobe fixture calls it as an installer's
// context would): a command runs in the project's release, read-only, as the project's own uid
// (never root) with its writable HOME, inside bubblewrap, with the app's environment
// (DATABASE_URL that connects, a runtime secret, BERTH_URL, no PORT); its exit code, output and
// stdin; the time limit; a named older release; the platform log line and berthd's log; every
// refusal; at most 4 at once; and another project's release and home out of its sight.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <glob.h>
#include <atomic>
#include <filesystem>
#include <thread>

#include "../projects/api_support.hpp"
#include "host_requests.hpp"
#include "start_command.hpp"
#include "support/berthd_suite.hpp"
#include "support/release_upload.hpp"
#include "tar_builder.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::runtime::testing::TarBuilder;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      out.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

// PostgreSQL's own psql binary (Debian's /usr/bin/psql is a wrapper that reads
// /etc/postgresql-common, which the sandbox does not show).
std::string psqlBinary() {
  glob_t found{};
  std::string path;
  if (::glob("/usr/lib/postgresql/*/bin/psql", 0, nullptr, &found) == 0 && found.gl_pathc > 0)
    path = found.gl_pathv[found.gl_pathc - 1];
  ::globfree(&found);
  return path;
}

class ApiCommands : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    options.extra_yaml = secretsKeyYaml() + "  creation_burst: 100\n";
    // The probe calls the service on a server thread, which a command holds until it ends;
    // berthd's HTTP server gives a connection to a thread by its descriptor, so four running
    // commands leave the fifth request a free thread only when there are many.
    options.set = {"edge.backend_threads=64"};
    startServer(options, "cmdown");
  }
  void SetUp() override {
    if (!berth::runtime::toolOnPath("bwrap"))
      GTEST_SKIP() << "bubblewrap is not installed here (scripts/install-deps.sh installs it)";
  }
  // A project with a live static release holding index.html = `text`; its name.
  static std::string projectWithRelease(const std::string& label, const std::string& text) {
    mustCreate(api(), label);
    const std::string name = projectName(label, owner->slug);
    deploy(name, text);
    return name;
  }
  // Uploads a static release and waits for it; its id (it is live unless it failed).
  static std::string deploy(const std::string& name, const std::string& text,
                            const std::string& archive = "") {
    return deployBuilt(api(), name,
                       archive.empty() ? TarBuilder().file("index.html", text).finish() : archive,
                       std::chrono::seconds(60))
        .at("id")
        .get<std::string>();
  }
  static HttpResult run(json request) {
    return server->api().post("/serviceprobe/runtime.commands.v1/run", request);
  }
  static json ran(const std::string& name, json request) {
    request["project_id"] = projectId(*server, name);
    auto r = run(request);
    if (r.status != 200)
      throw std::runtime_error("run: " + std::to_string(r.status) + " " + r.body);
    return r.json();
  }
  static std::string releaseDir(const std::string& name, const std::string& id) {
    return server->dataDir() + "/releases/" + projectId(*server, name) + "/" + id;
  }
  static std::string liveId(const std::string& name) {
    return api().get("/projects/" + name).json()["live"]["id"];
  }
  static std::string uidOf(const std::string& name) {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    auto v = column(db, "SELECT uid::text FROM runtime.runtime_project_uids WHERE project_id = $1",
                    {projectId(*server, name)});
    return v.empty() ? "<none>" : v[0];
  }
};

TEST_F(ApiCommands, ACommandRunsAsTheAppInItsReleaseReadOnly) {
  const std::string name = projectWithRelease("cmdapp", "<h1>release one</h1>");
  ASSERT_EQ(api()
                .post("/projects/" + name + "/secrets", {{"name", "API_KEY"}, {"value", "k-123"}})
                .status,
            201);
  const std::string psql = psqlBinary();
  json answer =
      ran(name, {{"argv",
                  {"/bin/sh", "-c",
                   "pwd; id -u; cat index.html; echo; "
                   "touch made-here 2>/dev/null && echo writable || echo read-only; "
                   "echo \"home=$HOME\"; touch \"$HOME/mine\" && echo home-writable; "
                   "echo \"key=$API_KEY\"; echo \"port=$PORT\"; echo \"url=$BERTH_URL\"; "
                   "echo \"db=$DATABASE_URL\"; echo \"pgdb=$PGDATABASE\"; " +
                       (psql.empty() ? std::string("echo connected=1")
                                     : "echo connected=$(" + psql + " -tAc 'select 1')")}}});
  EXPECT_EQ(answer["exit_code"], 0) << answer.dump();
  EXPECT_EQ(answer["signal"], nullptr);
  EXPECT_EQ(answer["timed_out"], false);
  EXPECT_TRUE(answer["duration_ms"].is_number_integer());
  auto out = lines(answer["output"]);
  ASSERT_GE(out.size(), 12u) << answer["output"];
  EXPECT_EQ(out[0], releaseDir(name, liveId(name)));
  EXPECT_EQ(out[1], uidOf(name));  // the project's own uid, never root
  EXPECT_NE(out[1], "0");
  EXPECT_EQ(out[2], "<h1>release one</h1>");
  EXPECT_EQ(out[3], "read-only");
  EXPECT_EQ(out[4], "home=" + server->dataDir() + "/runtime/homes/" + projectId(*server, name));
  EXPECT_EQ(out[5], "home-writable");
  EXPECT_EQ(out[6], "key=k-123");
  EXPECT_EQ(out[7], "port=");
  EXPECT_EQ(out[8], "url=" + api().get("/projects/" + name).json()["url"].get<std::string>());
  EXPECT_TRUE(out[9].starts_with("db=postgresql://")) << out[9];
  EXPECT_FALSE(out[10] == "pgdb=") << out[10];
  EXPECT_EQ(out[11], "connected=1") << answer["output"];
  EXPECT_FALSE(fs::exists(releaseDir(name, liveId(name)) + "/made-here"));

  // Exit code, stdin, output; the platform log line and berthd's log.
  answer = ran(name, {{"argv", {"/bin/sh", "-c", "cat; echo; echo oops >&2; exit 7"}},
                      {"stdin", "from stdin"}});
  EXPECT_EQ(answer["exit_code"], 7);
  EXPECT_EQ(answer["output"], "from stdin\noops\n");
  EXPECT_TRUE(eventually([&] {
    for (const auto& e : projectLogs(api(), name))
      if (e["kind"] == "platform" &&
          e["message"].get<std::string>().starts_with("command /bin/sh exited with code 7 in "))
        return true;
    return false;
  }));
  EXPECT_NE(server->output().find("command /bin/sh exited with code 7 in "), std::string::npos);

  // A program that is not there: 127 with the reason, as from a shell.
  answer = ran(name, {{"argv", {"no-such-program"}}});
  EXPECT_EQ(answer["exit_code"], 127);
  EXPECT_NE(answer["output"].get<std::string>().find("no-such-program"), std::string::npos);
}

TEST_F(ApiCommands, ATimeLimitStopsItAndAnOlderReleaseCanBeNamed) {
  const std::string name = projectWithRelease("cmdtime", "first");
  const std::string first = liveId(name);
  deploy(name, "second");
  ASSERT_NE(liveId(name), first);
  json answer = ran(name, {{"argv", {"cat", "index.html"}}, {"release_id", first}});
  EXPECT_EQ(answer["output"], "first");
  answer = ran(name, {{"argv", {"cat", "index.html"}}});
  EXPECT_EQ(answer["output"], "second");

  answer =
      ran(name, {{"argv", {"/bin/sh", "-c", "echo started; sleep 30"}}, {"timeout_seconds", 1}});
  EXPECT_EQ(answer["timed_out"], true);
  EXPECT_EQ(answer["output"], "started\n");
  EXPECT_LT(answer["duration_ms"].get<int64_t>(), 10000);
  EXPECT_TRUE(eventually([&] {
    for (const auto& e : projectLogs(api(), name))
      if (e["message"] == "command /bin/sh took longer than 1 s and was stopped") return true;
    return false;
  }));
}

TEST_F(ApiCommands, EveryRefusalSaysWhy) {
  const std::string name = projectWithRelease("cmdref", "x");
  const std::string id = projectId(*server, name);
  auto expect = [&](json request, int status, const std::string& error) {
    auto r = run(std::move(request));
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(errorText(r), error);
  };
  expect({{"project_id", "00000000-0000-0000-0000-000000000000"}, {"argv", {"ls"}}}, 404,
         "no project called 00000000-0000-0000-0000-000000000000");
  mustCreate(api(), "cmdnone");
  const std::string none = projectName("cmdnone", owner->slug);
  expect({{"project_id", projectId(*server, none)}, {"argv", {"ls"}}}, 409,
         none + " has no live release");
  expect({{"project_id", id}, {"argv", {"ls"}}, {"release_id", "nope"}}, 404,
         "no release called nope");
  const std::string failed = deploy(name, "", "this is not a gzip archive");
  expect({{"project_id", id}, {"argv", {"ls"}}, {"release_id", failed}}, 409,
         "release " + failed + " is not ready");
  expect({{"project_id", id}, {"argv", json::array()}}, 400, "argv must hold 1 to 64 arguments");
  expect({{"project_id", id}, {"argv", "ls -l"}}, 400,
         "argv is required and must be an array of strings");
  expect({{"project_id", id}, {"argv", {""}}}, 400, "argv[0], the program, must not be empty");
  expect({{"project_id", id}, {"argv", {"echo", std::string(5000, 'a')}}}, 400,
         "argv[1] is longer than 4096 bytes");
  expect({{"project_id", id}, {"argv", {"ls"}}, {"timeout_seconds", 0}}, 400,
         "timeout_seconds must be a whole number from 1 to 3600");
  expect({{"project_id", id}, {"argv", {"ls"}}, {"timeout_seconds", 3601}}, 400,
         "timeout_seconds must be a whole number from 1 to 3600");
  expect({{"project_id", id}, {"argv", {"ls"}}, {"stdin", std::string(1024 * 1024 + 1, 'x')}}, 400,
         "stdin is longer than 1 MB (1048576 bytes)");
  expect({{"argv", {"ls"}}}, 400, "project_id is required and must be a string");
}

TEST_F(ApiCommands, AtMostFourRunAtOnce) {
  const std::string name = projectWithRelease("cmdbusy", "x");
  const std::string home = server->dataDir() + "/runtime/homes/" + projectId(*server, name);
  std::vector<std::thread> running;
  std::atomic<int> finished{0};
  for (int i = 0; i < 4; ++i)
    running.emplace_back([&, i] {
      auto r = ran(
          name,
          {{"argv", {"/bin/sh", "-c", "touch \"$HOME/busy-" + std::to_string(i) + "\"; sleep 8"}}});
      if (r["exit_code"] == 0) ++finished;
    });
  // Once the four run (each marks it in the project's home), a fifth is refused.
  auto busy = [&] {
    int n = 0;
    for (int i = 0; i < 4; ++i) n += fs::exists(home + "/busy-" + std::to_string(i)) ? 1 : 0;
    return n;
  };
  EXPECT_TRUE(eventually([&] { return busy() == 4; }, std::chrono::seconds(6))) << busy();
  auto refused = run({{"project_id", projectId(*server, name)}, {"argv", {"true"}}});
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(errorText(refused), "too many commands are running; try again shortly");
  for (auto& t : running) t.join();
  EXPECT_EQ(finished, 4);
  EXPECT_EQ(ran(name, {{"argv", {"true"}}})["exit_code"], 0);  // free again
}

// The sandbox shows a command its own release and home only: another project's release,
// home and secrets are not there, though release files are world-readable on the disk.
TEST_F(ApiCommands, AnotherProjectsReleaseAndHomeAreOutOfSight) {
  const std::string victim = projectWithRelease("cmdvict", "victim's page");
  ASSERT_EQ(
      api().post("/projects/" + victim + "/secrets", {{"name", "VICTIM"}, {"value", "v-9"}}).status,
      201);
  // The victim's home exists (its command ran once).
  ran(victim, {{"argv", {"/bin/sh", "-c", "echo secret-note > \"$HOME/note\""}}});
  const std::string victim_release = releaseDir(victim, liveId(victim));
  const std::string victim_home =
      server->dataDir() + "/runtime/homes/" + projectId(*server, victim);
  ASSERT_TRUE(fs::exists(victim_release + "/index.html"));

  const std::string attacker = projectWithRelease("cmdatt", "attacker");
  auto attempt = [&](const std::string& script) {
    return ran(attacker, {{"argv", {"/bin/sh", "-c", script}}});
  };
  json answer = attempt("cat " + victim_release + "/index.html");
  EXPECT_NE(answer["exit_code"], 0);
  EXPECT_EQ(answer["output"].get<std::string>().find("victim's page"), std::string::npos)
      << answer["output"];
  answer = attempt("cat " + victim_home + "/note");
  EXPECT_NE(answer["exit_code"], 0);
  EXPECT_EQ(answer["output"].get<std::string>().find("secret-note"), std::string::npos)
      << answer["output"];
  // Only its own project's folder is there.
  answer =
      attempt("ls " + server->dataDir() + "/releases; ls " + server->dataDir() + "/runtime/homes");
  EXPECT_EQ(answer["output"],
            projectId(*server, attacker) + "\n" + projectId(*server, attacker) + "\n");
  answer = attempt("printenv VICTIM");
  EXPECT_EQ(answer["exit_code"], 1);
  EXPECT_EQ(answer["output"], "");
}

}  // namespace
