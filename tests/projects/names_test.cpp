#include "names.hpp"

#include <gtest/gtest.h>

#include <regex>

using namespace berth::projects;

namespace {

const std::vector<std::string> kReserved = {"api", "www", "admin"};
const std::string kShort = "abcd";         // 4 characters, the shortest slug
const std::string kLong = "abcdefghijkl";  // 12 characters, the longest slug
const std::regex kGenerated("^[a-z]+-[a-z]+-[0-9]+$");

// What every suggestion must be: a name checkName accepts for that slug.
void expectValid(const std::string& label, const std::string& slug) {
  const NameCheck check = checkName(label, slug, kReserved);
  EXPECT_TRUE(check.ok) << label << ": " << check.problem;
}

}  // namespace

TEST(CheckName, AcceptsAPlainName) {
  const NameCheck check = checkName("my-app2", kShort, kReserved);
  EXPECT_TRUE(check.ok);
  EXPECT_EQ(check.label, "my-app2");
  EXPECT_EQ(check.problem, "");
}

TEST(CheckName, TrimsAndLowerCasesFirst) {
  const NameCheck check = checkName(" \tMy-App \t", kShort, kReserved);
  EXPECT_TRUE(check.ok) << check.problem;
  EXPECT_EQ(check.label, "my-app");
}

TEST(CheckName, TwoCharactersAreEnoughOneIsNot) {
  EXPECT_TRUE(checkName("ab", kShort, kReserved).ok);
  for (const char* raw : {"a", "", "   ", " A\t"}) {
    const NameCheck check = checkName(raw, kShort, kReserved);
    EXPECT_FALSE(check.ok) << '"' << raw << '"';
    EXPECT_EQ(check.problem, "a project name needs at least 2 characters");
  }
  EXPECT_EQ(checkName(" A\t", kShort, kReserved).label, "a");
}

TEST(CheckName, RefusesCharactersOutsideTheAlphabet) {
  for (const char* raw : {"my_app", "my app", "my.app", "caf\xc3\xa9", "a/b", "ab!"}) {
    const NameCheck check = checkName(raw, kShort, kReserved);
    EXPECT_FALSE(check.ok) << raw;
    EXPECT_EQ(check.problem,
              "a project name may contain only lower-case letters, digits and hyphens")
        << raw;
  }
}

TEST(CheckName, RefusesLeadingOrTrailingHyphen) {
  for (const char* raw : {"-app", "app-", "--", " -App "}) {
    const NameCheck check = checkName(raw, kShort, kReserved);
    EXPECT_FALSE(check.ok) << raw;
    EXPECT_EQ(check.problem, "a project name cannot start or end with a hyphen") << raw;
  }
  EXPECT_TRUE(checkName("a-b", kShort, kReserved).ok);
}

TEST(CheckName, LengthLimitWithAFourCharacterSlug) {
  // 58 + "-" + 4 = 63.
  const std::string at_limit(58, 'a');
  EXPECT_TRUE(checkName(at_limit, kShort, kReserved).ok);
  const NameCheck over = checkName(at_limit + "b", kShort, kReserved);
  EXPECT_FALSE(over.ok);
  EXPECT_EQ(over.problem,
            "that name is too long: with your account's suffix -abcd it must fit in 63 "
            "characters, so at most 58 characters");
  EXPECT_EQ(over.label, at_limit + "b");
}

TEST(CheckName, LengthLimitWithATwelveCharacterSlug) {
  // 50 + "-" + 12 = 63.
  const std::string at_limit(50, 'z');
  EXPECT_TRUE(checkName(at_limit, kLong, kReserved).ok);
  const NameCheck over = checkName(at_limit + "9", kLong, kReserved);
  EXPECT_FALSE(over.ok);
  EXPECT_EQ(over.problem,
            "that name is too long: with your account's suffix -abcdefghijkl it must fit in 63 "
            "characters, so at most 50 characters");
}

TEST(CheckName, LengthCountsAfterTrimming) {
  EXPECT_TRUE(checkName("  " + std::string(58, 'a') + "  ", kShort, kReserved).ok);
}

TEST(CheckName, RefusesReservedNamesAfterNormalising) {
  for (const char* raw : {"api", " API ", "Www"}) {
    const NameCheck check = checkName(raw, kShort, kReserved);
    EXPECT_FALSE(check.ok) << raw;
    EXPECT_EQ(check.problem, check.label + " is reserved by the platform") << raw;
  }
  EXPECT_EQ(checkName(" API ", kShort, kReserved).problem, "api is reserved by the platform");
  // Exact match only: a name merely containing a reserved word is fine.
  EXPECT_TRUE(checkName("api2", kShort, kReserved).ok);
  EXPECT_TRUE(checkName("my-api", kShort, kReserved).ok);
}

