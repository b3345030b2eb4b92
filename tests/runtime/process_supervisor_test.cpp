// The app supervisor with real node processes: env, unprivileged user, readiness, one start
// shared by concurrent callers, start failures with the last output lines, stop with grace,
// crash and restart with back-off, bubblewrap; plus the pure pieces (env, $PORT, back-off).
#include "process_supervisor.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "project_apps.hpp"
#include "project_status.hpp"
#include "readiness.hpp"
#include "sandbox.hpp"
#include "start_command.hpp"

namespace fs = std::filesystem;
using namespace berth::runtime;
using namespace std::chrono_literals;

namespace {

// A uid with no account (apps run as numeric ids: no /etc/passwd entry is needed).
constexpr uid_t kTestUid = 200777;

constexpr const char* kServer = R"JS(
const http = require('http');
const started = Date.now();
if (process.env.IGNORE_TERM) process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
http.createServer((q, s) => {
  if (q.url === '/env') {
    s.end(JSON.stringify({port: process.env.PORT, home: process.env.HOME, cwd: process.cwd(),
      db: process.env.DATABASE_URL || null, pghost: process.env.PGHOST || null,
      secret: process.env.MY_SECRET || null, uid: process.getuid(),
      path: process.env.PATH, leaked: process.env.BERTH_TEST_PARENT_ONLY || null,
      argv: process.argv.slice(2)}));
    return;
  }
  if (q.url === '/crash') { s.end('bye'); setTimeout(() => process.exit(7), 5); return; }
  if (q.url === '/ready') { s.statusCode = Date.now() - started > 300 ? 200 : 503; s.end(); return; }
  if (q.url === '/slow-ready') { setTimeout(() => s.end('ok'), 600); return; }
  if (q.url === '/ls') { s.end(JSON.stringify(require('fs').readdirSync('/'))); return; }
  s.end('hello');
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ' + process.env.PORT));
)JS";

std::string httpGet(std::uint16_t port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "";
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: x\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[4096];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0)
    response.append(buffer, static_cast<size_t>(got));
  ::close(fd);
  const auto body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

// Waits (without asserting how long it takes) until `done` holds, for at most 30 s.
template <typename Condition>
bool eventually(Condition done) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

class Supervisor : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-app-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    ::chmod(dir_.c_str(), 0755);  // the unprivileged user reads its release
    std::ofstream(dir_ / "server.js") << kServer;
    ::chmod((dir_ / "server.js").c_str(), 0644);
  }
  void TearDown() override { fs::remove_all(dir_); }

  AppSpec spec(std::vector<std::string> argv = {"node", "server.js"}) {
    AppSpec s;
    s.project = "demo";
    s.argv = std::move(argv);
    s.release_dir = dir_.string();
    if (::geteuid() == 0) s.run_as = RunAs{kTestUid, kTestUid};
    s.start_timeout = 20s;
    s.stop_grace = 2s;
    s.restart.first_delay = 50ms;
    s.restart.max_delay = 200ms;
    return s;
  }

  fs::path dir_;
  std::vector<std::string> events_;
  std::mutex events_mutex_;
  AppProcess::EventSink recordEvents() {
    return [this](std::string_view e) {
      std::lock_guard lock(events_mutex_);
      events_.emplace_back(e);
    };
  }
  bool sawEvent(std::string_view prefix) {
    std::lock_guard lock(events_mutex_);
    for (const auto& e : events_)
      if (e.starts_with(prefix)) return true;
    return false;
  }
};

TEST(RestartBackoff, DoublesUpToTheMaximum) {
  RestartPolicy policy{100ms, 1000ms, 60s};
  EXPECT_EQ(restartDelay(policy, 1), 100ms);
  EXPECT_EQ(restartDelay(policy, 2), 200ms);
  EXPECT_EQ(restartDelay(policy, 4), 800ms);
  EXPECT_EQ(restartDelay(policy, 5), 1000ms);
  EXPECT_EQ(restartDelay(policy, 500), 1000ms);
}

