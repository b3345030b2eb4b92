// ctest-label: api (starts a real berthd)
// The project gateway over real HTTP, through berthd's nginx edge on <project>.localhost:
// static releases (index.html, types, ETag/304, Range, 301, 404), a Node app started on
// demand with its environment (PORT, a DATABASE_URL and PG* that connect, a runtime secret),
// scale to zero and the wake that holds requests (20 at once, one start), crash restart,
// restart on a secret change, a start failure's 503 with the app's last lines, and the
// request logs (a schedule's run among them). Releases go through the real upload route.
// What the edge does alone once the gateway has decided (a running app's traffic straight to
// it, a static release's files from the edge file tree) is seen with berthd stopped
// (SIGSTOP): only what needs no berthd is answered then.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include "../projects/api_support.hpp"
#include "../scheduler/api_support.hpp"
#include "app_environment.hpp"
#include "db/pool.hpp"
#include "host_requests.hpp"
#include "static_site.hpp"
#include "support/berthd_suite.hpp"
#include "support/process_pause.hpp"
#include "support/release_upload.hpp"
#include "tar_builder.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::runtime::testing::TarBuilder;
using berth::testing::stopCleanly;
using nlohmann::json;

namespace {

// The test app: counts its starts and stops in files of its HOME (the project's writable
// folder: the release is read-only),
// answers its environment at /env, exits at /crash, and listens only after 300 ms so that
// requests certainly arrive while it starts.
const char* const kNodeApp = R"JS(
const http = require('http');
const fs = require('fs');
// In the sandbox's own pid namespace every process may have the same pid: this tells them apart.
const instance = Math.floor(Math.random() * 1e9);
fs.appendFileSync(process.env.HOME + '/starts.log', process.pid + '\n');
process.on('SIGTERM', () => {
  fs.appendFileSync(process.env.HOME + '/stops.log', process.pid + '\n'); process.exit(0); });
const server = http.createServer((req, res) => {
  res.setHeader('cache-control', 'no-store');  // this test looks at the app, not the cache
  if (req.url === '/env') {
    const e = process.env;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({PORT: e.PORT, HOME: e.HOME, DATABASE_URL: e.DATABASE_URL,
      PGHOST: e.PGHOST, PGPORT: e.PGPORT, PGUSER: e.PGUSER, PGPASSWORD: e.PGPASSWORD,
      PGDATABASE: e.PGDATABASE, GREETING: e.GREETING || null, pid: instance}));
    return;
  }
  if (req.url === '/crash') { res.end('bye\n', () => process.exit(3)); return; }
  res.end('hello from node: ' + req.method + ' ' + req.url + '\n');
});
setTimeout(() => server.listen(Number(process.env.PORT), '127.0.0.1'), 300);
)JS";

