// ctest-label: e2e
// berthd killed (SIGKILL) or stopped (SIGSTOP, longer than a scheduler minute) at a random point
// of a schedule's run: the run's request has reached the project's app, which answers only
// after 1.5 s. After the restart (or SIGCONT): each minute's run is recorded at most once (no
// due_at twice in the history, no run replayed), nothing is left half-recorded (the list's
// last_* is a run of the history, or null), the schedule still has its next run, and the next
// runs fire and are recorded. Every route answers after each round. The scheduler runs on its
// test clock (a minute lasts 400 ms) with the scheduler tests' little HTTP app as the target.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "faults/fault_cases_support.hpp"
#include "scheduler/api_support.hpp"
#include "scheduler/test_app.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;
using namespace berth::testing::scheduler_api;
using berth::testing::scheduler::TestApp;
using nlohmann::json;

namespace {

constexpr int kRunMs = 1500;  // how long the target takes to answer
constexpr int64_t kMinuteMs = 400;

// The scheduler's test clock: 60000 / minute_ms times faster than the wall clock, counted from
// 2026-01-01T00:00:00Z (plugins/scheduler/README.md, "The test clock"), in seconds.
int64_t schedulerNow() {
  constexpr int64_t kAnchor = 1767225600;
  const int64_t wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  return kAnchor + (wall_ms - kAnchor * 1000) * (60000 / kMinuteMs) / 1000;
}

class ScheduleRunFaults : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    app = std::make_unique<TestApp>(32);
    BerthdOptions options;
    options.plugins = {"projects", "scheduler", "schedtarget"};
    options.extra_yaml = secretsKeyYaml() +
                         "scheduler:\n  minute_ms: " + std::to_string(kMinuteMs) +
                         "\n  run_timeout_seconds: 10\n"
                         "schedtarget:\n  port: " +
                         std::to_string(app->port()) + "\n";
    server = std::make_unique<BerthdProcess>(options);
    server->start();
    owner = makeAccount(*server, GetParam() == Mode::Kill ? "schkill" : "schstop");
    mustCreate(api(), "cron");
    project = projectName("cron", owner.slug);
    id =
        mustSchedule(api(), project, "slow", "* * * * *", "/sleep/" + std::to_string(kRunMs))["id"];
  }
  void TearDown() override {
    if (server) stopCleanly(*server);
    server.reset();
    app.reset();
  }
  ApiClient api() const { return server->api(owner.token); }

  // What is wrong with the schedule's history and its list entry; empty when nothing is.
  std::string inconsistencies(const json& runs, const json& listed) const {
    std::string wrong;
    std::map<int64_t, int> per_minute;
    for (const auto& run : runs) ++per_minute[run.at("due_at").get<int64_t>()];
    for (const auto& [due_at, count] : per_minute)
      if (count > 1)
        wrong += "the run due at " + std::to_string(due_at) + " is recorded " +
                 std::to_string(count) + " times\n";
    if (!listed.is_object()) return wrong + "the schedule is not listed\n";
    if (listed["next_run_at"].is_null()) wrong += "the schedule has no next run\n";
    if (!listed["last_run_at"].is_null()) {
      bool found = false;
      for (const auto& run : runs) found = found || run["at"] == listed["last_run_at"];
      if (!found) wrong += "last_run_at is no run of the history: " + listed.dump() + "\n";
    } else if (!runs.empty()) {
      wrong += "runs are recorded but last_run_at is null\n";
    }
    return wrong;
  }

  std::unique_ptr<TestApp> app;
  std::unique_ptr<BerthdProcess> server;
  Account owner;
  std::string project, id;
};

TEST_P(ScheduleRunFaults, EachRunIsRecordedOnceAndTheNextOnesFire) {
  const Mode mode = GetParam();
  FaultPlan plan("schedule-run", mode);
  FaultTally tally("schedule-run", mode);
  for (int round = 1; round <= plan.rounds(); ++round) {
    // Wait for a run's request to reach the app, then strike while it is answered.
    const size_t hits_before = app->hitsOf(id).size();
    ASSERT_TRUE(
        eventually([&] { return app->hitsOf(id).size() > hits_before; }, std::chrono::seconds(20)))
        << "round " << round << ": no run reached the app";
    const auto kill_at = plan.delay(kRunMs - 100);
    std::this_thread::sleep_for(kill_at);
    strikeBerthd(*server, mode);

    // The next runs fire and are recorded: two successes due after berthd is back.
    const int64_t back_at = schedulerNow();
    json runs;
    bool fired = eventually(
        [&] {
          runs = runsOf(api(), project, id);
          int fresh_ok = 0;
          for (const auto& run : runs)
            if (run["due_at"].get<int64_t>() >= back_at && run["status"] == 200) ++fresh_ok;
          return fresh_ok >= 2;
        },
        std::chrono::seconds(30));
    EXPECT_TRUE(fired) << "round " << round << " (" << modeName(mode) << " at " << kill_at.count()
                       << " ms): no new runs after the fault: " << runs.dump();
    const std::string wrong =
        inconsistencies(runsOf(api(), project, id), listed(api(), project, id));
    EXPECT_EQ(wrong, "") << "round " << round << " (" << modeName(mode) << " at " << kill_at.count()
                         << " ms)";
    const std::string failing =
        routesAnswer(*server, owner.token, {project}) + leftovers(server->dataDir());
    EXPECT_EQ(failing, "") << "round " << round;
    recordPoint(tally, (fired ? "" : "no new runs after the fault\n") + wrong + failing,
                "round " + std::to_string(round) + " at " + std::to_string(kill_at.count()) +
                    " ms of the run");
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ScheduleRunFaults, ::testing::Values(Mode::Kill, Mode::Stop),
                         [](const auto& info) { return std::string(modeName(info.param)); });

}  // namespace
