// takeCreationToken through the path it takes in berthd: berth::Db over the core's host table
// and connection pool, on a real database. Time is moved by moving updated_at back, never by
// sleeping.
#include "creation_throttle.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "db/pool.hpp"
#include "plugin/host_api.hpp"
#include "plugin/plugin_state.hpp"
#include "support/pg_cluster.hpp"

namespace berth::projects {
namespace {

using namespace std::chrono_literals;

// The statements below run on an otherwise fresh bucket in well under a refill period (5 s);
// tests whose outcome must not depend on that use this one.
constexpr double kHour = 3600.0;

class CreationThrottleTest : public ::testing::Test {
 protected:
  CreationThrottleTest()
      : pool(berth::testing::sharedCluster().createDatabase("throttle"), 4, 30s),
        manager(core::CoreParts{nullptr, &pool, nullptr, {}}),
        db(berth::HostRef{&manager.adopt(library("projects")), &core::hostApi()}) {
    // As the plugin's migration makes it.
    pool.exec("CREATE SCHEMA projects");
    pool.exec(
        "CREATE TABLE projects.creation_throttle (account_id text PRIMARY KEY,"
        " tokens double precision NOT NULL, updated_at double precision NOT NULL)");
  }

  static core::PluginLibrary library(const std::string& id) {
    core::PluginLibrary library;
    library.id = id;
    return library;
  }

  // Takes tokens until one is refused (at most `limit` tries); returns how many were allowed
  // and the refusal.
  std::pair<int, ThrottleDecision> drain(const std::string& account, int limit = 100,
                                         double refill = 5.0) {
    for (int allowed = 0; allowed < limit; ++allowed) {
      ThrottleDecision decision = takeCreationToken(db, account, 8, refill);
      if (!decision.allowed) return {allowed, decision};
    }
    return {limit, ThrottleDecision{}};
  }

  void moveBack(const std::string& account, int seconds) {
    core::PgResult result = pool.exec(
        "UPDATE projects.creation_throttle SET updated_at = updated_at - $2 WHERE account_id = $1",
        {account, std::to_string(seconds)});
    ASSERT_EQ(result.affected(), 1);
  }

  core::Pool pool;
  core::PluginManager::Impl manager;
  berth::Db db;
};

TEST_F(CreationThrottleTest, EightAreAllowedThenRefusedWithARetryAfter) {
  auto [allowed, refusal] = drain("acc_a");
  EXPECT_EQ(allowed, 8);
  EXPECT_FALSE(refusal.allowed);
  EXPECT_GE(refusal.retry_after_seconds, 1);
  EXPECT_LE(refusal.retry_after_seconds, 5);

  // Refusing takes nothing: asking again is refused the same way, not pushed further back.
  ThrottleDecision again = takeCreationToken(db, "acc_a");
  EXPECT_FALSE(again.allowed);
  EXPECT_LE(again.retry_after_seconds, refusal.retry_after_seconds);
}

TEST_F(CreationThrottleTest, FirstUseIsAFullBucketLessOne) {
  EXPECT_TRUE(takeCreationToken(db, "acc_first", 8, kHour).allowed);
  EXPECT_EQ(pool.exec("SELECT tokens FROM projects.creation_throttle WHERE account_id = $1",
                      {std::string("acc_first")})
                .value(0, 0),
            "7");
}

TEST_F(CreationThrottleTest, ARefillPeriodLaterOneMoreIsAllowed) {
  EXPECT_EQ(drain("acc_b").first, 8);
  moveBack("acc_b", 5);
  EXPECT_TRUE(takeCreationToken(db, "acc_b").allowed);
}

TEST_F(CreationThrottleTest, AfterALongPauseTheBucketIsFullButNotFuller) {
  EXPECT_EQ(drain("acc_c", 100, kHour).first, 8);
  moveBack("acc_c", 40 * 3600);  // 40 refill periods for 8 tokens
  EXPECT_EQ(drain("acc_c", 100, kHour).first, 8);
}

TEST_F(CreationThrottleTest, ARetryAfterIsHonest) {
  auto [allowed, refusal] = drain("acc_d", 100, kHour);
  ASSERT_EQ(allowed, 8);
  ASSERT_GT(refusal.retry_after_seconds, 60);
  // Just short of the wait: still refused. The wait itself: allowed.
  moveBack("acc_d", refusal.retry_after_seconds - 60);
  EXPECT_FALSE(takeCreationToken(db, "acc_d", 8, kHour).allowed);
  moveBack("acc_d", 60);
  EXPECT_TRUE(takeCreationToken(db, "acc_d", 8, kHour).allowed);
}

TEST_F(CreationThrottleTest, ConcurrentCallsOnOneAccountTakeExactlyTheBurst) {
  std::atomic<int> allowed{0};
  std::atomic<int> failed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      while (!go) std::this_thread::yield();
      for (int i = 0; i < 5; ++i) {
        try {
          if (takeCreationToken(db, "acc_busy", 8, kHour).allowed) ++allowed;
        } catch (...) {
          ++failed;
        }
      }
    });
  }
  go = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(allowed, 8);
}

TEST_F(CreationThrottleTest, AccountsAreIndependent) {
  EXPECT_EQ(drain("acc_one", 100, kHour).first, 8);
  EXPECT_EQ(drain("acc_two", 100, kHour).first, 8);
  EXPECT_FALSE(takeCreationToken(db, "acc_one", 8, kHour).allowed);
}

TEST_F(CreationThrottleTest, RefusesANonsenseBucket) {
  EXPECT_THROW(takeCreationToken(db, "acc_x", 0, 5.0), std::invalid_argument);
  EXPECT_THROW(takeCreationToken(db, "acc_x", 8, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace berth::projects
