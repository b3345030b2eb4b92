// .gitignore / .berthignore matching, and which files a deploy of a folder ships.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ignore_rules.hpp"
#include "pack.hpp"
#include "support/berthd_process.hpp"

using berth::client::globMatch;
using berth::client::IgnoreRules;
namespace fs = std::filesystem;

TEST(CliGlob, StarsQuestionMarksAndClasses) {
  EXPECT_TRUE(globMatch("*.log", "debug.log"));
  EXPECT_FALSE(globMatch("*.log", "logs/debug.log"));  // * stops at /
  EXPECT_TRUE(globMatch("a?c", "abc"));
  EXPECT_FALSE(globMatch("a?c", "a/c"));
  EXPECT_TRUE(globMatch("file[0-9].txt", "file7.txt"));
  EXPECT_FALSE(globMatch("file[!0-9].txt", "file7.txt"));
  EXPECT_TRUE(globMatch("file[!0-9].txt", "filex.txt"));
  EXPECT_TRUE(globMatch("\\*literal", "*literal"));
  EXPECT_FALSE(globMatch("\\*literal", "xliteral"));
}

TEST(CliGlob, DoubleStarCrossesFolders) {
  EXPECT_TRUE(globMatch("**/foo", "foo"));
  EXPECT_TRUE(globMatch("**/foo", "a/b/foo"));
  EXPECT_TRUE(globMatch("a/**/b", "a/b"));
  EXPECT_TRUE(globMatch("a/**/b", "a/x/y/b"));
  EXPECT_FALSE(globMatch("a/**/b", "a/x/y/c"));
  EXPECT_TRUE(globMatch("logs/**", "logs/x/y.txt"));
  EXPECT_FALSE(globMatch("logs/**", "other/x"));
}

TEST(CliIgnore, BasenamesMatchAtAnyDepthAnchoredOnlyAtTheTop) {
  IgnoreRules r;
  r.add("# a comment\n\n*.log\n/secret.txt\nbuild/\ndocs/*.md\n");
  EXPECT_TRUE(r.ignored("debug.log", false));
  EXPECT_TRUE(r.ignored("a/b/debug.log", false));
  EXPECT_TRUE(r.ignored("secret.txt", false));
  EXPECT_FALSE(r.ignored("sub/secret.txt", false));
  EXPECT_TRUE(r.ignored("build", true));
  EXPECT_TRUE(r.ignored("a/build", true));
  EXPECT_FALSE(r.ignored("build", false));  // a file called build is not a folder
  EXPECT_TRUE(r.ignored("docs/readme.md", false));
  EXPECT_FALSE(r.ignored("other/docs/readme.md", false));
  EXPECT_FALSE(r.ignored("index.html", false));
}

TEST(CliIgnore, LastMatchWinsAndNegationReincludes) {
  IgnoreRules r;
  r.add("*.txt\n!keep.txt\n");
  EXPECT_TRUE(r.ignored("a.txt", false));
  EXPECT_FALSE(r.ignored("keep.txt", false));
  r.add("keep.txt\n");  // a later rule wins again
  EXPECT_TRUE(r.ignored("keep.txt", false));
}

TEST(CliIgnore, RulesOfAFolderApplyBelowItOnly) {
  IgnoreRules r;
  r.add("*.tmp\n");
  r.add("/local.json\n!important.tmp\n", "app");
  EXPECT_TRUE(r.ignored("app/local.json", false));
  EXPECT_FALSE(r.ignored("local.json", false));
  EXPECT_FALSE(r.ignored("app/important.tmp", false));  // the deeper file wins
  EXPECT_TRUE(r.ignored("important.tmp", false));
  EXPECT_FALSE(r.ignored("application/local.json", false));  // not under "app/"
}

TEST(CliIgnore, EscapesAndTrailingSpaces) {
  IgnoreRules r;
  r.add("\\#notacomment\n\\!bang\nspaced   \n");
  EXPECT_TRUE(r.ignored("#notacomment", false));
  EXPECT_TRUE(r.ignored("!bang", false));
  EXPECT_TRUE(r.ignored("spaced", false));
}

namespace {
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
}  // namespace

TEST(CliPack, ShipsWhatTheIgnoreFilesLeaveAndNeverGitBerthOrBerthignore) {
  auto dir = fs::path(berth::testing::makeTempDir("berth-cli-pack"));
  write(dir / "index.html", "hi");
  write(dir / ".gitignore", "node_modules/\n*.log\ndist/\n");
  write(dir / ".berthignore", "secret.txt\n!dist/\n");
  write(dir / "secret.txt", "no");
  write(dir / "app.log", "no");
  write(dir / "node_modules/x/index.js", "no");
  write(dir / "dist/bundle.js", "yes: .berthignore re-includes what git ignores");
  write(dir / ".git/config", "no");
  write(dir / ".berth/project.json", "no");
  write(dir / "sub/.gitignore", "local.txt\n");
  write(dir / "sub/local.txt", "no");
  write(dir / "sub/page.html", "yes");
  std::vector<std::string> paths;
  for (const auto& e : berth::client::listDeployFiles(dir.string())) paths.push_back(e.path);
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> expected = {".gitignore",   "dist", "dist/bundle.js",
                                       "index.html",   "sub",  "sub/.gitignore",
                                       "sub/page.html"};
  EXPECT_EQ(paths, expected);
  berth::client::PackStats stats;
  std::string archive = berth::client::packFolder(dir.string(), &stats);
  EXPECT_EQ(stats.files, 5u);
  ASSERT_GE(archive.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(archive[0]), 0x1f);  // gzip
  EXPECT_EQ(static_cast<unsigned char>(archive[1]), 0x8b);
  berth::testing::removeTree(dir.string());
}