// Counts the requests it sees, so a cached answer shows an old count; /nostore says no-store.
const char* const kCountingApp = R"JS(
let n = 0;
require('http').createServer((req, res) => {
  n += 1;
  if (req.url === '/nostore') res.setHeader('cache-control', 'no-store');
  res.setHeader('content-type', 'text/plain');
  res.end(req.url + ' ' + n + '\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

// Says which process it is in every answer (a new process shows; its pid alone would not, in
// the sandbox's own pid namespace), and counts; /nostore... says no-store; /nostore/die kills
// itself (SIGKILL, behind the supervisor's back).
const char* const kPidApp = R"JS(
let n = 0;
const instance = process.pid + '.' + Math.random().toString(36).slice(2, 10);
require('http').createServer((req, res) => {
  n += 1;
  if (req.url === '/nostore/die') process.kill(process.pid, 'SIGKILL');
  if (req.url.startsWith('/nostore')) res.setHeader('cache-control', 'no-store');
  res.end(instance + ' ' + req.method + ' ' + req.url + ' ' + n + '\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

const char* const kFailingApp = R"JS(
console.log('starting the failing app');
console.error('boom: FAILING_CONFIG is not set');
process.exit(1);
)JS";

std::string countLines(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (!line.empty()) ++n;
  return std::to_string(n);
}

class ApiGateway : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "scheduler"};
    options.extra_yaml = secretsKeyYaml() +
                         "  creation_burst: 100\n"
                         "runtime:\n"
                         "  idle_stop_seconds: 4\n"
                         "  start_timeout_seconds: 10\n"
                         "  stop_grace_seconds: 2\n"
                         "scheduler:\n"
                         "  minute_ms: 1000\n";
    startServer(options, "gwown");
  }

  // Uploads a release and waits until it is live; returns the release id.
  static std::string deploy(const std::string& name, const std::string& archive) {
    return deployLive(api(), name, archive, std::chrono::seconds(60));
  }

  static std::string releaseDir(const std::string& name, const std::string& release) {
    return server->dataDir() + "/releases/" + projectId(*server, name) + "/" + release;
  }

  static HttpResult onHost(const std::string& name, const std::string& path,
                           std::vector<std::string> headers = {},
                           const std::string& method = "GET") {
    return onProjectHost(*server, name, path, std::move(headers), method);
  }

  // A request sent while berthd is stopped (SIGSTOP): it is answered only if the edge can
  // answer it alone (a running app's rule, the edge file tree, the cache); one that needs
  // berthd gets no answer before the timeout (status 0).
  static HttpResult withoutBerthd(const std::string& name, const std::string& path,
                                  std::vector<std::string> headers = {},
                                  const std::string& method = "GET") {
    headers.push_back("Host: " + name + ".localhost");
    HttpRequestSpec spec;
    spec.method = method;
    spec.url = server->baseUrl() + path;
    spec.headers = std::move(headers);
    // Long enough for an app under the sanitizers on a loaded machine (1.5 s was not); a
    // request that needed the paused berthd still gets no answer.
    spec.timeout_ms = 5000;
    ProcessPause paused(server->pid());
    return send(spec);
  }

  static std::string state(const std::string& name) {
    return api().get("/projects/" + name).json().value("state", "");
  }

  static json logs(const std::string& name) { return projectLogs(api(), name); }
};

TEST(PgEnvironment, SplitsTheUrlTheProjectsPluginWrites) {
  auto env = berth::runtime::pgEnvironment(
      "postgresql://p_role:p%40ss%2Fw@%2Ftmp%2Fpg%20sock:5433/"
      "p_db?hostaddr=127.0.0.1&sslmode=disable");
  EXPECT_EQ(env["PGUSER"], "p_role");
  EXPECT_EQ(env["PGPASSWORD"], "p@ss/w");
  EXPECT_EQ(env["PGHOST"], "/tmp/pg sock");
  EXPECT_EQ(env["PGPORT"], "5433");
  EXPECT_EQ(env["PGDATABASE"], "p_db");
  EXPECT_EQ(env["PGHOSTADDR"], "127.0.0.1");
  EXPECT_EQ(env["PGSSLMODE"], "disable");
  auto v6 = berth::runtime::pgEnvironment("postgres://u@[::1]:5432/d");
  EXPECT_EQ(v6["PGHOST"], "::1");
  EXPECT_EQ(v6["PGPORT"], "5432");
  EXPECT_EQ(v6.count("PGPASSWORD"), 0u);
  EXPECT_TRUE(berth::runtime::pgEnvironment("mysql://u@h/d").empty());
}

TEST_F(ApiGateway, UnknownHostsAndProjectsWithoutAReleaseAnswer404) {
  auto r = onHost("nothing-here", "/");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project at nothing-here.localhost");
  std::string name = project("empty");
  r = onHost(name, "/some/page?x=1");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), name + " has no live release yet");
  EXPECT_EQ(r.header("content-type"), "application/json");
}