TEST(CheckName, ReportsTheFirstRuleBroken) {
  // Bad characters are reported before the hyphen and length rules.
  EXPECT_EQ(checkName("-a_" + std::string(70, 'a'), kShort, kReserved).problem,
            "a project name may contain only lower-case letters, digits and hyphens");
  // A leading hyphen before length.
  EXPECT_EQ(checkName("-" + std::string(70, 'a'), kShort, kReserved).problem,
            "a project name cannot start or end with a hyphen");
}

TEST(SuggestFreeName, CountsUpFromTwo) {
  EXPECT_EQ(suggestFreeName("shop", kShort, {"shop"}, kReserved), "shop-2");
  EXPECT_EQ(suggestFreeName("shop", kShort, {"shop", "shop-2", "shop-3"}, kReserved), "shop-4");
  // Gaps are used.
  EXPECT_EQ(suggestFreeName("shop", kShort, {"shop", "shop-3"}, kReserved), "shop-2");
}

TEST(SuggestFreeName, SkipsReservedNames) {
  EXPECT_EQ(suggestFreeName("api", kShort, {}, {"api", "api-2"}), "api-3");
}

TEST(SuggestFreeName, ShortensALongLabelToFit) {
  const std::string label(58, 'a');  // exactly at the limit for a 4-character slug
  const std::string first = suggestFreeName(label, kShort, {label}, kReserved);
  EXPECT_EQ(first, std::string(56, 'a') + "-2");
  expectValid(first, kShort);

  // More taken names push the number to two digits; the label part shrinks again.
  std::set<std::string> taken = {label};
  for (int n = 2; n <= 9; ++n) taken.insert(std::string(56, 'a') + "-" + std::to_string(n));
  const std::string tenth = suggestFreeName(label, kShort, taken, kReserved);
  EXPECT_EQ(tenth, std::string(55, 'a') + "-10");
  expectValid(tenth, kShort);
}

TEST(SuggestFreeName, DropsAHyphenLeftAtTheCut) {
  // Cut at 48 characters for a 12-character slug lands right after the hyphen.
  const std::string label = std::string(47, 'b') + "-cc";
  const std::string s = suggestFreeName(label, kLong, {label}, kReserved);
  EXPECT_EQ(s, std::string(47, 'b') + "-2");
  expectValid(s, kLong);
}

TEST(SuggestFreeName, AlwaysValidEvenForManyTakenNames) {
  std::set<std::string> taken = {"app"};
  for (int i = 0; i < 200; ++i) {
    const std::string s = suggestFreeName("app", kLong, taken, kReserved);
    EXPECT_FALSE(taken.contains(s)) << s;
    expectValid(s, kLong);
    taken.insert(s);
  }
  EXPECT_TRUE(taken.contains("app-201"));
}

TEST(SuggestFreeName, RepairsALabelThatBrokeTheRules) {
  expectValid(suggestFreeName("-My_App-", kShort, {}, kReserved), kShort);
  expectValid(suggestFreeName("", kShort, {}, kReserved), kShort);
}

TEST(GenerateName, HasTwoWordsAndANumber) {
  for (int i = 0; i < 200; ++i) {
    const std::string name = generateName(kLong, {});
    EXPECT_TRUE(std::regex_match(name, kGenerated)) << name;
    expectValid(name, kLong);
    const auto number = std::stoi(name.substr(name.rfind('-') + 1));
    EXPECT_GE(number, 1);
    EXPECT_LE(number, 999);
  }
}

TEST(GenerateName, VariesBetweenCalls) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) seen.insert(generateName(kShort, {}));
  // A constant or badly seeded generator would repeat; 50 draws from ~3.6 million
  // combinations essentially never collide more than once.
  EXPECT_GT(seen.size(), 45u);
}

TEST(GenerateName, AvoidsTakenNames) {
  std::set<std::string> taken;
  for (int i = 0; i < 300; ++i) {
    const std::string name = generateName(kShort, taken);
    EXPECT_FALSE(taken.contains(name)) << name;
    EXPECT_TRUE(std::regex_match(name, kGenerated)) << name;
    taken.insert(name);
  }
  EXPECT_EQ(taken.size(), 300u);
}

TEST(GenerateName, FitsEvenWithAnOverlongSlug) {
  // Slugs are at most 12 characters; a longer one still gets a name of the same shape.
  const std::string slug(50, 's');
  for (int i = 0; i < 50; ++i) {
    const std::string name = generateName(slug, {});
    EXPECT_LE(name.size() + 1 + slug.size(), 63u) << name;
    EXPECT_TRUE(std::regex_match(name, kGenerated)) << name;
  }
}
