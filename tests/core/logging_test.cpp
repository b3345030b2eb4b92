// Log lines as they land in log.file: the text and JSON formats, context, levels, threads.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "log/logging.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-logging-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    log_file_ = (dir_ / "berth.log").string();
  }

  void TearDown() override {
    // Back to stderr so that no logger keeps the file open, then remove it.
    initLogging(LogSettings{});
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  void logTo(const std::string& format, const std::string& level = "debug") {
    LogSettings settings;
    settings.level = level;
    settings.format = format;
    settings.file = log_file_;
    initLogging(settings);
  }

  std::vector<std::string> lines() const {
    std::ifstream in(log_file_);
    std::vector<std::string> result;
    for (std::string line; std::getline(in, line);) result.push_back(line);
    return result;
  }

  fs::path dir_;
  std::string log_file_;
};

const std::string kTimestamp = R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)";

TEST_F(LoggingTest, TextLineCarriesContext) {
  logTo("text");
  auto logger = getLogger("core");
  logLine(*logger, spdlog::level::info, "abc", "foo", "hello world");
  logLine(*logger, spdlog::level::warn, "", "", "no context");
  logLine(*logger, spdlog::level::err, "", "foo", "project only");
  logLine(*logger, spdlog::level::debug, "r1", "", "request only");

  const auto got = lines();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_TRUE(std::regex_match(
      got[0], std::regex(kTimestamp + R"( info  core \[req=abc project=foo\] hello world)")))
      << got[0];
  EXPECT_TRUE(std::regex_match(got[1], std::regex(kTimestamp + " warn  core no context")))
      << got[1];
  EXPECT_TRUE(std::regex_match(
      got[2], std::regex(kTimestamp + R"( error core \[project=foo\] project only)")))
      << got[2];
  EXPECT_TRUE(
      std::regex_match(got[3], std::regex(kTimestamp + R"( debug core \[req=r1\] request only)")))
      << got[3];
}

TEST_F(LoggingTest, PlainLoggerCallsUseTheSameFormat) {
  logTo("text");
  getLogger("http")->info("answered {} in {} ms", 200, 3);
  const auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(std::regex_match(got[0], std::regex(kTimestamp + " info  http answered 200 in 3 ms")))
      << got[0];
}

TEST_F(LoggingTest, MessageIsNotAFormatString) {
  logTo("text");
  logLine(*getLogger("core"), spdlog::level::info, "", "", "braces {} stay {0}");
  const auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].find("core braces {} stay {0}"), std::string::npos) << got[0];
}

TEST_F(LoggingTest, JsonLineIsOneEscapedObject) {
  logTo("json");
  auto logger = getLogger("plugin.projects");
  const std::string tricky = "said \"hi\"\nthen left\\ \t and \x01";
  logLine(*logger, spdlog::level::info, "abc", "foo", tricky);
  logLine(*logger, spdlog::level::err, "", "", "plain");

  const auto got = lines();
  ASSERT_EQ(got.size(), 2u);  // the newline in the message was escaped, not written
  EXPECT_EQ(got[0].rfind(R"({"ts":")", 0), 0u) << got[0];
  EXPECT_NE(
      got[0].find(
          R"("level":"info","logger":"plugin.projects","request":"abc","project":"foo","msg":)"),
      std::string::npos)
      << got[0];

  const json first = json::parse(got[0]);
  EXPECT_TRUE(std::regex_match(first["ts"].get<std::string>(), std::regex(kTimestamp)));
  EXPECT_EQ(first["level"], "info");
  EXPECT_EQ(first["logger"], "plugin.projects");
  EXPECT_EQ(first["request"], "abc");
  EXPECT_EQ(first["project"], "foo");
  EXPECT_EQ(first["msg"], tricky);

  const json second = json::parse(got[1]);
  EXPECT_EQ(second["level"], "error");
  EXPECT_FALSE(second.contains("request"));
  EXPECT_FALSE(second.contains("project"));
  EXPECT_EQ(second["msg"], "plain");
}

TEST_F(LoggingTest, InvalidUtf8DoesNotLoseTheLine) {
  logTo("json");
  logLine(*getLogger("core"), spdlog::level::info, "", "", "bad \xff byte");
  const auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(json::accept(got[0])) << got[0];
}

TEST_F(LoggingTest, LevelFiltersLines) {
  logTo("text", "warn");
  auto logger = getLogger("core");
  logLine(*logger, spdlog::level::debug, "", "", "hidden debug");
  logLine(*logger, spdlog::level::info, "", "", "hidden info");
  logLine(*logger, spdlog::level::warn, "", "", "shown warn");
  logger->info("hidden too");
  logger->error("shown error");
  const auto got = lines();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].find("shown warn"), std::string::npos);
  EXPECT_NE(got[1].find("shown error"), std::string::npos);
}

TEST_F(LoggingTest, LoggersMadeBeforeAndAfterInitFollowIt) {
  auto early = getLogger("edge");  // made while logging still goes to stderr
  logTo("json");
  auto late = getLogger("db");
  EXPECT_EQ(getLogger("db"), late);  // made once, then found
  early->info("from early");
  late->info("from late");
  const auto got = lines();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(json::parse(got[0])["logger"], "edge");
  EXPECT_EQ(json::parse(got[1])["logger"], "db");
}

TEST_F(LoggingTest, FileIsAppendedNotTruncated) {
  std::ofstream(log_file_) << "earlier line\n";
  logTo("text");
  getLogger("core")->info("new line");
  const auto got = lines();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "earlier line");
}

TEST_F(LoggingTest, ContextStaysWithItsLineAcrossThreads) {
  logTo("json");
  constexpr int kThreads = 4;
  constexpr int kLinesEach = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      // Each thread asks for the logger itself: first use races with the others.
      auto logger = getLogger("worker");
      for (int i = 0; i < kLinesEach; ++i) {
        const std::string id = std::to_string(t) + "-" + std::to_string(i);
        logLine(*logger, spdlog::level::info, "req" + id, "proj" + std::to_string(t), "msg" + id);
      }
    });
  }
  for (auto& thread : threads) thread.join();

  const auto got = lines();
  ASSERT_EQ(got.size(), static_cast<size_t>(kThreads * kLinesEach));
  for (const std::string& line : got) {
    const json entry = json::parse(line);
    const std::string id = entry["msg"].get<std::string>().substr(3);
    EXPECT_EQ(entry["request"], "req" + id);
    EXPECT_EQ(entry["project"], "proj" + id.substr(0, id.find('-')));
  }
}

TEST_F(LoggingTest, UnopenableFileIsAConfigError) {
  std::ofstream((dir_ / "plain-file").string()) << "x";
  LogSettings settings;
  settings.file = (dir_ / "plain-file" / "berth.log").string();
  EXPECT_THROW(initLogging(settings), ConfigError);
}

}  // namespace
}  // namespace berth::core