TEST_F(ApiGateway, AStaticReleaseIsServedByTheEdge) {
  std::string name = project("site");
  const std::string index = "<!doctype html><title>home</title>\n";
  const std::string css = "body { color: #123456; }\n";
  deploy(name, TarBuilder()
                   .file("index.html", index)
                   .file("style.css", css)
                   .file("docs/index.html", "<p>docs</p>\n")
                   .file(".env", "SECRET=1\n")
                   .finish());

  auto home = onHost(name, "/");
  ASSERT_EQ(home.status, 200) << home.body;
  EXPECT_EQ(home.body, index);
  EXPECT_EQ(home.header("content-type"), "text/html; charset=utf-8");
  auto page = onHost(name, "/index.html?v=2");
  EXPECT_EQ(page.body, index);

  auto style = onHost(name, "/style.css");
  ASSERT_EQ(style.status, 200);
  EXPECT_EQ(style.body, css);
  EXPECT_EQ(style.header("content-type"), "text/css; charset=utf-8");
  std::string etag = style.header("etag");
  ASSERT_FALSE(etag.empty());
  auto again = onHost(name, "/style.css", {"If-None-Match: " + etag});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());

  auto part = onHost(name, "/style.css", {"Range: bytes=0-3"});
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(part.body, "body");
  EXPECT_EQ(part.header("content-range"), "bytes 0-3/" + std::to_string(css.size()));

  auto folder = onHost(name, "/docs?x=1");
  EXPECT_EQ(folder.status, 301);
  EXPECT_EQ(folder.header("location"), "/docs/");
  auto docs = onHost(name, "/docs/");
  EXPECT_EQ(docs.status, 200);
  EXPECT_EQ(docs.body, "<p>docs</p>\n");

  // (A path climbing above / never gets here: nginx answers 400 itself.)
  for (const char* missing : {"/nope.html", "/.env", "/docs/%2e%2e/.env", "/docs/.hidden"}) {
    auto r = onHost(name, missing);
    EXPECT_EQ(r.status, 404) << missing << ": " << r.body;
  }
  auto nope = onHost(name, "/nope.html");
  EXPECT_EQ(errorText(nope), "no such file");

  // A static site has no process: the project reads stopped while serving.
  auto view = api().get("/projects/" + name);
  EXPECT_EQ(view.json().value("state", ""), "stopped") << view.body;
}

