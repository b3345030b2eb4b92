// Releases: the build pipeline (release_build: unpack, owner, start command, build step with
// its log and time limit); promote conflicts and pruning (release_rules); archives: a good one
// unpacks whole (nested folders, executable bits, unicode names, links inside); every dangerous
// kind is refused with its error and leaves nothing behind.
#include "release_build.hpp"
#include "release_rules.hpp"
#include "release_unpack.hpp"
#include "static_site.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <thread>

#include <pwd.h>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "tar_builder.hpp"

namespace fs = std::filesystem;
using berth::runtime::BuildLimits;
using berth::runtime::cleanArchivePath;
using berth::runtime::giveTreeTo;
using berth::runtime::prepareRelease;
using berth::runtime::promoteProblem;
using berth::runtime::ReleaseInput;
using berth::runtime::ReleaseRow;
using berth::runtime::releasesToPrune;
using berth::runtime::RunAs;
using berth::runtime::runBuildCommand;
using berth::runtime::sealRelease;
using berth::runtime::StartKind;
using berth::runtime::UnpackLimits;
using berth::runtime::unpackRelease;
using berth::runtime::unpackReleaseFromMemory;
using berth::runtime::testing::TarBuilder;

namespace {

class ReleaseUnpack : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-unpack-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    fs::create_directories(base_ / "releases");
    // Builds run as an unprivileged user when the tests run as root: it must reach the release.
    fs::permissions(base_, fs::perms(0755));
    fs::permissions(base_ / "releases", fs::perms(0755));
    release_ = base_ / "releases" / "r1";
  }
  void TearDown() override { fs::remove_all(base_); }

  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // The refusal leaves the releases folder exactly as empty as it was.
  void expectRefused(const std::string& archive, const std::string& error,
                     UnpackLimits limits = {}) {
    auto result = unpackReleaseFromMemory(archive, release_, limits);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(*result.error, error);
    EXPECT_FALSE(fs::exists(fs::symlink_status(release_)));
    EXPECT_TRUE(fs::is_empty(base_ / "releases")) << "a half-unpacked folder was left";
  }

  fs::path base_;
  fs::path release_;
};

TEST(CleanArchivePath, NormalisesAndRefuses) {
  EXPECT_EQ(cleanArchivePath("./a//b/./c/").path, "a/b/c");
  EXPECT_EQ(cleanArchivePath("./").path, "");
  EXPECT_FALSE(cleanArchivePath("a/b").error);
  EXPECT_EQ(*cleanArchivePath("/etc/passwd").error,
            "/etc/passwd: absolute paths are not allowed in a release");
  EXPECT_EQ(*cleanArchivePath("a/../../b").error,
            "a/../../b: '..' is not allowed in a release path");
  EXPECT_EQ(*cleanArchivePath("..").error, "..: '..' is not allowed in a release path");
  EXPECT_FALSE(cleanArchivePath("a/..b/c..").error) << "only whole '..' components are refused";
}