TEST(PortQuarantine, HoldsALeftPortForTenSecondsAndNeverGivesItOut) {
  PortQuarantine quarantine;
  const auto t0 = PortQuarantine::Clock::now();
  quarantine.hold(4242, t0);
  quarantine.hold(0, t0);  // no port: nothing
  EXPECT_TRUE(quarantine.held(4242, t0 + 9s));
  EXPECT_FALSE(quarantine.held(4242, t0 + 10s));
  EXPECT_FALSE(quarantine.held(4243, t0));
  EXPECT_FALSE(quarantine.held(0, t0));
  // The process's quarantine is what freeLoopbackPort() skips: hold the ports it gives and it
  // never gives one of them again.
  // And each is below the kernel's ephemeral range, so no client's own source port (the
  // readiness poll's) can be the app's port before the app has bound it.
  unsigned ephemeral_low = 0, ephemeral_high = 0;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low >> ephemeral_high;
  std::set<std::uint16_t> given;
  for (int i = 0; i < 200; ++i) {
    std::uint16_t port = freeLoopbackPort();
    EXPECT_FALSE(given.contains(port)) << port;
    EXPECT_GE(port, kFirstAppPort);
    if (ephemeral_low > kFirstAppPort + 1000) {
      EXPECT_LT(port, ephemeral_low);
    }
    given.insert(port);
    portQuarantine().hold(port);
  }
}

TEST(ProjectStatus, RunningOnlyWithARunningProcess) {
  EXPECT_EQ(projectStatusJson(std::nullopt, std::nullopt),
            nlohmann::json::parse(R"({"state": "stopped", "live": null})"));
  const LiveRelease live{"rel1", 1700000000, 3, 1234};
  EXPECT_EQ(projectStatusJson(AppState::Running, live),
            nlohmann::json::parse(R"({"state": "running", "live": {"id": "rel1",
              "created_at": 1700000000, "files": 3, "bytes": 1234}})"));
  for (auto state : {AppState::Stopped, AppState::Starting, AppState::Restarting})
    EXPECT_EQ(projectStatusJson(state, live)["state"], "stopped") << stateName(state);
}

TEST(AppEnvironment, PlatformNamesCannotBeOverridden) {
  AppEnvironmentInput in;
  in.release_dir = "/srv/r1";
  in.port = 4321;
  in.database_url = "postgresql://u:p@127.0.0.1:5432/db";
  in.pg = {{"PGHOST", "127.0.0.1"}, {"PGUSER", "u"}, {"NOT_PG", "x"}};
  in.secrets = {{"API_KEY", "k"}, {"PORT", "1"}, {"PGHOST", "evil"}, {"HOME", "/root"}};
  in.start_env = {{"NODE_ENV", "production"}, {"DATABASE_URL", "evil"}};
  auto env = appEnvironment(in);
  EXPECT_EQ(env["PORT"], "4321");
  EXPECT_EQ(env["HOME"], "/srv/r1");
  EXPECT_EQ(env["PATH"], "/srv/r1/node_modules/.bin:/usr/local/bin:/usr/bin:/bin");
  EXPECT_EQ(env["DATABASE_URL"], "postgresql://u:p@127.0.0.1:5432/db");
  EXPECT_EQ(env["PGHOST"], "127.0.0.1");
  EXPECT_EQ(env["API_KEY"], "k");
  EXPECT_EQ(env["NODE_ENV"], "production");
  EXPECT_FALSE(env.contains("NOT_PG"));
  EXPECT_FALSE(env.contains("BERTH_URL"));
}

TEST(AppEnvironment, BerthUrlIsThePlatformsAndNeverASecrets) {
  AppEnvironmentInput in;
  in.release_dir = "/srv/r1";
  in.public_url = "http://www.example.test:8080";
  in.secrets = {{"BERTH_URL", "http://evil.test"}};
  in.start_env = {{"BERTH_URL", "http://also-evil.test"}};
  EXPECT_EQ(appEnvironment(in)["BERTH_URL"], "http://www.example.test:8080");
}

TEST(AppEnvironment, ExpandsPortInArguments) {
  std::map<std::string, std::string> env = {{"PORT", "8000"}, {"HOME", "/h"}};
  EXPECT_EQ(expandArguments({"gunicorn", "-b", "127.0.0.1:$PORT", "--dir=${HOME}/x", "$NOPE",
                             "${PORT", "a$", "$"},
                            env),
            (std::vector<std::string>{"gunicorn", "-b", "127.0.0.1:8000", "--dir=/h/x", "$NOPE",
                                      "${PORT", "a$", "$"}));
}

