// ctest-label: api (starts a real berthd)
// The cron runner for real: berthd on a fast test clock (a scheduler minute lasts 400 ms) and a
// one-second run time limit, its schedules requesting a little HTTP app through the edge and
// the schedtarget fixture (standing in for the runtime's gateway). What a run records for
// 2xx/3xx, 4xx/5xx, a run past the limit and a refused connection; the error cleared by a
// success; the history of 50; paused schedules not running; missed runs not replayed; and two
// berthd on one database making each run once.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "api_support.hpp"
#include "scheduler/test_app.hpp"
#include "scheduler_clock.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::scheduler_api;
using berth::testing::scheduler::TestApp;
using nlohmann::json;

namespace {

constexpr int64_t kMinuteMs = 400;
const std::string kAbandoned = "the job did not finish within five minutes";

std::string runnerYaml(uint16_t app_port, const std::string& extra = "") {
  return "scheduler:\n  minute_ms: " + std::to_string(kMinuteMs) + "\n  run_timeout_seconds: 1\n" +
         extra + "schedtarget:\n  port: " + std::to_string(app_port) + "\n";
}

class Runner : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    app = new TestApp(48);
    BerthdOptions options;
    options.plugins = {"projects", "scheduler", "schedtarget"};
    options.extra_yaml = runnerYaml(app->port());
    startServer(options);
  }
  static void TearDownTestSuite() {
    stopServer();
    delete app;
    app = nullptr;
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }

  // Waits until the schedule's list entry satisfies pred; returns it (fails the test if not).
  template <class Pred>
  static json waitFor(const ApiClient& api, const std::string& project, const std::string& id,
                      Pred pred, const std::string& what) {
    json found;
    bool ok = eventually(
        [&] {
          found = listed(api, project, id);
          return found.is_object() && pred(found);
        },
        std::chrono::seconds(30));
    EXPECT_TRUE(ok) << what << ": " << found.dump();
    return found;
  }

  static void pause(const ApiClient& api, const std::string& project, const std::string& id) {
    EXPECT_EQ(api.patch("/projects/" + project + "/schedules/" + id, {{"enabled", false}}).status,
              204);
  }

  static inline TestApp* app = nullptr;
};

bool ran(const json& s) {
  return !s["last_run_at"].is_null();
}

}  // namespace

TEST_F(Runner, EachAnswerIsRecordedInTheSpecsWords) {
  auto a = makeAccount(*server, "runans");
  std::string project = mustCreate(api(a), "site")["name"];
  struct Case {
    std::string path;
    json status, error;
  };
  const std::vector<Case> cases = {
      {"/ok?x=1&y=%20", 200, nullptr},
      {"/status/204", 204, nullptr},
      {"/status/302", 302, nullptr},
      {"/status/399", 399, nullptr},
      {"/status/400", 400, "the project answered 400"},
      {"/status/404", 404, "the project answered 404"},
      {"/status/500", 500, "the project answered 500"},
  };
  std::vector<std::string> ids;
  for (const auto& c : cases)
    ids.push_back(mustSchedule(api(a), project, c.path, "* * * * *", c.path)["id"]);
  for (size_t i = 0; i < cases.size(); ++i) {
    json s = waitFor(api(a), project, ids[i], ran, cases[i].path);
    pause(api(a), project, ids[i]);
    EXPECT_EQ(s["last_status"], cases[i].status) << s.dump();
    EXPECT_EQ(s["last_error"], cases[i].error) << s.dump();
    EXPECT_TRUE(s["last_ms"].is_number_integer() && s["last_ms"] >= 0) << s.dump();
    EXPECT_TRUE(s["last_run_at"].is_number_integer()) << s.dump();
  }
  // The request the app got: GET, the path with its query as written, the project's host, and
  // the schedule's id in x-berth-schedule.
  auto hits = app->hitsOf(ids[0]);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].method, "GET");
  EXPECT_EQ(hits[0].target, "/ok?x=1&y=%20");
  EXPECT_EQ(hits[0].host.rfind(project + ".localhost", 0), 0u) << hits[0].host;

  // The history says the same, newest first.
  json runs = runsOf(api(a), project, ids[6]);
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs[0]["status"], 500);
  EXPECT_EQ(runs[0]["error"], "the project answered 500");
  EXPECT_TRUE(runs[0]["due_at"].is_number_integer() && runs[0]["due_at"].get<int64_t>() % 60 == 0)
      << runs.dump();
  EXPECT_TRUE(runs[0]["at"].is_number_integer() && runs[0]["ms"].is_number_integer());
}

