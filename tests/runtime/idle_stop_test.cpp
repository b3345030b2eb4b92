// Scale to zero's decisions (IdleStop), on a clock the test moves.
#include "idle_stop.hpp"

#include <gtest/gtest.h>

using berth::runtime::IdleStop;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

namespace {

// Rounds every second from t0, as the job runs them.
struct Rounds {
  IdleStop idle;
  IdleStop::Clock::time_point now = IdleStop::Clock::now();
  IdleStop::Round next(const std::set<std::string>& published = {},
                       std::chrono::milliseconds step = 1000ms) {
    now += step;
    return idle.round(published, 900s, now);
  }
};

}  // namespace

TEST(IdleStop, StopsAProjectWithoutRequestsOnceWhenItsTrafficIsNotDirect) {
  Rounds r;
  r.idle.touch("a", r.now);
  r.idle.touch("b", r.now);
  for (int i = 0; i < 599; ++i) r.next();
  r.idle.touch("b", r.now);
  r.idle.touch("b", r.now - 100s);  // a late report never moves the time back
  for (int i = 0; i < 300; ++i) EXPECT_TRUE(r.next().stop.empty()) << "round " << i;
  EXPECT_EQ(r.next().stop, Strings{"a"});  // 900 s
  EXPECT_TRUE(r.next().stop.empty()) << "a is stopped once";
  IdleStop::Round round;
  for (int i = 0; i < 600 && round.stop.empty(); ++i) round = r.next();
  EXPECT_EQ(round.stop, Strings{"b"});
  r.idle.touch("c", r.now);
  r.idle.forget("c");
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(r.next().stop.empty());
}

TEST(IdleStop, DirectTrafficIsTakenBackFirstAndStoppedOnlyIfNothingCameMeanwhile) {
  Rounds r;
  const std::set<std::string> published{"a", "b"};
  r.idle.touch("a", r.now);
  r.idle.touch("b", r.now);
  IdleStop::Round round;
  for (int i = 0; i < 900; ++i) round = r.next(published);
  EXPECT_EQ(round.unpublish, (Strings{"a", "b"}));
  EXPECT_TRUE(round.stop.empty());
  // b has a request before the edge has reloaded: its rule comes back, it keeps running.
  r.idle.touch("b", r.now + 200ms);
  round = r.next(published);
  EXPECT_EQ(round.republish, Strings{"b"});
  EXPECT_TRUE(round.stop.empty()) << "1 s: the edge may not have reloaded yet";
  round = r.next(published);
  EXPECT_EQ(round.stop, Strings{"a"});
  EXPECT_TRUE(round.republish.empty());
  for (int i = 0; i < 890; ++i) EXPECT_TRUE(r.next(published).unpublish.empty());
}

TEST(IdleStop, TimeBerthdWasStalledIsNotIdleTime) {
  Rounds r;
  const std::set<std::string> published{"a"};
  r.idle.touch("a", r.now);
  for (int i = 0; i < 890; ++i) r.next(published);
  // Stalled for 30 s (the access log of those 30 s is unread): the round after decides
  // nothing, and the clock of every project moves on by the stall.
  IdleStop::Round round = r.next(published, 31s);
  EXPECT_TRUE(round.unpublish.empty() && round.stop.empty());
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(r.next(published).unpublish.empty()) << i;
  EXPECT_EQ(r.next(published).unpublish, Strings{"a"});
  // Stalled while its rule was going: no stop on a round that could not read the log; the
  // next one has read it (here, nothing came).
  round = r.next(published, 5s);
  EXPECT_TRUE(round.stop.empty() && round.republish.empty());
  EXPECT_EQ(r.next(published).stop, Strings{"a"});
}

TEST(IdleStop, AnOrdinaryLateRoundIsNoStall) {
  Rounds r;
  r.idle.touch("a", r.now);
  for (int i = 0; i < 899; ++i) r.next({}, i % 2 ? 1300ms : 700ms);
  EXPECT_EQ(r.next({}, 1300ms).stop, Strings{"a"});
}