// One Node project through the whole life of an app: env, idle stop, the wake that holds 20
// requests, crash restart, secret change, request logs and a schedule's request.
TEST_F(ApiGateway, ANodeAppStartsOnDemandStopsWhenIdleAndWakesHoldingRequests) {
  std::string name = project("nodeapp");
  auto secret = api().post("/projects/" + name + "/secrets",
                           {{"name", "GREETING"}, {"value", "first"}, {"scope", "runtime"}});
  ASSERT_EQ(secret.status, 201) << secret.body;
  std::string release = deploy(name, nodeRelease(kNodeApp));
  const std::string dir = server->dataDir() + "/runtime/homes/" + projectId(*server, name);
  const std::string starts = dir + "/starts.log", stops = dir + "/stops.log";

  // The first request starts the app and is held until it listens.
  auto first = onHost(name, "/hello?a=1&b=2", {}, "POST");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.body, "hello from node: POST /hello?a=1&b=2\n");
  EXPECT_EQ(countLines(starts), "1");

  // Its environment: PORT, HOME, the database, the runtime secret.
  auto env_answer = onHost(name, "/env");
  ASSERT_EQ(env_answer.status, 200) << env_answer.body;
  json env = env_answer.json();
  EXPECT_EQ(env["HOME"], dir);
  EXPECT_FALSE(env.value("PORT", "").empty());
  EXPECT_EQ(env["GREETING"], "first");
  ASSERT_TRUE(env["DATABASE_URL"].is_string()) << env.dump();
  for (const char* key : {"PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE"})
    EXPECT_TRUE(env[key].is_string()) << key << " in " << env.dump();
  {
    berth::core::Pool by_url(env["DATABASE_URL"].get<std::string>(), 1, std::chrono::seconds(10));
    auto users = column(by_url, "SELECT current_user::text");
    ASSERT_EQ(users.size(), 1u);
    EXPECT_EQ(users[0], env["PGUSER"].get<std::string>());
    std::string conninfo =
        "host='" + env["PGHOST"].get<std::string>() + "' port=" + env["PGPORT"].get<std::string>() +
        " user=" + env["PGUSER"].get<std::string>() + " password='" +
        env["PGPASSWORD"].get<std::string>() + "' dbname=" + env["PGDATABASE"].get<std::string>();
    berth::core::Pool by_parts(conninfo, 1, std::chrono::seconds(10));
    EXPECT_EQ(column(by_parts, "SELECT current_database()::text")[0],
              env["PGDATABASE"].get<std::string>());
  }
  auto running = api().get("/projects/" + name);
  EXPECT_EQ(running.json().value("state", ""), "running") << running.body;

  // No request for idle_stop_seconds: stopped (SIGTERM reaches it), state reads stopped.
  ASSERT_TRUE(eventually([&] { return countLines(stops) == "1"; }, std::chrono::seconds(20)));
  EXPECT_TRUE(eventually(
      [&] { return api().get("/projects/" + name).json().value("state", "") == "stopped"; }));

  // 20 requests at once wake it: every one is answered, by one start.
  std::vector<std::thread> threads;
  std::atomic<int> answered{0};
  for (int i = 0; i < 20; ++i)
    threads.emplace_back([&, i] {
      auto r = onHost(name, "/wake/" + std::to_string(i));
      if (r.status == 200 && r.body == "hello from node: GET /wake/" + std::to_string(i) + "\n")
        ++answered;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(answered.load(), 20);
  EXPECT_EQ(countLines(starts), "2");

  // A crash: the supervisor starts it again (after its back-off), and it serves.
  auto crash = onHost(name, "/crash");
  EXPECT_EQ(crash.status, 200);
  EXPECT_TRUE(eventually([&] { return countLines(starts) == "3"; }));
  auto after_crash = onHost(name, "/after-crash");
  EXPECT_EQ(after_crash.status, 200) << after_crash.body;

  // A secret change restarts the running app with the new value.
  int pid_before = onHost(name, "/env").json().value("pid", 0);
  secret = api().post("/projects/" + name + "/secrets",
                      {{"name", "GREETING"}, {"value", "second"}, {"scope", "runtime"}});
  ASSERT_EQ(secret.status, 201) << secret.body;
  json changed;
  EXPECT_TRUE(eventually([&] {
    auto r = onHost(name, "/env");
    changed = r.json();
    return r.status == 200 && changed.value("GREETING", json()) == "second";
  })) << changed.dump();
  EXPECT_NE(changed.value("pid", 0), pid_before);

  // The requests are in the project's logs, with method, path, status and ms.
  EXPECT_TRUE(eventually([&] {
    for (const auto& entry : logs(name))
      if (entry["kind"] == "request" && entry["path"] == "/hello?a=1&b=2" &&
          entry["method"] == "POST" && entry["status"] == 200 && entry["ms"].is_number())
        return true;
    return false;
  })) << logs(name).dump();
  // And the platform's own lines (the app's start) and what the app printed on crash.
  bool platform = false;
  for (const auto& entry : logs(name))
    if (entry["kind"] == "platform") platform = true;
  EXPECT_TRUE(platform);
}

TEST_F(ApiGateway, AScheduleRequestIsLoggedWithItsScheduleId) {
  std::string name = project("sched");
  deploy(name, TarBuilder().file("index.html", "<p>hi</p>\n").file("tick.txt", "tick\n").finish());
  auto schedule = api().post("/projects/" + name + "/schedules",
                             {{"name", "tick"}, {"spec", "* * * * *"}, {"path", "/tick.txt"}});
  ASSERT_EQ(schedule.status, 201) << schedule.body;
  std::string id = schedule.json().at("id").get<std::string>();
  // A request naming a schedule is believed only with berthd's node proof, which only the
  // scheduler sends (tests/isolation/edge_test.cpp forges one): the scheduler's own run is
  // looked for.
  json found;
  EXPECT_TRUE(eventually(
      [&] {
        for (const auto& entry : logs(name))
          if (entry["kind"] == "request" && entry["path"] == "/tick.txt" &&
              entry["message"] == id) {
            found = entry;
            return true;
          }
        return false;
      },
      std::chrono::seconds(30)));
  EXPECT_EQ(found.value("status", 0), 200) << found.dump();
  EXPECT_EQ(found.value("method", ""), "GET");

  // The same header from a visitor (another address than this machine's loopback) is logged
  // as the visitor's request, without the schedule's id.
  const std::string visitor = nonLoopbackAddress();
  if (visitor.empty()) {
    // (A machine with loopback alone cannot send as a visitor; CI machines have a network.)
    std::cerr << "note: no IPv4 address but loopback here: the visitor case is not tested\n";
  } else {
    HttpRequestSpec spec;
    spec.url = server->baseUrl() + "/tick.txt?from=visitor";
    spec.headers = {"Host: " + name + ".localhost", "x-berth-schedule: " + id};
    spec.source_address = visitor;
    auto r = send(spec);
    ASSERT_EQ(r.status, 200) << r.error;
    json seen;
    EXPECT_TRUE(eventually([&] {
      for (const auto& entry : logs(name))
        if (entry["kind"] == "request" && entry["path"] == "/tick.txt?from=visitor") {
          seen = entry;
          return true;
        }
      return false;
    })) << logs(name).dump();
    EXPECT_TRUE(seen["message"].is_null() || seen["message"] == "") << seen.dump();
  }
  api().del("/projects/" + name + "/schedules/" + id);
}

TEST_F(ApiGateway, AStartThatFailsAnswers503WithTheReasonAndTheLastLines) {
  std::string name = project("failing");
  deploy(name, nodeRelease(kFailingApp));
  auto r = onHost(name, "/");
  ASSERT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(errorText(r), "the app exited with code 1 before it accepted connections");
  json output = r.json().value("output", json());
  ASSERT_TRUE(output.is_array()) << r.body;
  std::string text;
  for (const auto& line : output) text += line.get<std::string>() + "\n";
  EXPECT_NE(text.find("starting the failing app"), std::string::npos) << text;
  EXPECT_NE(text.find("boom: FAILING_CONFIG is not set"), std::string::npos) << text;
}

TEST_F(ApiGateway, AnAppSlowerToStartThanTheIdleTimeIsNotStoppedWhileItStarts) {
  // idle_stop_seconds is 4 here: the held first request must get the app's answer, not a stop.
  std::string name = project("slowstart");
  deploy(name, nodeRelease("setTimeout(() => require('http')"
                           ".createServer((q, s) => s.end('late but here\\n'))"
                           ".listen(process.env.PORT, '127.0.0.1'), 7000);"));
  auto r = onHost(name, "/");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "late but here\n");
}

