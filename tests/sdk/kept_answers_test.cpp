// <berth/util/kept_answers.hpp> and <berth/pg_notify.hpp> through the SDK's fake host, which fires
// the core's "pg." events as berthd's listener does: answers are kept only while the core
// listens, a notification drops the key it names (or everything for "*" or nothing), getMany
// reads only the keys it lacks and in one call, a read that raced with a change keeps nothing,
// and a lost listening connection keeps nothing until it is back. The real listener, against a
// real PostgreSQL, is tests/core/api_pg_notify_test.
#include <gtest/gtest.h>
#include <berth/plugin.hpp>
#include <berth/testing/fake_host.hpp>
#include <berth/util/kept_answers.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

using berth::KeptAnswers;
using berth::testing::FakeHost;
using nlohmann::json;

namespace {

constexpr const char* kChannel = "kept_answers_test";

// Keeps answers of its own, and others in an object made in start() (as storage and the
// runtime keep theirs in a store).
class KeepingPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    kept.listen(r);
    KeptAnswers<std::string>::listen(r, "late_channel", [this] { return late.get(); });
  }
  void start(berth::Services&) override {
    late = std::make_unique<KeptAnswers<std::string>>("late_channel");
  }

  KeptAnswers<std::string> kept{kChannel};
  std::unique_ptr<KeptAnswers<std::string>> late;
};

class KeptAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plugin_ = &host_.load<KeepingPlugin>();
    host_.start();
  }

  // The core's listener connected (again).
  void listen() {
    host_.fireHook("pg.listening", {{"channels", {kChannel, "late_channel"}}});
    ASSERT_TRUE(kept().listening());
  }
  void notify(const std::string& payload, const std::string& channel = kChannel) {
    host_.fireHook("pg.notify:" + channel, {{"channel", channel}, {"payload", payload}});
  }
  KeptAnswers<std::string>& kept() { return plugin_->kept; }
  // get(key) that counts the reads it makes, answering "<key>#<read number>".
  std::string get(const std::string& key) {
    return kept().get(key, [&] { return key + "#" + std::to_string(++reads_); });
  }

  FakeHost host_;
  KeepingPlugin* plugin_ = nullptr;
  int reads_ = 0;
};

TEST_F(KeptAnswersTest, NothingIsKeptBeforeListening) {
  EXPECT_EQ(get("a"), "a#1");
  EXPECT_EQ(get("a"), "a#2");
  EXPECT_FALSE(kept().kept("a"));
}

TEST_F(KeptAnswersTest, ANotificationDropsTheKeyItNamesOrEverything) {
  listen();
  EXPECT_EQ(get("a"), "a#1");
  EXPECT_EQ(get("b"), "b#2");
  EXPECT_EQ(get("a"), "a#1") << "kept";
  EXPECT_EQ(kept().kept("b"), "b#2");

  notify("a");
  EXPECT_FALSE(kept().kept("a")) << "a dropped";
  EXPECT_EQ(kept().kept("b"), "b#2") << "b kept";
  EXPECT_EQ(get("a"), "a#3");

  notify("*");
  EXPECT_TRUE(!kept().kept("a") && !kept().kept("b"));
  EXPECT_EQ(get("b"), "b#4");
  notify("");
  EXPECT_FALSE(kept().kept("b")) << "an empty payload drops everything";
  EXPECT_EQ(get("b"), "b#5");
  host_.fireHook("pg.notify:" + std::string(kChannel), {{"channel", kChannel}});
  EXPECT_FALSE(kept().kept("b")) << "so does a notification without a payload";
}

TEST_F(KeptAnswersTest, OnlyItsOwnChannelReachesIt) {
  listen();
  get("a");
  notify("a", "late_channel");
  EXPECT_EQ(kept().kept("a"), "a#1");
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
  auto answers = kept().getMany({"a", "b", "c", "none"}, load);
  EXPECT_EQ(answers, (std::map<std::string, std::string>{
                         {"a", "a#1"}, {"b", "b!"}, {"c", "c!"}, {"none", ""}}));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"b", "c", "none"}));
  kept().getMany({"a", "b", "c", "none"}, load);
  EXPECT_EQ(calls.size(), 1u) << "a key the load left out is kept as Value{}";
}

TEST_F(KeptAnswersTest, AReadThatRacedWithAChangeKeepsNothing) {
  listen();
  std::string answer = kept().get("a", [&] {
    kept().changed("other");  // a change lands while the read is under way
    return std::string("old");
  });
  EXPECT_EQ(answer, "old");
  EXPECT_FALSE(kept().kept("a")) << "it may predate the change";
  EXPECT_EQ(get("a"), "a#1");
  EXPECT_EQ(get("a"), "a#1") << "the next read is kept";
  kept().changed("a");
  EXPECT_EQ(get("a"), "a#2") << "changed() drops at once";
}

TEST_F(KeptAnswersTest, NothingIsKeptWhileTheListeningConnectionIsLost) {
  listen();
  get("a");
  ASSERT_EQ(kept().kept("a"), "a#1");
  host_.fireHook("pg.not_listening", json::object());
  EXPECT_FALSE(kept().listening());
  EXPECT_FALSE(kept().kept("a")) << "dropped with the connection";
  EXPECT_EQ(get("a"), "a#2");
  EXPECT_FALSE(kept().kept("a")) << "nothing kept meanwhile";
  listen();
  EXPECT_FALSE(kept().kept("a"));
  EXPECT_EQ(get("a"), "a#3");
  EXPECT_EQ(get("a"), "a#3");
}

TEST_F(KeptAnswersTest, AnswersKeptByAnObjectMadeInStartHearThroughTheirFinder) {
  KeptAnswers<std::string>& late = *plugin_->late;
  listen();
  EXPECT_TRUE(late.listening());
  late.get("x", [] { return std::string("x#1"); });
  notify("x", "late_channel");
  EXPECT_FALSE(late.kept("x"));
  late.get("x", [] { return std::string("x#2"); });
  host_.fireHook("pg.not_listening", json::object());
  EXPECT_FALSE(late.listening());
  EXPECT_FALSE(late.kept("x"));
}

// Hooks on a channel the core could not LISTEN on would wait for nothing.
class BadChannelPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override { berth::listenTo(r, "Bad-Channel", {}); }
};

TEST(PgNotify, AChannelMustBeALowerCaseIdentifier) {
  EXPECT_TRUE(berth::isPgChannel("berth_projects"));
  EXPECT_TRUE(berth::isPgChannel("_a1"));
  EXPECT_FALSE(berth::isPgChannel(""));
  EXPECT_FALSE(berth::isPgChannel("1a"));
  EXPECT_FALSE(berth::isPgChannel("Berth"));
  EXPECT_FALSE(berth::isPgChannel("a;b"));
  EXPECT_FALSE(berth::isPgChannel(std::string(64, 'a')));
  EXPECT_TRUE(berth::isPgChannel(std::string(63, 'a')));
  FakeHost host;
  EXPECT_THROW(host.load<BadChannelPlugin>(), std::runtime_error);
}

}  // namespace