TEST(LineRing, KeepsTheNewestLinesAndCutsLongOnes) {
  LineRing ring(3, 8);
  for (const char* l : {"one", "two", "three", "four"}) ring.push(l);
  EXPECT_EQ(ring.last(10), (std::vector<std::string>{"two", "three", "four"}));
  EXPECT_EQ(ring.last(1), (std::vector<std::string>{"four"}));
  ring.push("0123456789abc");
  EXPECT_EQ(ring.last(1).front(), "01234567\xE2\x80\xA6");
  ring.push("1234567\xC3\xA9xyz");  // é straddles the cut: it is dropped whole
  EXPECT_EQ(ring.last(1).front(), "1234567\xE2\x80\xA6");
  ring.push("123456\xC3\xA9xyz");  // é ends at the cut: it stays
  EXPECT_EQ(ring.last(1).front(), "123456\xC3\xA9\xE2\x80\xA6");
}

TEST(LineSplitter, SplitsOnNewlinesAndBoundsPartialLines) {
  LineSplitter splitter(5);
  std::vector<std::string> lines;
  auto sink = [&](std::string_view l) { lines.emplace_back(l); };
  splitter.feed("ab\r\ncd", sink);
  splitter.feed("e\nabcdefgh", sink);
  splitter.finish(sink);
  EXPECT_EQ(lines, (std::vector<std::string>{"ab", "cde", "abcde", "fgh"}));
}

TEST(Sandbox, SeesOnlySystemFilesAndItsRelease) {
  SandboxOptions options;
  auto argv = sandboxedArgv(options, SandboxMounts{"/srv/r1", false, "/srv/homes/p1", {}},
                            {"node", "server.js"});
  const std::string joined = [&] {
    std::string s;
    for (const auto& a : argv) s += a + " ";
    return s;
  }();
  EXPECT_EQ(argv.front(), "bwrap");
  EXPECT_NE(joined.find("--unshare-all --share-net"), std::string::npos);
  EXPECT_NE(joined.find("--ro-bind /usr /usr"), std::string::npos);
  // The release read-only, the project's own folder read-write.
  EXPECT_NE(
      joined.find(
          "--ro-bind /srv/r1 /srv/r1 --chdir /srv/r1 -- /usr/bin/env --default-signal=TERM node "
          "server.js"),
      std::string::npos);
  EXPECT_NE(joined.find("--bind /srv/homes/p1 /srv/homes/p1"), std::string::npos);
  EXPECT_NE(joined.find("--proc /proc"), std::string::npos);
  EXPECT_NE(joined.find("--tmpfs /tmp"), std::string::npos);
  // A build writes in its release.
  auto build = sandboxedArgv(options, SandboxMounts{"/srv/r1", true, "", {}}, {"npm", "ci"});
  std::string build_joined;
  for (const auto& a : build) build_joined += a + " ";
  EXPECT_NE(
      build_joined.find(
          "--bind /srv/r1 /srv/r1 --chdir /srv/r1 -- /usr/bin/env --default-signal=TERM npm ci"),
      std::string::npos);
  EXPECT_EQ(joined.find("/work"), std::string::npos);
  EXPECT_EQ(joined.find("/root"), std::string::npos);
}