TEST_F(ApiGateway, ANewLiveReleaseReplacesTheRunningApp) {
  std::string name = project("swap");
  std::string first = deploy(name, nodeRelease(kCountingApp));
  // The old release's answer is in the edge cache...
  ASSERT_TRUE(eventually([&] { return onHost(name, "/").header("x-berth-cache") == "HIT"; }));
  std::string second =
      deploy(name, nodeRelease("require('http').createServer((q, s) => s.end('second\\n'))"
                               ".listen(Number(process.env.PORT), '127.0.0.1');"));
  EXPECT_NE(first, second);
  // Right after the release went live the edge may still be loading the new rules (and for a
  // moment after a reload, nginx's old workers still take connections): soon, only the new
  // app answers, three times in a row.
  HttpResult r;
  EXPECT_TRUE(eventually([&] {
    for (int i = 0; i < 3; ++i) {
      r = onHost(name, "/");
      if (r.status != 200 || r.body != "second\n") return false;
    }
    return true;
  })) << r.body;
  // ...and the old answer is not served again: the new release has a fresh cache key.
  EXPECT_EQ(onHost(name, "/").body, "second\n");
}

TEST_F(ApiGateway, TheEdgeCachesGetAnswersUntilPurgedOrTurnedOff) {
  std::string name = project("cached");
  deploy(name, nodeRelease(kCountingApp));
  // The first cacheable answer gives the host its rule; once the edge has loaded it, a
  // repeat is a HIT: nginx answers without the app (the count does not move).
  HttpResult hit;
  ASSERT_TRUE(eventually([&] {
    hit = onHost(name, "/page?q=1");
    return hit.status == 200 && hit.header("x-berth-cache") == "HIT";
  })) << hit.body
      << " " << hit.header("x-berth-cache");
  auto again = onHost(name, "/page?q=1");
  EXPECT_EQ(again.header("x-berth-cache"), "HIT");
  EXPECT_EQ(again.body, hit.body);
  // Another query is another entry: a MISS, answered by the app.
  auto other = onHost(name, "/page?q=2");
  EXPECT_EQ(other.header("x-berth-cache"), "MISS");
  EXPECT_NE(other.body.rfind("/page?q=2 ", 0), std::string::npos) << other.body;

  // Never stored: an answer saying no-store, a request with a cookie or Authorization.
  for (int i = 0; i < 3; ++i) {
    auto r = onHost(name, "/nostore");
    EXPECT_NE(r.header("x-berth-cache"), "HIT");
  }
  auto first_no_store = onHost(name, "/nostore");
  auto second_no_store = onHost(name, "/nostore");
  EXPECT_NE(first_no_store.body, second_no_store.body);
  auto with_cookie = onHost(name, "/page?q=1", {"Cookie: session=1"});
  EXPECT_NE(with_cookie.header("x-berth-cache"), "HIT");
  EXPECT_NE(with_cookie.body, hit.body);
  auto with_auth = onHost(name, "/page?q=1", {"Authorization: Bearer x"});
  EXPECT_NE(with_auth.header("x-berth-cache"), "HIT");
  EXPECT_NE(with_auth.body, hit.body);
  // A Range of a kept answer is cut from it (206), without the app.
  auto range = onHost(name, "/page?q=1", {"Range: bytes=0-3"});
  EXPECT_EQ(range.status, 206) << range.body;
  EXPECT_EQ(range.body, hit.body.substr(0, 4));
  EXPECT_EQ(range.header("x-berth-cache"), "HIT");

  // A purge starts a fresh cache: the next answer comes from the app again.
  expectPurgeStartsAfresh(*server, api(), name, "/page?q=1", hit.body);

  // cache_enabled false: the project's rule goes (within the refresh period).
  auto off = api().patch("/projects/" + name, {{"cache_enabled", false}});
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_TRUE(eventually([&] {
    auto a = onHost(name, "/page?q=3");
    auto b = onHost(name, "/page?q=3");
    return a.header("x-berth-cache") != "HIT" && b.header("x-berth-cache") != "HIT" &&
           a.body != b.body;
  }));
}

