#include "jobs/job_runner.hpp"

#include <gtest/gtest.h>

#include <thread>

using namespace berth::core;

namespace {
bool waitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 500; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}
}  // namespace

TEST(JobRunner, RunsPeriodicallyAndSurvivesThrowingJobs) {
  JobRunner runner(2);
  std::atomic<int> ticks{0};
  JobDecl ok{"t.ok", std::chrono::milliseconds(10), true,
             [&](const std::atomic<bool>&) { ticks++; }};
  JobDecl bad{"t.bad", std::chrono::milliseconds(10), true,
              [](const std::atomic<bool>&) { throw std::runtime_error("boom"); }};
  runner.start({ok, bad});
  EXPECT_TRUE(waitFor([&] { return ticks.load() >= 3 && runner.runs("t.bad") >= 3; }));
  runner.stop();
  int after = ticks.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ticks.load(), after) << "a job ran after stop()";
}

TEST(JobRunner, AJobNeverOverlapsItself) {
  JobRunner runner(4);
  std::atomic<int> inside{0}, max_inside{0}, runs{0};
  JobDecl slow{"t.slow", std::chrono::milliseconds(1), true, [&](const std::atomic<bool>&) {
                 int now = ++inside;
                 max_inside = std::max(max_inside.load(), now);
                 std::this_thread::sleep_for(std::chrono::milliseconds(5));
                 --inside;
                 ++runs;
               }};
  runner.start({slow});
  EXPECT_TRUE(waitFor([&] { return runs.load() >= 5; }));
  runner.stop();
  EXPECT_EQ(max_inside.load(), 1);
}

TEST(JobRunner, StopAsksRunningJobsToStopAndJoins) {
  JobRunner runner(1);
  std::atomic<bool> started{false}, saw_stop{false};
  JobDecl loop{"t.loop", std::chrono::milliseconds(1), true, [&](const std::atomic<bool>& stop) {
                 started = true;
                 while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                 saw_stop = true;
               }};
  runner.start({loop});
  ASSERT_TRUE(waitFor([&] { return started.load(); }));
  runner.stop();
  EXPECT_TRUE(saw_stop.load());
}