TEST_F(Supervisor, StartsWithItsEnvironmentAsAnUnprivilegedUser) {
  ::setenv("BERTH_TEST_PARENT_ONLY", "must not reach the app", 1);
  auto s = spec({"node", "server.js", "--listen=$PORT"});
  s.environment.database_url = "postgresql://app:pw@127.0.0.1:5/app";
  s.environment.pg = {{"PGHOST", "127.0.0.1"}};
  s.environment.secrets = {{"MY_SECRET", "s3cret"}};
  std::vector<std::string> printed;
  std::mutex printed_mutex;
  AppProcess app(
      s,
      [&](std::string_view line) {
        std::lock_guard lock(printed_mutex);
        printed.emplace_back(line);
      },
      recordEvents());
  EXPECT_EQ(app.state(), AppState::Stopped);
  auto outcome = app.startAndWait();
  ASSERT_TRUE(outcome.ready) << outcome.error;
  EXPECT_EQ(app.state(), AppState::Running);
  EXPECT_EQ(app.port(), outcome.port);
  const auto env = nlohmann::json::parse(httpGet(outcome.port, "/env"));
  EXPECT_EQ(env["port"], std::to_string(outcome.port));
  EXPECT_EQ(env["home"], dir_.string());
  EXPECT_EQ(env["cwd"], dir_.string());
  EXPECT_EQ(env["db"], "postgresql://app:pw@127.0.0.1:5/app");
  EXPECT_EQ(env["pghost"], "127.0.0.1");
  EXPECT_EQ(env["secret"], "s3cret");
  EXPECT_TRUE(env["leaked"].is_null()) << "berthd's own environment is not inherited";
  EXPECT_EQ(env["argv"][0], "--listen=" + std::to_string(outcome.port));
  if (::geteuid() == 0) {
    EXPECT_NE(env["uid"].get<int>(), 0) << "apps never run as root";
  }
  EXPECT_TRUE(eventually([&] { return !app.lastLines(5).empty(); }));
  EXPECT_EQ(app.lastLines(1).front(), "listening on " + std::to_string(outcome.port));
  {
    std::lock_guard lock(printed_mutex);
    EXPECT_EQ(printed.front(), "listening on " + std::to_string(outcome.port));
  }
  EXPECT_TRUE(sawEvent("started node"));
  EXPECT_TRUE(sawEvent("ready in "));
  app.stop();
  EXPECT_EQ(app.state(), AppState::Stopped);
  EXPECT_EQ(app.port(), 0);
  EXPECT_FALSE(acceptsConnections(outcome.port));
  EXPECT_TRUE(sawEvent("stopped (the app was killed by signal 15)"));
  ::unsetenv("BERTH_TEST_PARENT_ONLY");
}

TEST_F(Supervisor, ConcurrentCallersShareOneStart) {
  AppProcess app(spec());
  std::atomic<int> answered{0};
  std::mutex ports_mutex;
  std::set<std::uint16_t> ports;
  std::vector<std::thread> callers;
  for (int i = 0; i < 20; ++i)
    callers.emplace_back([&] {
      app.start([&](const StartOutcome& outcome) {
        std::lock_guard lock(ports_mutex);
        if (outcome.ready) ports.insert(outcome.port);
        ++answered;
      });
    });
  for (auto& t : callers) t.join();
  ASSERT_TRUE(eventually([&] { return answered == 20; }));
  EXPECT_EQ(ports.size(), 1u);
  EXPECT_EQ(app.starts(), 1);
  // Once running, a start answers at once with the same port.
  auto again = app.startAndWait();
  EXPECT_TRUE(again.ready);
  EXPECT_EQ(again.port, *ports.begin());
  EXPECT_EQ(app.starts(), 1);
}

TEST_F(Supervisor, ExitBeforeListeningFailsWithTheLastLines) {
  AppProcess app(
      spec({"node", "-e",
            "console.log('loading'); console.error('boom: no config'); process.exit(3)"}),
      {}, recordEvents());
  auto outcome = app.startAndWait();
  ASSERT_FALSE(outcome.ready);
  EXPECT_EQ(outcome.error, "the app exited with code 3 before it accepted connections");
  EXPECT_EQ(outcome.last_lines, (std::vector<std::string>{"loading", "boom: no config"}));
  EXPECT_EQ(app.state(), AppState::Stopped);
  EXPECT_TRUE(sawEvent("the start failed: the app exited with code 3"));
}

TEST_F(Supervisor, MissingProgramFails) {
  AppProcess app(spec({"berth-no-such-program"}));
  auto outcome = app.startAndWait();
  ASSERT_FALSE(outcome.ready);
  EXPECT_EQ(outcome.error, "cannot start berth-no-such-program: no such program on PATH");
}

TEST_F(Supervisor, StartTimeLimit) {
  auto s = spec({"node", "-e", "console.log('thinking'); setInterval(() => {}, 1000)"});
  s.start_timeout = 1500ms;
  AppProcess app(s);
  auto outcome = app.startAndWait();
  ASSERT_FALSE(outcome.ready);
  EXPECT_EQ(outcome.error, "the app did not accept connections on its port within 1.5 s");
  EXPECT_EQ(outcome.last_lines, std::vector<std::string>{"thinking"});
  EXPECT_EQ(app.state(), AppState::Stopped);
}