TEST_F(Runner, ARunPastTheTimeLimitIsAbandonedWithTheFixedText) {
  auto a = makeAccount(*server, "runslow");
  std::string project = mustCreate(api(a), "slow")["name"];
  std::string id = mustSchedule(api(a), project, "slow", "* * * * *", "/sleep/3000")["id"];
  json s = waitFor(api(a), project, id, ran, "a slow run");
  pause(api(a), project, id);
  EXPECT_EQ(s["last_error"], kAbandoned) << s.dump();
  EXPECT_TRUE(s["last_status"].is_null()) << s.dump();
  EXPECT_GE(s["last_ms"].get<int64_t>(), 900) << "abandoned at the one-second limit";
  EXPECT_FALSE(app->hitsOf(id).empty()) << "the request reached the app before it was abandoned";
}

TEST_F(Runner, ASuccessClearsTheError) {
  auto a = makeAccount(*server, "runflip");
  std::string project = mustCreate(api(a), "flip")["name"];
  app->setStatus("flip", 503);
  std::string id = mustSchedule(api(a), project, "flip", "* * * * *", "/switch/flip")["id"];
  json s = waitFor(
      api(a), project, id, [](const json& s) { return s["last_status"] == 503; }, "a failing run");
  EXPECT_EQ(s["last_error"], "the project answered 503");
  app->setStatus("flip", 200);
  s = waitFor(
      api(a), project, id, [](const json& s) { return s["last_status"] == 200; },
      "a run after the app recovered");
  pause(api(a), project, id);
  EXPECT_TRUE(s["last_error"].is_null()) << s.dump();
}

TEST_F(Runner, HistoryKeepsTheNewest50NewestFirst) {
  auto a = makeAccount(*server, "runhist");
  std::string project = mustCreate(api(a), "hist")["name"];
  std::string id = mustSchedule(api(a), project, "often", "* * * * *", "/ok")["id"];
  ASSERT_TRUE(eventually([&] { return runsOf(api(a), project, id).size() >= 3; },
                         std::chrono::seconds(30)));
  // Sixty older runs, as if the schedule had run for an hour.
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
  db.exec(
      "INSERT INTO scheduler.runs (schedule_id, seq, due_at, started_at, status, ms, error) "
      "SELECT $1, -g, 6000 - 60 * g, 6000 - 60 * g, 200, 1, NULL FROM generate_series(1, 60) g",
      {id});
  // The next recorded run trims the history to the newest 50: the real runs and the newest
  // of the old ones.
  ASSERT_TRUE(eventually(
      [&] {
        return column(db, "SELECT count(*) FROM scheduler.runs WHERE schedule_id = $1", {id})[0] ==
               "50";
      },
      std::chrono::seconds(30)));
  pause(api(a), project, id);
  json runs = runsOf(api(a), project, id);
  ASSERT_EQ(runs.size(), 50u);
  for (size_t i = 1; i < runs.size(); ++i)
    EXPECT_GE(runs[i - 1]["at"].get<int64_t>(), runs[i]["at"].get<int64_t>()) << i;
  // The oldest kept are the newest of the inserted ones (seq -1, -2, ...), none older.
  auto oldest_kept =
      column(db, "SELECT min(seq)::text FROM scheduler.runs WHERE schedule_id = $1", {id})[0];
  EXPECT_GT(std::stoll(oldest_kept), -60);
}

TEST_F(Runner, APausedScheduleDoesNotRun) {
  auto a = makeAccount(*server, "runpaused");
  std::string project = mustCreate(api(a), "paused")["name"];
  std::string quiet = mustSchedule(api(a), project, "quiet", "* * * * *", "/ok?quiet")["id"];
  std::string busy = mustSchedule(api(a), project, "busy", "* * * * *", "/ok?busy")["id"];
  ASSERT_TRUE(eventually([&] { return !app->hitsOf(quiet).empty(); }, std::chrono::seconds(30)));
  pause(api(a), project, quiet);
  size_t at_pause = app->hitsOf(quiet).size();
  size_t busy_at_pause = app->hitsOf(busy).size();
  // Three more minutes of the busy one; the quiet one gets at most a run claimed just before
  // the pause.
  ASSERT_TRUE(eventually([&] { return app->hitsOf(busy).size() >= busy_at_pause + 3; },
                         std::chrono::seconds(30)));
  pause(api(a), project, busy);
  EXPECT_LE(app->hitsOf(quiet).size(), at_pause + 1);

  // Resumed, it runs again.
  ASSERT_EQ(
      api(a).patch("/projects/" + project + "/schedules/" + quiet, {{"enabled", true}}).status,
      204);
  size_t at_resume = app->hitsOf(quiet).size();
  EXPECT_TRUE(
      eventually([&] { return app->hitsOf(quiet).size() > at_resume; }, std::chrono::seconds(30)));
  pause(api(a), project, quiet);
}