TEST_F(ReleaseUnpack, GoodArchiveUnpacksWhole) {
  TarBuilder tar;
  tar.folder("./")
      .file("./index.html", "<h1>hello</h1>")
      .folder("./app/lib/deep")
      .file("./app/lib/deep/module.js", "module.exports = 1;\n")
      .file("./bin/server", "#!/bin/sh\necho hi\n", 0755)
      .file("./héllo wörld/日本語.txt", "unicode")
      .symlink("./app/current", "lib/deep/module.js")
      .symlink("./app/lib/deep/up", "../../../index.html")
      .hardlink("./copy.html", "./index.html");
  auto result = unpackReleaseFromMemory(tar.finish(), release_, {});
  ASSERT_TRUE(result.ok()) << *result.error;
  EXPECT_EQ(result.files, 7u);
  EXPECT_EQ(result.bytes, 14u + 20u + 18u + 7u);
  EXPECT_EQ(read(release_ / "index.html"), "<h1>hello</h1>");
  EXPECT_EQ(read(release_ / "app/lib/deep/module.js"), "module.exports = 1;\n");
  EXPECT_EQ(read(release_ / "héllo wörld" / "日本語.txt"), "unicode");
  EXPECT_EQ(read(release_ / "app/current"), "module.exports = 1;\n");
  EXPECT_EQ(read(release_ / "app/lib/deep/up"), "<h1>hello</h1>");
  EXPECT_EQ(read(release_ / "copy.html"), "<h1>hello</h1>");
  EXPECT_EQ(fs::status(release_ / "copy.html").type(), fs::file_type::regular);
  EXPECT_EQ(fs::hard_link_count(release_ / "index.html"), 2u);

  struct stat st {};
  ASSERT_EQ(::stat((release_ / "bin/server").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u) << "the executable bit is kept";
  ASSERT_EQ(::stat((release_ / "index.html").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(st.st_mtime, 1700000000) << "modification times are kept (they make ETags)";
  // Nothing but the release itself is left in the releases folder.
  EXPECT_EQ(std::distance(fs::directory_iterator(base_ / "releases"), fs::directory_iterator()), 1);
}

TEST_F(ReleaseUnpack, SetuidAndWorldWritableBitsAreDropped) {
  TarBuilder tar;
  tar.file("suid", "x", 04777).file("open", "y", 0666);
  auto result = unpackReleaseFromMemory(tar.finish(), release_, {});
  ASSERT_TRUE(result.ok()) << *result.error;
  struct stat st {};
  ASSERT_EQ(::stat((release_ / "suid").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((release_ / "open").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(ReleaseUnpack, ArchiveFromFileWithPythonTarfile) {
  // A second writer (Python's tarfile, GNU format, gzip) read from a file on disk.
  const fs::path archive = base_ / "site.tar.gz";
  const std::string script =
      "import tarfile, io, sys\n"
      "t = tarfile.open(sys.argv[1], 'w:gz', format=tarfile.GNU_FORMAT)\n"
      "for name, data in [('site/index.html', b'<p>ok</p>'), ('site/ünïcødé.css', b'p{}')]:\n"
      "    i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
      "t.close()\n";
  const fs::path script_file = base_ / "make.py";
  std::ofstream(script_file) << script;
  ASSERT_EQ(std::system(("python3 " + script_file.string() + " " + archive.string()).c_str()), 0);
  auto result = unpackRelease(archive, release_, {});
  ASSERT_TRUE(result.ok()) << *result.error;
  EXPECT_EQ(result.files, 2u);
  EXPECT_EQ(read(release_ / "site/index.html"), "<p>ok</p>");
  EXPECT_EQ(read(release_ / "site" / "ünïcødé.css"), "p{}");
}

TEST_F(ReleaseUnpack, AbsolutePathRefused) {
  TarBuilder tar;
  tar.file("ok.txt", "fine").file("/tmp/berth-escape.txt", "evil");
  expectRefused(tar.finish(), "/tmp/berth-escape.txt: absolute paths are not allowed in a release");
  EXPECT_FALSE(fs::exists("/tmp/berth-escape.txt"));
}

TEST_F(ReleaseUnpack, DotDotRefused) {
  TarBuilder tar;
  tar.file("a/../../escape.txt", "evil");
  expectRefused(tar.finish(), "a/../../escape.txt: '..' is not allowed in a release path");
  EXPECT_FALSE(fs::exists(base_ / "escape.txt"));
}

TEST_F(ReleaseUnpack, AbsoluteSymlinkRefused) {
  TarBuilder tar;
  tar.symlink("passwd", "/etc/passwd");
  expectRefused(tar.finish(), "passwd: a link pointing outside the release is not allowed");
}

TEST_F(ReleaseUnpack, SymlinkClimbingOutRefused) {
  TarBuilder tar;
  tar.folder("a").symlink("a/up", "../../outside");
  expectRefused(tar.finish(), "a/up: a link pointing outside the release is not allowed");
}

TEST_F(ReleaseUnpack, SymlinkChainResolvingOutsideRefused) {
  // Each text stays inside, but "b" resolves through "a" (the release itself) to its parent.
  TarBuilder tar;
  tar.symlink("a", ".").symlink("b", "a/..");
  expectRefused(tar.finish(), "b: a link pointing outside the release is not allowed");
}

TEST_F(ReleaseUnpack, WritingThroughALinkRefused) {
  // "dir" links inside the release; a later entry under it must still not follow it.
  TarBuilder tar;
  tar.folder("real").symlink("dir", "real").file("dir/file.txt", "x");
  expectRefused(tar.finish(),
                "dir/file.txt: goes through a link, which is not allowed in a release");
}

TEST_F(ReleaseUnpack, HardlinkOutsideRefused) {
  TarBuilder tar;
  tar.hardlink("shadow", "/etc/shadow");
  expectRefused(tar.finish(), "shadow: a link pointing outside the release is not allowed");
  TarBuilder tar2;
  tar2.hardlink("shadow", "../../etc/shadow");
  expectRefused(tar2.finish(), "shadow: a link pointing outside the release is not allowed");
}

TEST_F(ReleaseUnpack, HardlinkToASymlinkIsCheckedWhereItLands) {
  // "a/l" -> "../x" stays inside from a/; the same text at the top climbs out.
  TarBuilder tar;
  tar.file("x", "x").folder("a").symlink("a/l", "../x").hardlink("l2", "a/l");
  expectRefused(tar.finish(), "l2: a link pointing outside the release is not allowed");
}

TEST_F(ReleaseUnpack, HardlinkToMissingFileRefused) {
  TarBuilder tar;
  tar.hardlink("copy", "missing.txt");
  expectRefused(tar.finish(),
                "copy: links to missing.txt, which is not a file earlier in the release");
}

TEST_F(ReleaseUnpack, DeviceFilesFifosAndSocketsRefused) {
  for (unsigned type : {AE_IFCHR, AE_IFBLK, AE_IFIFO}) {
    TarBuilder tar;
    tar.file("ok.txt", "x").special("dev/thing", type);
    expectRefused(tar.finish(),
                  "dev/thing: device files, fifos and sockets are not allowed in a release");
  }
}

TEST_F(ReleaseUnpack, TarBombBytesRefused) {
  // 8 MB of zeros compress to a few KB; the limit is on what it expands to.
  TarBuilder tar;
  tar.zeros("bomb.bin", 8 * 1024 * 1024);
  const std::string archive = tar.finish();
  EXPECT_LT(archive.size(), 64u * 1024);
  UnpackLimits limits;
  limits.max_bytes = 1024 * 1024;
  expectRefused(archive, "the release expands past 1048576 bytes, the limit for one release",
                limits);
}

TEST_F(ReleaseUnpack, ManySmallFilesAddingUpPastTheByteLimitRefused) {
  TarBuilder tar;
  for (int i = 0; i < 10; ++i) tar.file("f" + std::to_string(i), std::string(200, 'x'));
  UnpackLimits limits;
  limits.max_bytes = 1000;
  expectRefused(tar.finish(), "the release expands past 1000 bytes, the limit for one release",
                limits);
}

TEST_F(ReleaseUnpack, ExpandingPastTheRatioRefused) {
  // 2 MB of zeros compress to a few KB: far more than 100 times.
  TarBuilder tar;
  tar.file("zeros", std::string(2 * 1024 * 1024, '\0'));
  UnpackLimits limits;
  limits.max_ratio = 100;
  expectRefused(tar.finish(),
                "the release expands to more than 100 times its compressed size "
                "(runtime.max_unpack_ratio)",
                limits);
  TarBuilder text;
  text.file("index.html", "<h1>an ordinary page</h1>");
  EXPECT_TRUE(unpackReleaseFromMemory(text.finish(), release_, limits).ok());
}

TEST_F(ReleaseUnpack, ExactlyAtTheLimitsIsAccepted) {
  TarBuilder tar;
  for (int i = 0; i < 5; ++i) tar.file("f" + std::to_string(i), std::string(200, 'x'));
  UnpackLimits limits;
  limits.max_bytes = 1000;
  limits.max_entries = 5;
  auto result = unpackReleaseFromMemory(tar.finish(), release_, limits);
  ASSERT_TRUE(result.ok()) << *result.error;
  EXPECT_EQ(result.bytes, 1000u);
  EXPECT_EQ(result.files, 5u);
}

TEST_F(ReleaseUnpack, TarBombFileCountRefused) {
  TarBuilder tar;
  for (int i = 0; i < 51; ++i) tar.folder("d" + std::to_string(i));
  UnpackLimits limits;
  limits.max_entries = 50;
  expectRefused(tar.finish(), "the release holds more than 50 files, the limit for one release",
                limits);
}

// Found by the tar_unpack fuzz target: folders made for an entry's path were not counted, so
// one entry with a deep path made any number of folders.
TEST_F(ReleaseUnpack, FoldersMadeForADeepPathCountAsEntries) {
  TarBuilder tar;
  std::string deep;
  for (int i = 0; i < 60; ++i) deep += "a/";
  tar.file(deep + "f", "x");
  UnpackLimits limits;
  limits.max_entries = 50;
  expectRefused(tar.finish(), "the release holds more than 50 files, the limit for one release",
                limits);
  TarBuilder shallow;
  shallow.file("a/b/c/f", "x");
  limits.max_entries = 4;
  EXPECT_TRUE(unpackReleaseFromMemory(shallow.finish(), release_, limits).ok());
}

// Found by the tar_unpack fuzz target: a file or link where a folder already was failed with
// "cannot create the link: File exists" instead of the unpacker's own refusal.
TEST_F(ReleaseUnpack, FileOrLinkWhereAFolderIsRefused) {
  TarBuilder link;
  link.folder("b").symlink("b", "a");
  expectRefused(link.finish(), "b: a file and a folder have the same name");
  TarBuilder file;
  file.folder("b/c").file("b", "x");
  expectRefused(file.finish(), "b: a file and a folder have the same name");
  TarBuilder hardlink;
  hardlink.file("a", "x").folder("b").hardlink("b", "a");
  expectRefused(hardlink.finish(), "b: a file and a folder have the same name");
}

TEST_F(ReleaseUnpack, NotAnArchiveRefused) {
  auto result =
      unpackReleaseFromMemory("this is not a tar archive at all, just text", release_, {});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error->starts_with("the release is not a gzip-compressed tar archive: "))
      << *result.error;
  EXPECT_TRUE(fs::is_empty(base_ / "releases"));
}

TEST_F(ReleaseUnpack, TruncatedArchiveRefused) {
  TarBuilder tar;
  tar.file("a.txt", std::string(100000, 'a')).file("b.txt", std::string(100000, 'b'));
  std::string archive = tar.finish();
  archive.resize(archive.size() / 2);
  auto result = unpackReleaseFromMemory(archive, release_, {});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error->starts_with("the release archive is damaged: ") ||
              result.error->starts_with("the release is not a gzip-compressed tar archive: "))
      << *result.error;
  EXPECT_TRUE(fs::is_empty(base_ / "releases"));
}

TEST_F(ReleaseUnpack, ExistingReleaseFolderIsNeverReplaced) {
  fs::create_directories(release_);
  std::ofstream(release_ / "keep.txt") << "old";
  TarBuilder tar;
  tar.file("index.html", "new");
  auto result = unpackReleaseFromMemory(tar.finish(), release_, {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(*result.error, "the release folder " + release_.string() + " already exists");
  EXPECT_EQ(read(release_ / "keep.txt"), "old");
}

TEST_F(ReleaseUnpack, LaterEntryReplacesEarlierOneAsTarDoes) {
  TarBuilder tar;
  tar.file("a.txt", "first").file("a.txt", "second");
  auto result = unpackReleaseFromMemory(tar.finish(), release_, {});
  ASSERT_TRUE(result.ok()) << *result.error;
  EXPECT_EQ(read(release_ / "a.txt"), "second");
  EXPECT_EQ(result.files, 1u) << "the replaced file was counted too (found by fuzz/tar_unpack)";
}

TEST(Promote, ReadyReleaseMayBeMadeLive) {
  std::vector<ReleaseRow> rows = {{"r2", "live", 20}, {"r1", "ready", 10}};
  EXPECT_FALSE(promoteProblem(rows, rows[1]));
  EXPECT_FALSE(promoteProblem(rows, rows[0])) << "promoting the live one changes nothing";
}

TEST(Promote, ConflictWhileBuilding) {
  std::vector<ReleaseRow> rows = {{"r3", "building", 30}, {"r2", "live", 20}, {"r1", "ready", 10}};
  auto problem = promoteProblem(rows, rows[2]);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->status, 409);
  EXPECT_EQ(problem->error, "a release is building; promote again when it is done");
}

TEST(Promote, GoneWhenPrunedOrFailed) {
  std::vector<ReleaseRow> rows = {{"r2", "live", 20}, {"r1", "pruned", 10}, {"r0", "failed", 5}};
  auto pruned = promoteProblem(rows, rows[1]);
  ASSERT_TRUE(pruned);
  EXPECT_EQ(pruned->status, 410);
  EXPECT_EQ(pruned->error, "release r1 was pruned: its files are gone, so it cannot be made live");
  auto failed = promoteProblem(rows, rows[2]);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, 410);
  EXPECT_EQ(failed->error, "release r0 failed to build, so it cannot be made live");
}

TEST(Prune, KeepsTheNewestWithFilesAndNeverTheLiveOne) {
  std::vector<ReleaseRow> rows = {{"r6", "ready", 60}, {"r5", "failed", 50}, {"r4", "ready", 40},
                                  {"r3", "ready", 30}, {"r2", "live", 20},   {"r1", "ready", 10},
                                  {"r0", "pruned", 5}};
  // Keep 2: r6 and r4 are newest; r3 and r1 go; r2 is live (promoted) and stays.
  EXPECT_EQ(releasesToPrune(rows, 2), (std::vector<std::string>{"r3", "r1"}));
  EXPECT_TRUE(releasesToPrune(rows, 10).empty());
  EXPECT_EQ(releasesToPrune(rows, 0), (std::vector<std::string>{"r6", "r4", "r3", "r1"}));
}

TEST(Prune, SameSecondOrderedById) {
  std::vector<ReleaseRow> rows = {{"a", "ready", 1}, {"b", "ready", 1}, {"c", "live", 1}};
  EXPECT_EQ(releasesToPrune(rows, 1), (std::vector<std::string>{"b", "a"}));
}

// --- the build pipeline ---------------------------------------------------------------------

// A project's uid (numeric, no account) when root; berthd's own otherwise.
std::optional<RunAs> buildUser() {
  if (::geteuid() == 0) return RunAs{200778, 200778};
  return std::nullopt;
}

std::map<std::string, std::string> buildEnv() {
  return {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", "/tmp"}};
}

class ReleaseBuild : public ReleaseUnpack {
 protected:
  void SetUp() override {
    ReleaseUnpack::SetUp();
    work_ = base_ / "work";
    fs::create_directories(work_);
    fs::permissions(work_, fs::perms(0777));
  }
  void script(const std::string& name, const std::string& js) {
    std::ofstream(work_ / name) << js;
    fs::permissions(work_ / name, fs::perms(0644));
  }
  ReleaseInput input(const std::string& archive) {
    const fs::path file = base_ / "upload.tar.gz";
    std::ofstream(file, std::ios::binary) << archive;
    ReleaseInput in;
    in.archive = file;
    in.release_dir = release_;
    in.run_as = buildUser();
    return in;
  }
  fs::path work_;
};

TEST_F(ReleaseBuild, CommandOutputIsTheLog) {
  script("ok.js", "console.log('step 1'); console.error('a warning'); console.log('done');");
  auto run = runBuildCommand({"node", "ok.js"}, work_.string(), buildEnv(), buildUser(), {});
  ASSERT_TRUE(run.ok) << run.error << run.log;
  EXPECT_NE(run.log.find("step 1\n"), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("a warning\n"), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("done\n"), std::string::npos) << run.log;
}

TEST_F(ReleaseBuild, FailingStepSaysHowItEnded) {
  script("fail.js", "console.log('compiling'); process.exit(2);");
  auto run = runBuildCommand({"node", "fail.js"}, work_.string(), buildEnv(), buildUser(), {});
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error, "the build step node fail.js exited with code 2");
  EXPECT_EQ(run.log, "compiling\n");
}

TEST_F(ReleaseBuild, StepOverItsTimeLimitIsStopped) {
  script("hang.js", "console.log('waiting'); setInterval(() => {}, 1000);");
  BuildLimits limits;
  limits.timeout = std::chrono::milliseconds(1500);
  auto run = runBuildCommand({"node", "hang.js"}, work_.string(), buildEnv(), buildUser(), limits);
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error, "the build step node hang.js took longer than 1500 ms and was stopped");
  EXPECT_EQ(run.log, "waiting\n");
}

TEST_F(ReleaseBuild, StepIsStoppedWhenBerthdStops) {
  // The step marks that it runs, then waits forever; the flag is set once the mark exists.
  script("forever.js",
         "require('fs').writeFileSync('running', 'yes'); console.log('running');"
         " setInterval(() => {}, 1000);");
  std::atomic<bool> stopping{false};
  BuildLimits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.cancel = &stopping;
  std::thread stopper([&] {
    for (int i = 0; i < 3000 && !std::filesystem::exists(work_ / "running"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stopping = true;
  });
  auto run =
      runBuildCommand({"node", "forever.js"}, work_.string(), buildEnv(), buildUser(), limits);
  stopper.join();
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error, "the build step node forever.js was stopped because berthd is stopping");
}

TEST_F(ReleaseBuild, StepIsNotStartedLongWhenBerthdIsStoppingAlready) {
  script("hang.js", "setInterval(() => {}, 1000);");
  std::atomic<bool> stopping{true};
  BuildLimits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.cancel = &stopping;
  auto run = runBuildCommand({"node", "hang.js"}, work_.string(), buildEnv(), buildUser(), limits);
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error, "the build step node hang.js was stopped because berthd is stopping");
}

TEST_F(ReleaseBuild, LogKeepsTheEndOfLongOutput) {
  script("loud.js", "for (let i = 0; i < 5000; i++) console.log('line ' + i);");
  BuildLimits limits;
  limits.max_log_bytes = 1000;
  auto run = runBuildCommand({"node", "loud.js"}, work_.string(), buildEnv(), buildUser(), limits);
  ASSERT_TRUE(run.ok) << run.error;
  EXPECT_TRUE(run.log.starts_with("(earlier output cut)\n")) << run.log.substr(0, 100);
  EXPECT_LE(run.log.size(), 1000u + 21u);
  EXPECT_TRUE(run.log.ends_with("line 4999\n"));
}

TEST_F(ReleaseBuild, StaticSiteIsReadyWithoutABuild) {
  TarBuilder tar;
  tar.file("index.html", "<h1>hi</h1>").file("css/site.css", "h1{}");
  auto prepared = prepareRelease(input(tar.finish()));
  ASSERT_TRUE(prepared.ok()) << *prepared.error;
  EXPECT_EQ(prepared.files, 2u);
  EXPECT_EQ(prepared.bytes, 15u);
  ASSERT_TRUE(prepared.plan);
  EXPECT_EQ(prepared.plan->kind, StartKind::Static);
  EXPECT_TRUE(prepared.build_log.empty());
  // The release is berthd's, never the app's: the app cannot write in it.
  struct stat st {};
  ASSERT_EQ(::stat((release_ / "css/site.css").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(ReleaseBuild, SealTakesTheTreeBackWithoutWriteBits) {
  const fs::path tree = base_ / "built";
  fs::create_directories(tree / "node_modules" / ".bin");
  std::ofstream(tree / "node_modules" / "lib.js") << "x";
  std::ofstream(tree / "node_modules" / ".bin" / "tool") << "#!/bin/sh";
  ::chmod((tree / "node_modules" / "lib.js").c_str(), 0666);
  ::chmod((tree / "node_modules" / ".bin" / "tool").c_str(), 0777);
  ::chmod((tree / "node_modules").c_str(), 0777);
  fs::create_symlink("../lib.js", tree / "node_modules" / ".bin" / "lib");
  if (::geteuid() == 0) {
    ASSERT_FALSE(giveTreeTo(tree, *buildUser()));
  }
  const std::optional<RunAs> berthd =
      ::geteuid() == 0 ? std::optional<RunAs>(RunAs{::geteuid(), ::getegid()}) : std::nullopt;
  ASSERT_EQ(sealRelease(tree, berthd), std::nullopt);
  auto modeOf = [](const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    EXPECT_EQ(st.st_uid, ::geteuid()) << p;
    return st.st_mode & 07777;
  };
  EXPECT_EQ(modeOf(tree), 0755u);
  EXPECT_EQ(modeOf(tree / "node_modules"), 0755u);
  EXPECT_EQ(modeOf(tree / "node_modules" / "lib.js"), 0644u);
  EXPECT_EQ(modeOf(tree / "node_modules" / ".bin" / "tool"), 0755u);
  modeOf(tree / "node_modules" / ".bin" / "lib");  // the link itself, taken back too
}

TEST_F(ReleaseBuild, SealRefusesWhatABuildMustNotLeave) {
  const fs::path tree = base_ / "built";
  fs::create_directories(tree / "a");
  fs::create_symlink("/etc/passwd", tree / "a" / "leak");
  EXPECT_EQ(
      sealRelease(tree, std::nullopt),
      "the build step left a/leak, a link pointing outside the release, which is not allowed");
  fs::remove(tree / "a" / "leak");
  fs::create_symlink("..", tree / "a" / "up");
  fs::create_symlink("a/up/..", tree / "chain");
  EXPECT_EQ(sealRelease(tree, std::nullopt),
            "the build step left chain, a link pointing outside the release, which is not allowed");
  fs::remove(tree / "chain");
  ASSERT_EQ(::mkfifo((tree / "pipe").c_str(), 0644), 0);
  EXPECT_EQ(sealRelease(tree, std::nullopt),
            "the build step left pipe, a device file, fifo or socket, which is not allowed");
}

TEST_F(ReleaseBuild, RefusedArchiveLeavesNothing) {
  TarBuilder tar;
  tar.file("../evil", "x");
  auto prepared = prepareRelease(input(tar.finish()));
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(*prepared.error, "../evil: '..' is not allowed in a release path");
  EXPECT_FALSE(fs::exists(release_));
}

TEST_F(ReleaseBuild, NothingToRunFailsAndRemovesTheFolder) {
  TarBuilder tar;
  tar.file("README.md", "hello");
  auto prepared = prepareRelease(input(tar.finish()));
  ASSERT_FALSE(prepared.ok());
  EXPECT_TRUE(prepared.error->starts_with("nothing to run: ")) << *prepared.error;
  EXPECT_FALSE(fs::exists(release_));
}

TEST_F(ReleaseBuild, HeaderCommandIsChecked) {
  TarBuilder tar;
  tar.file("server.js", "");
  auto in = input(tar.finish());
  in.header = "node server.js && rm -rf /";
  auto prepared = prepareRelease(in);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(*prepared.error,
            "the start command is run directly, not through a shell, so it cannot contain &");
}

TEST_F(ReleaseBuild, NodeReleaseWithoutModulesIsInstalled) {
  if (!berth::runtime::toolOnPath("npm")) GTEST_SKIP() << "npm is not installed";
  // A local dependency: npm installs it without the network.
  TarBuilder tar;
  tar.file("package.json",
           R"({"name": "app", "version": "1.0.0", "scripts": {"start": "node server.js"},
               "dependencies": {"greeting": "file:./greeting"}})")
      .file("server.js", "console.log(require('greeting'));")
      .file("greeting/package.json", R"({"name": "greeting", "version": "1.0.0"})")
      .file("greeting/index.js", "module.exports = 'hello';");
  auto prepared = prepareRelease(input(tar.finish()));
  ASSERT_TRUE(prepared.ok()) << *prepared.error << "\n" << prepared.build_log;
  ASSERT_TRUE(prepared.plan);
  EXPECT_EQ(prepared.plan->build, (std::vector<std::string>{"npm", "install", "--omit=dev"}));
  EXPECT_TRUE(fs::exists(release_ / "node_modules" / "greeting" / "index.js"));
  EXPECT_EQ(prepared.plan->cmd, "node server.js");
}

TEST_F(ReleaseBuild, FailedInstallKeepsItsLog) {
  if (!berth::runtime::toolOnPath("npm")) GTEST_SKIP() << "npm is not installed";
  TarBuilder tar;
  tar.file("package.json", R"({"name": "app", "version": "1.0.0", "main": "server.js",
                                "dependencies": {"broken": "file:./broken"}})")
      .file("server.js", "")
      .file("broken/package.json", R"({"name": "broken", "version": "1.0.0"})")
      // A lock that does not match package.json: npm ci refuses it, without the network.
      .file("package-lock.json", R"({"name": "app", "version": "1.0.0", "lockfileVersion": 3,
                                     "requires": true, "packages": {"": {"name": "app",
                                     "version": "1.0.0"}}})");
  auto prepared = prepareRelease(input(tar.finish()));
  ASSERT_FALSE(prepared.ok());
  EXPECT_TRUE(prepared.error->starts_with("the build step npm ci --omit=dev exited with code "))
      << *prepared.error;
  EXPECT_FALSE(prepared.build_log.empty());
  EXPECT_FALSE(fs::exists(release_));
}

// --- static releases through the gateway ----------------------------------------------------

using berth::runtime::contentTypeFor;
using berth::runtime::StaticAnswer;
using berth::runtime::staticFileFor;

class StaticSite : public ReleaseUnpack {
 protected:
  void SetUp() override {
    ReleaseUnpack::SetUp();
    site_ = base_ / "site";
    for (const char* dir : {"about", "css", ".well-known", ".git", "empty"})
      fs::create_directories(site_ / dir);
    for (const char* file :
         {"index.html", "about/index.html", "css/site.css", ".env", ".well-known/security.txt",
          ".git/config", "space name.txt", "caf\xC3\xA9.txt"})
      std::ofstream(site_ / file) << file;
    fs::create_symlink("/etc", site_ / "etc");
    fs::create_symlink("css/site.css", site_ / "style.css");
  }
  StaticAnswer get(std::string_view path) { return staticFileFor(site_, path); }
  fs::path site_;
};

TEST_F(StaticSite, FilesAndFolderIndexes) {
  auto root = get("/");
  ASSERT_EQ(root.kind, StaticAnswer::Kind::File);
  EXPECT_EQ(root.path, (fs::canonical(site_) / "index.html").string());
  EXPECT_EQ(root.content_type, "text/html; charset=utf-8");
  auto css = get("/css/site.css");
  ASSERT_EQ(css.kind, StaticAnswer::Kind::File);
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
  EXPECT_EQ(get("/about/").path, (fs::canonical(site_) / "about/index.html").string());
  EXPECT_EQ(get("/space%20name.txt").kind, StaticAnswer::Kind::File);
  EXPECT_EQ(get("/caf%C3%A9.txt").kind, StaticAnswer::Kind::File);
  EXPECT_EQ(get("/style.css").kind, StaticAnswer::Kind::File) << "a link inside is followed";
  EXPECT_EQ(get("/.well-known/security.txt").kind, StaticAnswer::Kind::File);
}

TEST_F(StaticSite, FolderWithoutSlashIsRedirected) {
  auto about = get("/about");
  ASSERT_EQ(about.kind, StaticAnswer::Kind::Redirect);
  EXPECT_EQ(about.location, "/about/");
}

TEST_F(StaticSite, NothingOutsideHiddenOrMissing) {
  for (const char* path : {"/missing.html", "/../etc/passwd", "/css/../../x", "/%2e%2e/etc/passwd",
                           "/etc/passwd", "/.env", "/.git/config", "/bad%zzescape", "/trail%",
                           "/nul%00.txt", "/empty/", "relative.html", ""}) {
    EXPECT_EQ(get(path).kind, StaticAnswer::Kind::NotFound) << path;
  }
}

TEST(ContentType, ByExtension) {
  EXPECT_EQ(contentTypeFor("app.JS"), "text/javascript; charset=utf-8");
  EXPECT_EQ(contentTypeFor("logo.svg"), "image/svg+xml");
  EXPECT_EQ(contentTypeFor("font.woff2"), "font/woff2");
  EXPECT_EQ(contentTypeFor("data.bin"), "application/octet-stream");
  EXPECT_EQ(contentTypeFor("Makefile"), "application/octet-stream");
}

}  // namespace