// A running app's traffic goes from the edge straight to it (berthd is not asked), through
// the edge cache; idle stop follows that traffic from the access log; an app killed behind
// the supervisor's back is woken again through the edge's fallback to berthd.
TEST_F(ApiGateway, ARunningAppIsReachedByTheEdgeAloneAndStillStopsWhenIdle) {
  std::string name = project("direct");
  deploy(name, nodeRelease(kPidApp));
  auto pidOf = [](const HttpResult& r) { return r.body.substr(0, r.body.find(' ')); };

  // The wake goes through berthd; once the edge has loaded the app's rule, berthd is not
  // needed any more.
  auto wake = onHost(name, "/nostore/wake");
  ASSERT_EQ(wake.status, 200) << wake.body;
  const std::string pid = pidOf(wake);
  HttpResult direct;
  ASSERT_TRUE(eventually([&] {
    direct = withoutBerthd(name, "/nostore/direct");
    return direct.status == 200;
  })) << direct.error;
  EXPECT_EQ(pidOf(direct), pid) << direct.body;
  EXPECT_EQ(direct.header("x-berth-cache"), "MISS");
  // (Awaited: the reload that gave the rule may still be under way in some workers.)
  HttpResult post;
  EXPECT_TRUE(eventually([&] {
    post = withoutBerthd(name, "/nostore/form?x=1", {}, "POST");
    return post.status == 200;
  })) << post.error;
  ASSERT_EQ(post.status, 200);
  EXPECT_EQ(post.body.substr(pid.size()).rfind(" POST /nostore/form?x=1 ", 0), 0u) << post.body;

  // Through the edge cache, with the release's key: a MISS the app answers, then a HIT; a
  // cookie is never answered from the cache.
  auto miss = withoutBerthd(name, "/page?d=1");
  EXPECT_EQ(miss.status, 200) << miss.error;
  EXPECT_EQ(miss.header("x-berth-cache"), "MISS");
  // (Other tests' projects may have the edge reloading right now: soon, a HIT.)
  HttpResult hit;
  EXPECT_TRUE(eventually([&] {
    hit = withoutBerthd(name, "/page?d=1");
    return hit.header("x-berth-cache") == "HIT";
  })) << hit.body
      << " " << hit.error;
  auto hit_again = withoutBerthd(name, "/page?d=1");
  EXPECT_EQ(hit_again.header("x-berth-cache"), "HIT");
  EXPECT_EQ(hit_again.body, hit.body);
  auto with_cookie = withoutBerthd(name, "/page?d=1", {"Cookie: s=1"});
  EXPECT_EQ(with_cookie.status, 200);
  EXPECT_NE(with_cookie.header("x-berth-cache"), "HIT");
  EXPECT_NE(with_cookie.body, miss.body);

  // Only direct traffic for longer than idle_stop_seconds (4): the access log keeps the app
  // awake, so its rule stays (with the rule taken back, these would need berthd).
  int answered = 0, sent = 0;
  auto busy = [&](std::chrono::milliseconds how_long) {
    const auto busy_until = std::chrono::steady_clock::now() + how_long;
    while (std::chrono::steady_clock::now() < busy_until) {
      ++sent;
      auto r = withoutBerthd(name, "/nostore/busy");
      if (r.status == 200 && pidOf(r) == pid) ++answered;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  };
  busy(std::chrono::seconds(5));
  // berthd stalled for longer than idle_stop_seconds: not idle time (it could not read the
  // access log), so the app and its rule stay.
  {
    ProcessPause stalled(server->pid());
    std::this_thread::sleep_for(std::chrono::seconds(5));
  }
  busy(std::chrono::milliseconds(2500));
  EXPECT_EQ(answered, sent);
  // Direct requests are in the project's logs like any other, with their method.
  EXPECT_TRUE(eventually([&] {
    for (const auto& entry : logs(name))
      if (entry["kind"] == "request" && entry["path"] == "/nostore/form?x=1" &&
          entry["method"] == "POST" && entry["status"] == 200)
        return true;
    return false;
  })) << logs(name).dump();

  // Then nothing: the app is stopped (its rule first taken back), and the next request wakes
  // it through berthd, held as before.
  EXPECT_TRUE(eventually([&] { return state(name) == "stopped"; }));
  auto again = onHost(name, "/nostore/again");
  ASSERT_EQ(again.status, 200) << again.body;
  const std::string second = pidOf(again);
  EXPECT_NE(second, pid);

  // Killed behind the supervisor's back: the edge's rule leads to a closed port, its 502
  // brings the request to berthd, which has the app started again and answers.
  ASSERT_TRUE(eventually([&] { return withoutBerthd(name, "/nostore/d2").status == 200; }));
  (void)onHost(name, "/nostore/die");
  // (Once its supervisor has seen it die: before, berthd itself would still send the request
  // to the old port.)
  (void)eventually([&] { return state(name) != "running"; }, std::chrono::seconds(3));
  auto after_kill = onHost(name, "/nostore/after-kill");
  ASSERT_EQ(after_kill.status, 200) << after_kill.body;
  EXPECT_NE(pidOf(after_kill), second);
  // And the rule follows the new process.
  HttpResult followed;
  EXPECT_TRUE(eventually([&] {
    followed = withoutBerthd(name, "/nostore/d3");
    return followed.status == 200 && pidOf(followed) != second;
  })) << followed.body;
}

// A static release's files are sent by the edge from its file tree (berthd stopped), with the
// gateway's content types; the tree follows a new release, a promote and the deletion.
TEST_F(ApiGateway, AStaticSiteIsSentFromTheEdgeTreeWhichFollowsTheLiveRelease) {
  std::string name = project("tree");
  const std::vector<std::string> files = {"a.css", "a.js",  "a.json", "a.svg",         "a.txt",
                                          "a.md",  "a.png", "a.wasm", "a.webmanifest", "a.bin"};
  TarBuilder first;
  first.file("index.html", "v1\n").file("docs/index.html", "docs\n");
  for (const auto& file : files) first.file(file, "x");
  std::string v1 = deploy(name, first.finish());
  const std::string entry = server->dataDir() + "/runtime/edge/" + name + ".localhost";

  // The first answer is berthd's; it makes the host's entry: a link to the live release.
  auto home = onHost(name, "/");
  ASSERT_EQ(home.status, 200) << home.body;
  EXPECT_EQ(home.body, "v1\n");
  std::error_code ec;
  EXPECT_EQ(std::filesystem::read_symlink(entry, ec).string(), releaseDir(name, v1))
      << ec.message();

  auto tree_home = withoutBerthd(name, "/");
  ASSERT_EQ(tree_home.status, 200) << tree_home.error;
  EXPECT_EQ(tree_home.body, "v1\n");
  EXPECT_EQ(tree_home.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(withoutBerthd(name, "/docs/").body, "docs\n");
  for (const auto& file : files) {
    auto r = withoutBerthd(name, "/" + file + "?v=1");
    EXPECT_EQ(r.status, 200) << file << " " << r.error;
    EXPECT_EQ(r.header("content-type"), berth::runtime::contentTypeFor(file)) << file;
  }
  // What the tree does not have is still berthd's to answer.
  EXPECT_EQ(onHost(name, "/docs").status, 301);
  EXPECT_EQ(onHost(name, "/missing.html").status, 404);

  // A new live release: the entry points at it at once.
  std::string v2 = deploy(name, TarBuilder().file("index.html", "v2\n").finish());
  HttpResult r;
  EXPECT_TRUE(eventually([&] {
    r = withoutBerthd(name, "/");
    return r.body == "v2\n";
  })) << r.body;
  EXPECT_EQ(std::filesystem::read_symlink(entry, ec).string(), releaseDir(name, v2));
  EXPECT_EQ(onHost(name, "/a.css").status, 404);  // not in v2: berthd's 404

  // Promoting the first release back.
  auto promote = api().post("/projects/" + name + "/deploys/" + v1 + "/promote", json::object());
  ASSERT_EQ(promote.status, 200) << promote.body;
  EXPECT_TRUE(eventually([&] {
    r = withoutBerthd(name, "/");
    return r.body == "v1\n";
  })) << r.body;

  // Deleting the project takes its entry away.
  auto deleted = api().del("/projects/" + name);
  EXPECT_LT(deleted.status, 300) << deleted.body;
  EXPECT_TRUE(
      eventually([&] { return !std::filesystem::exists(std::filesystem::symlink_status(entry)); }));
}

// Every request is in the project's logs, also a burst the edge answers alone while berthd
// is paused (the access log waits in its file; nothing is dropped).
TEST_F(ApiGateway, EveryRequestOfABurstIsLogged) {
  std::string name = project("burst");
  deploy(name, TarBuilder().file("index.html", "burst\n").finish());
  ASSERT_EQ(onHost(name, "/").status, 200);  // the edge tree takes the host from here on
  ASSERT_TRUE(eventually([&] { return withoutBerthd(name, "/").status == 200; }));
  constexpr int kThreads = 8, kEach = 50;
  std::atomic<int> answered{0};
  {
    ProcessPause paused(server->pid());
    std::vector<std::thread> clients;
    for (int t = 0; t < kThreads; ++t)
      clients.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          HttpRequestSpec spec;
          spec.url = server->baseUrl() + "/?burst=" + std::to_string(t * kEach + i);
          spec.headers = {"Host: " + name + ".localhost"};
          spec.timeout_ms = 5000;
          if (send(spec).status == 200) ++answered;
        }
      });
    for (auto& client : clients) client.join();
  }
  ASSERT_EQ(answered.load(), kThreads * kEach);
  std::set<std::string> logged;
  EXPECT_TRUE(eventually([&] {
    for (const auto& entry : logs(name)) {
      if (entry["kind"] != "request" || !entry["path"].is_string()) continue;
      std::string path = entry["path"];
      if (path.starts_with("/?burst=")) logged.insert(path);
    }
    return logged.size() == static_cast<size_t>(kThreads * kEach);
  })) << logged.size()
      << " of " << kThreads * kEach << " logged";
}

TEST_F(ApiGateway, PurgingTheCacheAnswers204ToWhoeverReachesTheProject) {
  std::string name = project("purge");
  auto r = api().del("/projects/" + name + "/cache");
  EXPECT_EQ(r.status, 204) << r.body;
  Account other = makeAccount(*server, "gwoth");
  r = server->api(other.token).del("/projects/" + name + "/cache");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + name);
  EXPECT_EQ(server->api().del("/projects/" + name + "/cache").status, 401);
}

}  // namespace