TEST_F(Supervisor, ReadinessPathDecidesWhenItIsReady) {
  auto s = spec();
  s.readiness_path = "/ready";
  AppProcess app(s);
  auto outcome = app.startAndWait();
  ASSERT_TRUE(outcome.ready) << outcome.error;
  // Listening alone was not enough: by the time it counted as ready, /ready said 200.
  EXPECT_EQ(httpStatus(outcome.port, "/ready", 5s), 200);
}

TEST_F(Supervisor, StopEscalatesToSigkillAfterTheGracePeriod) {
  auto s = spec();
  s.environment.secrets = {{"IGNORE_TERM", "1"}};
  s.stop_grace = 300ms;
  AppProcess app(s, {}, recordEvents());
  ASSERT_TRUE(app.startAndWait().ready);
  app.stop();
  EXPECT_TRUE(sawEvent("stopped (the app was killed by signal 9)"));
  EXPECT_TRUE(eventually([&] {
    auto lines = app.lastLines(5);
    return std::find(lines.begin(), lines.end(), "ignoring SIGTERM") != lines.end();
  }));
}

TEST_F(Supervisor, CrashIsRestartedWithBackoff) {
  AppProcess app(spec(), {}, recordEvents());
  auto first = app.startAndWait();
  ASSERT_TRUE(first.ready);
  EXPECT_EQ(httpGet(first.port, "/crash"), "bye");
  ASSERT_TRUE(eventually([&] { return app.starts() == 2 && app.state() == AppState::Running; }));
  EXPECT_EQ(app.crashes(), 1);
  EXPECT_TRUE(sawEvent("crashed (the app exited with code 7); restarting in 50 ms"));
  EXPECT_EQ(httpGet(app.port(), "/"), "hello");
  // A second crash right after waits twice as long (still restarted).
  EXPECT_EQ(httpGet(app.port(), "/crash"), "bye");
  ASSERT_TRUE(eventually([&] { return app.starts() == 3 && app.state() == AppState::Running; }));
  EXPECT_EQ(app.crashes(), 2);
}

TEST_F(Supervisor, NewEnvironmentRestartsARunningApp) {
  auto s = spec();
  s.environment.secrets = {{"MY_SECRET", "old"}};
  AppProcess app(s);
  auto first = app.startAndWait();
  ASSERT_TRUE(first.ready);
  EXPECT_EQ(nlohmann::json::parse(httpGet(first.port, "/env"))["secret"], "old");
  AppEnvironmentInput changed;
  changed.secrets = {{"MY_SECRET", "new"}};
  app.setEnvironment(changed);
  ASSERT_TRUE(eventually([&] { return app.state() == AppState::Running; }));
  EXPECT_EQ(app.starts(), 2);
  EXPECT_EQ(nlohmann::json::parse(httpGet(app.port(), "/env"))["secret"], "new");
  // A stopped app is not started by it; the next start uses the new values.
  app.stop();
  app.setEnvironment(s.environment);
  EXPECT_EQ(app.state(), AppState::Stopped);
  auto third = app.startAndWait();
  ASSERT_TRUE(third.ready);
  EXPECT_EQ(nlohmann::json::parse(httpGet(third.port, "/env"))["secret"], "old");
}

TEST_F(Supervisor, StopDuringRestartBackoff) {
  auto s = spec();
  s.restart.first_delay = 20s;
  s.restart.max_delay = 20s;
  AppProcess app(s);
  auto first = app.startAndWait();
  ASSERT_TRUE(first.ready);
  httpGet(first.port, "/crash");
  ASSERT_TRUE(eventually([&] { return app.state() == AppState::Restarting; }));
  app.stop();  // does not wait out the 20 s
  EXPECT_EQ(app.state(), AppState::Stopped);
  EXPECT_EQ(app.starts(), 1);
}

TEST_F(Supervisor, StopRightAfterStartAnswersTheWaiterAndReturns) {
  AppProcess app(spec());
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> called{0};
    app.start([&](const StartOutcome&) { ++called; });
    app.stop();  // must not hang, whether or not the supervisor had begun the start
    EXPECT_EQ(app.state(), AppState::Stopped);
    ASSERT_TRUE(eventually([&] { return called == 1; }));
  }
}

