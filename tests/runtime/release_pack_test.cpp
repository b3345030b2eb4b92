// packRelease (src/release_pack): a built release folder packed into a gzip tar and unpacked
// again by unpackRelease, held to exactly the entries and bytes packed, gives the same tree
// (contents, modes, modification times, links as links); the digest is the archive's;
// links leading outside and special files are refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "release_pack.hpp"
#include "release_unpack.hpp"
#include "support/berthd_process.hpp"

using namespace berth::runtime;
namespace fs = std::filesystem;

namespace {

class ReleasePack : public ::testing::Test {
 protected:
  void SetUp() override {
    base = berth::testing::makeTempDir("release-pack");
    tree = base + "/tree";
    fs::create_directories(tree + "/node_modules/.bin");
    fs::create_directories(tree + "/lib/deep/er");
    berth::testing::writeFile(tree + "/index.js", "require('./lib/deep/er/x');\n");
    berth::testing::writeFile(tree + "/lib/deep/er/x.js", std::string(100000, 'x'));
    berth::testing::writeFile(tree + "/run.sh", "#!/bin/sh\n");
    ::chmod((tree + "/run.sh").c_str(), 0755);
    berth::testing::writeFile(tree + "/caf\xc3\xa9.txt", "utf-8 name\n");
    fs::create_symlink("../../lib/deep", tree + "/node_modules/.bin/deep");
    fs::create_symlink("index.js", tree + "/main.js");
    fs::create_directories(tree + "/empty");
  }
  void TearDown() override { berth::testing::removeTree(base); }

  PackResult pack() {
    return packRelease(tree, base + "/pack-" + std::to_string(++packs) + ".tgz");
  }
  std::string lastPack() const { return base + "/pack-" + std::to_string(packs) + ".tgz"; }

  std::string base, tree;
  int packs = 0;
};

TEST_F(ReleasePack, PacksATreeThatUnpacksToTheSameTreeWithinExactLimits) {
  PackResult packed = pack();
  ASSERT_TRUE(packed.ok()) << *packed.error;
  // index.js, lib, lib/deep, lib/deep/er, x.js, run.sh, café.txt, node_modules, .bin, deep,
  // main.js, empty
  EXPECT_EQ(packed.entries, 12u);
  EXPECT_EQ(packed.bytes, 28u + 100000 + 10 + 11);
  EXPECT_EQ(packed.size, fs::file_size(lastPack()));
  int fd = ::open(lastPack().c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  FileDigest digest = digestOf(fd);
  ::close(fd);
  EXPECT_EQ(digest.sha256, packed.sha256);
  EXPECT_EQ(digest.size, packed.size);

  UnpackLimits limits;
  limits.max_entries = packed.entries;
  limits.max_bytes = packed.bytes;
  limits.max_ratio = 0;
  const std::string copy = base + "/copy";
  UnpackResult unpacked = unpackRelease(lastPack(), copy, limits);
  ASSERT_TRUE(unpacked.ok()) << *unpacked.error;
  EXPECT_EQ(unpacked.bytes, packed.bytes);
  EXPECT_EQ(berth::testing::readFile(copy + "/lib/deep/er/x.js"), std::string(100000, 'x'));
  EXPECT_EQ(berth::testing::readFile(copy + "/caf\xc3\xa9.txt"), "utf-8 name\n");
  EXPECT_EQ(fs::read_symlink(copy + "/node_modules/.bin/deep"), "../../lib/deep");
  EXPECT_EQ(fs::read_symlink(copy + "/main.js"), "index.js");
  EXPECT_TRUE(fs::is_directory(copy + "/empty"));
  struct stat a {
  }, b{};
  ASSERT_EQ(::stat((copy + "/run.sh").c_str(), &a), 0);
  EXPECT_EQ(a.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((copy + "/index.js").c_str(), &a), 0);
  ASSERT_EQ(::stat((tree + "/index.js").c_str(), &b), 0);
  EXPECT_EQ(a.st_mode & 07777, 0644u);
  EXPECT_EQ(a.st_mtim.tv_sec, b.st_mtim.tv_sec);

  // The same tree packs to the same bytes (name order), so a digest says "the same build".
  PackResult again = pack();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.sha256, packed.sha256);

  // One entry or one byte fewer allowed than packed: refused, nothing left.
  limits.max_entries = packed.entries - 1;
  EXPECT_FALSE(unpackRelease(lastPack(), base + "/fewer", limits).ok());
  limits.max_entries = packed.entries;
  limits.max_bytes = packed.bytes - 1;
  EXPECT_FALSE(unpackRelease(lastPack(), base + "/smaller", limits).ok());
  EXPECT_FALSE(fs::exists(base + "/fewer"));
  EXPECT_FALSE(fs::exists(base + "/smaller"));
}

TEST_F(ReleasePack, RefusesLinksLeadingOutsideAndSpecialFiles) {
  fs::create_symlink("/etc/passwd", tree + "/lib/abs");
  PackResult absolute = pack();
  ASSERT_FALSE(absolute.ok());
  EXPECT_EQ(*absolute.error, "lib/abs: a link pointing outside the release cannot be packed");
  fs::remove(tree + "/lib/abs");

  fs::create_symlink("../../x", tree + "/lib/up");
  PackResult climbing = pack();
  ASSERT_FALSE(climbing.ok());
  EXPECT_EQ(*climbing.error, "lib/up: a link pointing outside the release cannot be packed");
  fs::remove(tree + "/lib/up");

  ASSERT_EQ(::mkfifo((tree + "/lib/pipe").c_str(), 0644), 0);
  PackResult fifo = pack();
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(*fifo.error, "lib/pipe: device files, fifos and sockets cannot be packed");
  fs::remove(tree + "/lib/pipe");

  EXPECT_TRUE(pack().ok());
}

}  // namespace