TEST_F(Runner, AMissedRunIsNotReplayed) {
  auto a = makeAccount(*server, "runmissed");
  std::string project = mustCreate(api(a), "missed")["name"];
  std::string id = mustSchedule(api(a), project, "yearly", "0 0 1 1 *", "/ok?yearly")["id"];
  // As if every node had been down for ten minutes across the run's minute.
  berth::scheduler::SchedulerClock clock(kMinuteMs);
  const int64_t missed = (clock.nowSeconds() / 60 - 10) * 60;
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
  db.exec("UPDATE scheduler.schedules SET next_run_at = $2 WHERE id = $1",
          {id, std::to_string(missed)});
  // A node moves it to the next first of January without making the run.
  ASSERT_TRUE(eventually(
      [&] {
        return std::stoll(column(db,
                                 "SELECT next_run_at::text FROM scheduler.schedules WHERE id = $1",
                                 {id})[0]) > missed;
      },
      std::chrono::seconds(30)));
  int64_t next = std::stoll(
      column(db, "SELECT next_run_at::text FROM scheduler.schedules WHERE id = $1", {id})[0]);
  EXPECT_EQ(next % 86400, 0);
  EXPECT_GT(next, clock.nowSeconds() - 60);
  EXPECT_TRUE(app->hitsOf(id).empty());
  EXPECT_EQ(runsOf(api(a), project, id), json::array());
  EXPECT_TRUE(listed(api(a), project, id)["last_run_at"].is_null());
}

TEST_F(Runner, TwoNodesOnOneDatabaseMakeEachRunOnce) {
  BerthdOptions options;
  options.plugins = {"projects", "scheduler", "schedtarget"};
  options.extra_yaml = runnerYaml(app->port());
  options.set = {"database.url=" + server->databaseUrl()};
  BerthdProcess second(options);
  second.start();

  auto a = makeAccount(*server, "runtwo");
  std::string project = mustCreate(api(a), "twice")["name"];
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i)
    ids.push_back(
        mustSchedule(api(a), project, "n" + std::to_string(i), "* * * * *", "/ok?node-test")["id"]);
  // Several minutes of runs, seen through the second node's API.
  ApiClient via_second = second.api(a.token);
  ASSERT_TRUE(eventually(
      [&] {
        for (const auto& id : ids)
          if (runsOf(via_second, project, id).size() < 5) return false;
        return true;
      },
      std::chrono::seconds(40)));
  for (const auto& id : ids) pause(api(a), project, id);
  // Runs in flight land in the app and then in the history.
  auto settled = [&] {
    for (const auto& id : ids)
      if (app->hitsOf(id).size() != runsOf(api(a), project, id).size()) return false;
    return true;
  };
  ASSERT_TRUE(eventually(settled, std::chrono::seconds(20)));

  size_t total = 0;
  for (const auto& id : ids) {
    json runs = runsOf(api(a), project, id);
    std::set<int64_t> minutes;
    for (const auto& r : runs) minutes.insert(r["due_at"].get<int64_t>());
    EXPECT_EQ(minutes.size(), runs.size()) << "a minute ran twice: " << runs.dump();
    EXPECT_EQ(app->hitsOf(id).size(), runs.size());
    total += runs.size();
  }
  // Which node made them: each logs its runs.
  auto logged = [&](const std::string& output) {
    size_t n = 0;
    for (const auto& id : ids)
      for (size_t at = output.find("schedule " + id + " GET"); at != std::string::npos;
           at = output.find("schedule " + id + " GET", at + 1))
        ++n;
    return n;
  };
  size_t by_first = logged(server->output()), by_second = logged(second.output());
  EXPECT_EQ(by_first + by_second, total);
  std::cout << "[ runs     ] " << total << " runs: " << by_first << " by the first node, "
            << by_second << " by the second\n";
  stopCleanly(second);
}

TEST(RunnerConnection, ARefusedConnectionRecordsItsText) {
  // A berthd whose runs go to a port where nothing listens.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int closed_port = ntohs(addr.sin_port);
  close(fd);

  BerthdOptions options;
  options.plugins = {"projects", "scheduler"};
  options.extra_yaml = "scheduler:\n  minute_ms: " + std::to_string(kMinuteMs) +
                       "\n  connect_to: \"127.0.0.1:" + std::to_string(closed_port) + "\"\n";
  BerthdProcess server(options);
  server.start();
  auto a = makeAccount(server, "runrefused");
  ApiClient api = server.api(a.token);
  std::string project = mustCreate(api, "refused")["name"];
  std::string id = mustSchedule(api, project, "r", "* * * * *", "/ok")["id"];
  json s;
  ASSERT_TRUE(eventually(
      [&] {
        s = listed(api, project, id);
        return !s["last_run_at"].is_null();
      },
      std::chrono::seconds(30)));
  EXPECT_TRUE(s["last_status"].is_null()) << s.dump();
  ASSERT_TRUE(s["last_error"].is_string()) << s.dump();
  // libcurl's own words.
  EXPECT_TRUE(std::regex_match(
      s["last_error"].get<std::string>(),
      std::regex("Failed to connect to 127\\.0\\.0\\.1 port " + std::to_string(closed_port) +
                 " after [0-9]+ ms: (Couldn't connect to server|Connection refused)")))
      << s.dump();
  stopCleanly(server);
}