// A restart (a secret change: stop, then start) that lands while the app is still starting,
// with a request arriving in between: the stop is asked and taken back before the supervisor
// has finished stopping the half-started process. Everyone waiting wants the app, so they
// wait for the next start rather than getting a 503.
TEST_F(Supervisor, AStartAfterAStopOfAStartingAppIsServedByTheNextStart) {
  auto s = spec();
  s.readiness_path = "/ready";                     // ready 300 ms after it starts
  s.environment.secrets = {{"IGNORE_TERM", "1"}};  // its stop takes the whole grace period
  s.stop_grace = 400ms;
  AppProcess app(s, {}, recordEvents());
  std::mutex m;
  std::vector<StartOutcome> outcomes;
  const auto record = [&](const StartOutcome& outcome) {
    std::lock_guard lock(m);
    outcomes.push_back(outcome);
  };
  app.start(record);            // waits from before the stop
  ASSERT_TRUE(eventually([&] {  // listening (so ignoring TERM), not yet ready
    auto lines = app.lastLines(5);
    return !lines.empty() && lines.back().starts_with("listening on");
  }));
  std::thread stopper([&] { app.stop(); });
  std::this_thread::sleep_for(150ms);  // the supervisor is stopping the child (TERM ignored)
  app.start(record);                   // a request meanwhile
  stopper.join();
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(m);
    return outcomes.size() == 2;
  }));
  for (const auto& outcome : outcomes) EXPECT_TRUE(outcome.ready) << outcome.error;
  EXPECT_EQ(app.state(), AppState::Running);
  EXPECT_EQ(app.starts(), 2);
}

// A stop that comes while the readiness probe is being answered: the app is not handed out
// as ready (its port would be cut off a moment later); the waiter hears it was superseded.
TEST_F(Supervisor, ReadyAsAStopComesIsNotHandedOut) {
  auto s = spec();
  s.readiness_path = "/slow-ready";  // answers 200 after 600 ms
  AppProcess app(s);
  std::promise<StartOutcome> answered;
  app.start([&](const StartOutcome& outcome) { answered.set_value(outcome); });
  ASSERT_TRUE(eventually([&] {  // listening: the probe is waiting for its slow answer
    auto lines = app.lastLines(5);
    return !lines.empty() && lines.back().starts_with("listening on");
  }));
  std::this_thread::sleep_for(100ms);
  app.stop();
  const StartOutcome outcome = answered.get_future().get();
  EXPECT_FALSE(outcome.ready);
  EXPECT_TRUE(outcome.superseded);
  EXPECT_EQ(app.state(), AppState::Stopped);
}

TEST_F(Supervisor, DestructorStopsARunningApp) {
  std::uint16_t port;
  {
    AppProcess app(spec());
    auto outcome = app.startAndWait();
    ASSERT_TRUE(outcome.ready);
    port = outcome.port;
  }
  EXPECT_FALSE(acceptsConnections(port));
}

TEST_F(Supervisor, BubblewrapShowsOnlySystemFilesAndTheRelease) {
  if (!toolOnPath("bwrap")) GTEST_SKIP() << "bubblewrap is not installed (scripts/install-deps.sh)";
  auto s = spec();
  s.sandbox = SandboxOptions{};
  AppProcess app(s);
  auto outcome = app.startAndWait();
  ASSERT_TRUE(outcome.ready) << outcome.error << " / "
                             << (outcome.last_lines.empty() ? "" : outcome.last_lines.back());
  const auto root = nlohmann::json::parse(httpGet(outcome.port, "/ls"));
  std::set<std::string> names(root.begin(), root.end());
  EXPECT_TRUE(names.contains("usr"));
  EXPECT_TRUE(names.contains("tmp"));
  EXPECT_FALSE(names.contains("root"));
  EXPECT_FALSE(names.contains("work"));
  EXPECT_FALSE(names.contains("home"));
  const auto env = nlohmann::json::parse(httpGet(outcome.port, "/env"));
  EXPECT_EQ(env["cwd"], dir_.string());
}

