// The command line's words and options, and which API, token and project they resolve to.
#include <gtest/gtest.h>

#include <filesystem>

#include "args.hpp"
#include "errors.hpp"
#include "settings.hpp"
#include "support/berthd_process.hpp"

using namespace berth::client;

namespace {
int usageCode(const std::vector<std::string>& argv) {
  try {
    parseArgs(argv);
  } catch (const CliError& e) {
    return e.code();
  }
  return -1;
}
}  // namespace

TEST(CliArgs, WordsAndOptionsAnywhere) {
  auto a = parseArgs({"--json", "logs", "-n", "20", "--kind=process", "-f", "-pblog-ann1"});
  EXPECT_EQ(a.words, std::vector<std::string>{"logs"});
  EXPECT_TRUE(a.has("json"));
  EXPECT_EQ(a.get("lines"), "20");
  EXPECT_EQ(a.get("kind"), "process");
  EXPECT_TRUE(a.has("follow"));
  EXPECT_EQ(a.get("project"), "blog-ann1");
}

TEST(CliArgs, DashAloneAndAfterDoubleDashAreWords) {
  auto a = parseArgs({"db", "query", "-", "--", "--not-an-option", "-n"});
  EXPECT_EQ(a.words, (std::vector<std::string>{"db", "query", "-", "--not-an-option", "-n"}));
  EXPECT_TRUE(a.options.empty());
}

TEST(CliArgs, UsageErrorsExitTwo) {
  EXPECT_EQ(usageCode({"--nope"}), kExitUsage);
  EXPECT_EQ(usageCode({"-Z"}), kExitUsage);
  EXPECT_EQ(usageCode({"logs", "-n"}), kExitUsage);                 // a missing value
  EXPECT_EQ(usageCode({"--json=1"}), kExitUsage);                   // a flag with a value
  EXPECT_EQ(usageCode({"-p", "a", "--project", "b"}), kExitUsage);  // twice
}

TEST(CliSettings, FlagsBeatEnvironmentWhichBeatsTheConfig) {
  ConfigFile config;
  config.current = "work";
  config.contexts["work"] = {"https://berth.work.example/", "bth_work", "", "a@x"};
  config.contexts["home"] = {"http://127.0.0.1:8080", "bth_home", "", "b@x"};
  std::string nowhere = berth::testing::makeTempDir("berth-cli-settings");

  auto s = resolveSettings(parseArgs({}), config, {}, nowhere);
  EXPECT_EQ(s.context, "work");
  EXPECT_EQ(s.url, "https://berth.work.example");
  EXPECT_EQ(s.token, "bth_work");
  EXPECT_EQ(s.project, "");

  s = resolveSettings(parseArgs({}), config,
                      {{"BERTH_TOKEN", "bth_env"}, {"BERTH_PROJECT", "envproj"}}, nowhere);
  EXPECT_EQ(s.token, "bth_env");
  EXPECT_EQ(s.project, "envproj");

  s = resolveSettings(parseArgs({"-p", "flagproj"}), config, {{"BERTH_PROJECT", "envproj"}},
                      nowhere);
  EXPECT_EQ(s.project, "flagproj");

  s = resolveSettings(parseArgs({"--context", "home"}), config, {}, nowhere);
  EXPECT_EQ(s.url, "http://127.0.0.1:8080");
  EXPECT_EQ(s.token, "bth_home");
  berth::testing::removeTree(nowhere);
}

TEST(CliSettings, AContextsTokenGoesOnlyToItsOwnAddress) {
  ConfigFile config;
  config.current = "work";
  config.contexts["work"] = {"https://berth.work.example", "bth_work", "", ""};
  config.contexts["home"] = {"http://127.0.0.1:8080", "bth_home", "", ""};
  std::string nowhere = berth::testing::makeTempDir("berth-cli-settings");
  auto s = resolveSettings(parseArgs({"--url", "https://evil.example"}), config, {}, nowhere);
  EXPECT_EQ(s.url, "https://evil.example");
  EXPECT_EQ(s.token, "");
  // An address of another context brings that context's token.
  s = resolveSettings(parseArgs({}), config, {{"BERTH_URL", "http://127.0.0.1:8080/"}}, nowhere);
  EXPECT_EQ(s.token, "bth_home");
  EXPECT_EQ(s.context, "home");
  berth::testing::removeTree(nowhere);
}

TEST(CliSettings, TheNearestLinkedFolderNamesTheProject) {
  std::string root = berth::testing::makeTempDir("berth-cli-link");
  writeLink(root, "blog-ann1", "http://127.0.0.1:8080");
  std::filesystem::create_directories(root + "/src/deep");
  auto s = resolveSettings(parseArgs({}), ConfigFile{}, {}, root + "/src/deep");
  EXPECT_EQ(s.project, "blog-ann1");
  s = resolveSettings(parseArgs({}), ConfigFile{}, {{"BERTH_PROJECT", "other"}}, root);
  EXPECT_EQ(s.project, "other");
  berth::testing::removeTree(root);
}

TEST(CliSettings, ConfigFileIsPrivateAndRoundTrips) {
  std::string dir = berth::testing::makeTempDir("berth-cli-config");
  std::string path = dir + "/berth/config.json";
  ConfigFile c;
  c.current = "ci";
  c.contexts["ci"] = {"http://h:1", "bth_x", "abc", "ci@example.com"};
  saveConfig(c, path);
  auto perms = std::filesystem::status(path).permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto back = loadConfig(path);
  EXPECT_EQ(back.current, "ci");
  EXPECT_EQ(back.contexts["ci"].token, "bth_x");
  EXPECT_EQ(back.contexts["ci"].token_id, "abc");
  EXPECT_EQ(back.contexts["ci"].email, "ci@example.com");
  berth::testing::removeTree(dir);
}
