// <berth/util/lookup_cache.hpp>, the one read-through cache of the SDK (the storage plugin's blob
// lookups and berth::ProjectHostCache keep their entries in it): hits and remembered absences
// until a forget, expiry after the lifetime and never before, a reader that raced a change
// keeping nothing, the forgets, and the bound.
#include <gtest/gtest.h>
#include <berth/util/lookup_cache.hpp>

#include <chrono>
#include <optional>
#include <string>

using berth::LookupCache;

namespace {

using Absent = std::optional<std::string>;  // a value, or a remembered absence

TEST(LookupCache, RemembersHitsAndAbsencesUntilCleared) {
  LookupCache<Absent> cache(std::chrono::hours(1), 100);
  EXPECT_FALSE(cache.find("a"));  // a miss
  EXPECT_TRUE(cache.store("a", std::string("object-1"), cache.ticket()));
  EXPECT_TRUE(cache.store("gone", std::nullopt, cache.ticket()));
  auto hit = cache.find("a");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->value_or(""), "object-1");
  auto absent = cache.find("gone");
  ASSERT_TRUE(absent);  // a remembered absence is a hit too
  EXPECT_FALSE(*absent);
  cache.clear();
  EXPECT_FALSE(cache.find("a"));
  EXPECT_FALSE(cache.find("gone"));
}

TEST(LookupCache, AReaderThatRacedAChangeDoesNotStoreWhatItRead) {
  LookupCache<std::string> cache(std::chrono::hours(1), 100);
  for (int forget = 0; forget < 3; ++forget) {
    auto ticket = cache.ticket();    // a reader asks the source ...
    if (forget == 0) cache.clear();  // ... while a writer changes it
    if (forget == 1) cache.forget("other");
    if (forget == 2) cache.forgetIf([](const std::string&) { return false; });
    EXPECT_FALSE(cache.store("a", "stale", ticket)) << forget;
    EXPECT_FALSE(cache.find("a")) << forget;
  }
  EXPECT_TRUE(cache.store("a", "fresh", cache.ticket()));
  EXPECT_EQ(cache.find("a"), "fresh");
}

TEST(LookupCache, AnEntryAnswersForItsLifetimeExactly) {
  auto now = std::chrono::steady_clock::time_point{};
  LookupCache<int> cache(std::chrono::seconds(5), 100, [&] { return now; });
  cache.store("a", 1, cache.ticket());
  now += std::chrono::seconds(5) - std::chrono::nanoseconds(1);
  EXPECT_EQ(cache.find("a"), 1);
  now += std::chrono::nanoseconds(1);
  EXPECT_EQ(cache.find("a"), std::nullopt) << "expired at its lifetime";
  EXPECT_EQ(cache.findAny([](int v) { return v == 1; }), 1) << "findAny sees expired entries";
  EXPECT_EQ(cache.size(), 1u);
  cache.store("a", 2, cache.ticket());  // stored again: a lifetime from now
  EXPECT_EQ(cache.find("a"), 2);
}

TEST(LookupCache, ForgetsDropWhatTheyName) {
  LookupCache<std::string> cache(std::chrono::hours(1), 100);
  cache.store("shop.test", "p1", cache.ticket());
  cache.store("www.shop.test", "p1", cache.ticket());
  cache.store("blog.test", "p2", cache.ticket());
  cache.forget("www.shop.test");
  EXPECT_FALSE(cache.find("www.shop.test"));
  EXPECT_EQ(cache.find("shop.test"), "p1");
  cache.forgetIf([](const std::string& v) { return v == "p1"; });
  EXPECT_FALSE(cache.find("shop.test"));
  EXPECT_EQ(cache.find("blog.test"), "p2");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(LookupCache, AFullCacheStartsOverRatherThanGrows) {
  LookupCache<int> small(std::chrono::hours(1), 3);
  for (int i = 0; i < 3; ++i) small.store(std::to_string(i), i, small.ticket());
  small.store("2", 20, small.ticket());  // a key it has: replaced, nothing dropped
  EXPECT_EQ(small.size(), 3u);
  small.store("9", 9, small.ticket());
  EXPECT_EQ(small.size(), 1u);
  EXPECT_EQ(small.find("9"), 9);
  EXPECT_EQ(small.find("0"), std::nullopt);
}

}  // namespace