TEST_F(Supervisor, ProjectAppsLogsStopsIdleAndReplacesOnANewRelease) {
  LogBuffer logs;
  ProjectApps apps(logs);
  std::atomic<int> answered{0};
  std::uint16_t port = 0;
  apps.start("p1", spec(), [&](const StartOutcome& o) {
    port = o.port;
    ++answered;
  });
  ASSERT_TRUE(eventually([&] { return answered == 1; }));
  ASSERT_NE(port, 0);
  EXPECT_EQ(apps.state("p1"), AppState::Running);
  EXPECT_EQ(apps.state("other"), std::nullopt);

  // Its output and the supervisor's events reach the log buffer as process/platform entries.
  std::vector<LogEntry> seen;
  ASSERT_TRUE(eventually([&] {
    auto taken = logs.take();  // kept: ranging over a temporary's member would dangle
    for (auto& e : taken["p1"]) seen.push_back(e);
    return std::any_of(seen.begin(), seen.end(), [](const LogEntry& e) {
      return e.kind == "process" && e.message.starts_with("listening on ");
    });
  }));
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(), [](const LogEntry& e) {
    return e.kind == "platform" && e.message.starts_with("started node");
  }));

  // Stopped (as when idle): the port closes, and the next request starts it again. The port
  // is not given to another app for a while (the edge may still send requests to it).
  apps.find("p1")->stop();
  EXPECT_TRUE(portQuarantine().held(port));
  EXPECT_EQ(apps.state("p1"), AppState::Stopped);
  EXPECT_FALSE(acceptsConnections(port));
  apps.start("p1", spec(), [&](const StartOutcome&) { ++answered; });
  ASSERT_TRUE(eventually([&] { return answered == 2; }));
  EXPECT_EQ(apps.state("p1"), AppState::Running);
  EXPECT_EQ(apps.find("p1")->starts(), 2);

  // A different command (a new live release) replaces the process.
  const std::uint16_t before = apps.find("p1")->port();
  apps.start("p1", spec({"node", "server.js", "--v2"}), [&](const StartOutcome&) { ++answered; });
  ASSERT_TRUE(eventually([&] { return answered == 3; }));
  EXPECT_EQ(apps.find("p1")->starts(), 1) << "a new AppProcess";
  EXPECT_FALSE(acceptsConnections(before));
  apps.stop("p1");
  EXPECT_EQ(apps.state("p1"), std::nullopt);
}

// A stop() met by a start() from another thread (a secret's restart while a request wakes the
// app, two restarts at once) returns: it used to wait for a Stopped state that the start
// replaced at once or never let come, holding its thread (a server thread, the idle job) for
// good.
TEST_F(Supervisor, StopReturnsWhenAStartComesMeanwhile) {
  AppProcess app(spec());
  for (int round = 0; round < 10; ++round) {
    ASSERT_TRUE(app.startAndWait().ready) << "round " << round;
    std::atomic<bool> stopped{false};
    std::thread stopper([&] {
      app.stop();
      stopped = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 3));  // while it stops
    app.start([](const StartOutcome&) {});
    EXPECT_TRUE(eventually([&] { return stopped.load(); }))
        << "stop() still waiting in round " << round;
    if (!stopped) {
      app.stop();  // lets the stuck one go (the next stop completes), so the test can end
      stopper.join();
      return;
    }
    stopper.join();
  }
}

// A new release's app started by a request that read the release before its liveChanged is
// kept by that announcement's stopOtherThan: the request it holds gets its answer.
TEST_F(Supervisor, ProjectAppsKeepsTheAppOfTheReleaseMadeLive) {
  LogBuffer logs;
  ProjectApps apps(logs);
  std::atomic<int> answered{0};
  StartOutcome outcome;
  apps.start("p1", spec(), [&](const StartOutcome& o) {
    outcome = o;
    ++answered;
  });
  apps.stopOtherThan("p1", dir_.string());  // while it starts: the same release
  ASSERT_TRUE(eventually([&] { return answered == 1; }));
  EXPECT_TRUE(outcome.ready) << outcome.error;
  EXPECT_EQ(apps.state("p1"), AppState::Running);

  const std::uint16_t port = apps.find("p1")->port();
  apps.stopOtherThan("p1", (dir_ / "another-release").string());
  EXPECT_EQ(apps.state("p1"), std::nullopt);
  EXPECT_FALSE(acceptsConnections(port));
}

}  // namespace
