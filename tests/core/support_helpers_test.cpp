// The helpers tests/support gives every test program: eventually's polling (used with different
// polls and limits by the API tests and the core's and runtime's unit tests) and the file
// helpers and the tar(1) archive builder that replaced the copies in each part.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "support/berthd_process.hpp"
#include "support/eventually.hpp"
#include "support/tar_gz.hpp"

using namespace berth::testing;
using namespace std::chrono_literals;

TEST(Eventually, HoldsAtOnceWithoutWaiting) {
  int asked = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(eventually([&] { return ++asked == 1; }, 10s, 1s));
  EXPECT_EQ(asked, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
}

TEST(Eventually, PollsUntilThePredicateHolds) {
  int asked = 0;
  EXPECT_TRUE(eventually([&] { return ++asked == 4; }, 10s, 1ms));
  EXPECT_EQ(asked, 4);
}

TEST(Eventually, GivesUpAfterTheLimitAndAsksOnceMoreAtTheEnd) {
  const auto start = std::chrono::steady_clock::now();
  bool deadline_passed = false;
  EXPECT_FALSE(eventually(
      [&] {
        deadline_passed = std::chrono::steady_clock::now() - start >= 50ms;
        return false;
      },
      50ms, 5ms));
  EXPECT_TRUE(deadline_passed) << "the last question comes after the limit";
  // An effect that lands just as the limit passes is still seen.
  const auto late = std::chrono::steady_clock::now();
  EXPECT_TRUE(
      eventually([&] { return std::chrono::steady_clock::now() - late >= 30ms; }, 30ms, 50ms));
}

TEST(FileHelpers, WriteFileThenReadFileGiveTheSameBytes) {
  const std::string dir = makeTempDir("berth-support-files");
  const std::string path = dir + "/bytes.bin";
  const std::string bytes("a\0b\r\n\xff", 6);
  writeFile(path, bytes);
  EXPECT_EQ(readFile(path), bytes);
  writeFile(path, "shorter");
  EXPECT_EQ(readFile(path), "shorter") << "writeFile replaces the file";
  EXPECT_EQ(readFile(dir + "/missing"), "") << "a file that cannot be read reads as nothing";
  removeTree(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(TarGz, HoldsEveryFileWithItsBytesInItsFolders) {
  const std::string dir = makeTempDir("berth-support-tar");
  writeFile(dir + "/release.tar.gz", tarGz({{"index.html", "<h1>hi</h1>"}, {"a/b/c.txt", "deep"}}));
  auto unpacked = berth::core::runCommand({"tar", "-xzf", dir + "/release.tar.gz", "-C", dir});
  ASSERT_TRUE(unpacked.status.ok()) << unpacked.output;
  EXPECT_EQ(readFile(dir + "/index.html"), "<h1>hi</h1>");
  EXPECT_EQ(readFile(dir + "/a/b/c.txt"), "deep");
  removeTree(dir);
}
