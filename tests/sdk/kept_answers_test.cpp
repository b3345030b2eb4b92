// ctest-label: api (starts a real berthd)
// <berth/kept_answers.hpp> against a real PostgreSQL: answers are kept only while listening,
// a notification drops the key it names (or everything for "*"), getMany reads only the keys it
// lacks and in one call, a read that raced with a change keeps nothing, and a lost listening
// connection keeps nothing until it is back.
#include <gtest/gtest.h>
#include <berth/kept_answers.hpp>

#include "db/pool.hpp"
#include "support/pg_cluster.hpp"

using berth::KeptAnswers;
using berth::testing::sharedCluster;

namespace {

constexpr const char* kChannel = "kept_answers_test";

class KeptAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = sharedCluster().createDatabase("kept");
    db_ = std::make_unique<berth::core::Pool>(url_, 1, std::chrono::seconds(10));
  }

  // Starts listening and waits until it does.
  void listen() {
    kept_.start(url_, berth::Logger(), "not listening");
    ASSERT_TRUE(until([&] { return kept_.listening(); }));
  }
  void notify(const std::string& payload) {
    db_->exec("SELECT pg_notify($1, $2)", {std::string(kChannel), payload});
  }
  static bool until(const std::function<bool()>& pred,
                    std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }
  // get(key) that counts the reads it makes, answering "<key>#<read number>".
  std::string get(const std::string& key) {
    return kept_.get(key, [&] { return key + "#" + std::to_string(++reads_); });
  }

  std::string url_;
  std::unique_ptr<berth::core::Pool> db_;
  KeptAnswers<std::string> kept_{kChannel};
  int reads_ = 0;
};

TEST_F(KeptAnswersTest, NothingIsKeptBeforeListening) {
  EXPECT_EQ(get("a"), "a#1");
  EXPECT_EQ(get("a"), "a#2");
  EXPECT_FALSE(kept_.kept("a"));
}

TEST_F(KeptAnswersTest, ANotificationDropsTheKeyItNamesOrEverything) {
  listen();
  EXPECT_EQ(get("a"), "a#1");
  EXPECT_EQ(get("b"), "b#2");
  EXPECT_EQ(get("a"), "a#1") << "kept";
  EXPECT_EQ(kept_.kept("b"), "b#2");

  notify("a");
  ASSERT_TRUE(until([&] { return !kept_.kept("a"); })) << "a dropped";
  EXPECT_EQ(kept_.kept("b"), "b#2") << "b kept";
  EXPECT_EQ(get("a"), "a#3");

  notify("*");
  ASSERT_TRUE(until([&] { return !kept_.kept("a") && !kept_.kept("b"); }));
  EXPECT_EQ(get("b"), "b#4");
  notify("");
  ASSERT_TRUE(until([&] { return !kept_.kept("b"); })) << "an empty payload drops everything";
  EXPECT_EQ(get("b"), "b#5");
}

TEST_F(KeptAnswersTest, GetManyReadsOnlyWhatItLacksInOneCall) {
  listen();
  get("a");
  std::vector<std::vector<std::string>> calls;
  auto load = [&](const std::vector<std::string>& missing) {
    calls.push_back(missing);
    std::map<std::string, std::string> out;
    for (const auto& key : missing)
      if (key != "none") out[key] = key + "!";
    return out;
  };
  auto answers = kept_.getMany({"a", "b", "c", "none"}, load);
  EXPECT_EQ(answers, (std::map<std::string, std::string>{
                         {"a", "a#1"}, {"b", "b!"}, {"c", "c!"}, {"none", ""}}));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"b", "c", "none"}));
  kept_.getMany({"a", "b", "c", "none"}, load);
  EXPECT_EQ(calls.size(), 1u) << "a key the load left out is kept as Value{}";
}

TEST_F(KeptAnswersTest, AReadThatRacedWithAChangeKeepsNothing) {
  listen();
  std::string answer = kept_.get("a", [&] {
    kept_.changed("other");  // a change lands while the read is under way
    return std::string("old");
  });
  EXPECT_EQ(answer, "old");
  EXPECT_FALSE(kept_.kept("a")) << "it may predate the change";
  EXPECT_EQ(get("a"), "a#1");
  EXPECT_EQ(get("a"), "a#1") << "the next read is kept";
  kept_.changed("a");
  EXPECT_EQ(get("a"), "a#2") << "changed() drops at once";
}

TEST_F(KeptAnswersTest, NothingIsKeptWhileTheListeningConnectionIsLost) {
  listen();
  get("a");
  ASSERT_EQ(kept_.kept("a"), "a#1");
  db_->exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
      "'berth listen kept_answers_test'");
  ASSERT_TRUE(until([&] { return !kept_.listening(); }));
  EXPECT_FALSE(kept_.kept("a")) << "dropped with the connection";
  ASSERT_TRUE(until([&] { return kept_.listening(); })) << "it listens again";
  EXPECT_FALSE(kept_.kept("a"));
  EXPECT_EQ(get("a"), "a#2");
  EXPECT_EQ(get("a"), "a#2");
}

}  // namespace
