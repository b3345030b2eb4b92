// The storage plugin's logic without berthd: the rules for stored-file paths and their URL
// spelling, the mime table (a given text and the system's /etc/mime.types), SHA-256, blob and
// object names, and the local backend: what it writes, moves, reads and removes, and that a
// write killed at any moment leaves no partial object (a child process killed mid-write).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "blob_names.hpp"
#include "file_paths.hpp"
#include "local_backend.hpp"
#include "mime_types.hpp"
#include "sha256.hpp"
#include "support/berthd_process.hpp"

using namespace berth::storage;
namespace fs = std::filesystem;

namespace {

// ---- paths ----------------------------------------------------------------------------------

TEST(FilePaths, AcceptsOrdinaryUnicodeAndOddButHarmlessPaths) {
  for (const std::string& path : std::vector<std::string>{
           "a", "index.html", "a/b c/\xC3\xBC.txt", "100%.txt", "x+y.txt", "q?x#y.txt",
           "\xE6\x97\xA5\xE6\x9C\xAC/data.json", "...", "a/.b/..c", ".env", std::string(1024, 'a')})
    EXPECT_EQ(pathRefusal(path), std::nullopt) << path;
}

TEST(FilePaths, RefusesEachBadPathWithItsReason) {
  const std::string segments = "a file path cannot have . or .. segments";
  const std::string empty_segment =
      "a file path cannot have empty segments (no leading, trailing or double /)";
  struct Case {
    std::string path, reason;
  };
  for (const Case& c : std::vector<Case>{
           {"", "a file path cannot be empty"},
           {std::string(1025, 'a'), "a file path can be at most 1024 bytes"},
           {std::string("a\0b", 3), "a file path cannot contain a NUL byte"},
           {"a\\b", "a file path cannot contain a backslash"},
           {"a\nb", "a file path cannot contain control characters"},
           {"a\x7F", "a file path cannot contain control characters"},
           {"\xFF.txt", "a file path must be UTF-8 text"},
           {".", segments},
           {"..", segments},
           {"a/../b", segments},
           {"a/./b", segments},
           {"a/..", segments},
           {"./a", segments},
           {"a//b", empty_segment},
           {"/a", empty_segment},
           {"a/", empty_segment},
       })
    EXPECT_EQ(pathRefusal(c.path).value_or("<accepted>"), c.reason) << c.path;
}

TEST(FilePaths, Utf8CheckRefusesOverlongSurrogateTruncatedAndOutOfRange) {
  EXPECT_TRUE(isUtf8("plain"));
  EXPECT_TRUE(isUtf8("\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80"));  // ü € 😀
  EXPECT_FALSE(isUtf8("\xC0\x80"));                             // overlong NUL
  EXPECT_FALSE(isUtf8("\xE0\x80\xAF"));                         // overlong '/'
  EXPECT_FALSE(isUtf8("\xED\xA0\x80"));                         // a surrogate
  EXPECT_FALSE(isUtf8("\xF4\x90\x80\x80"));                     // past U+10FFFF
  EXPECT_FALSE(isUtf8("\xE2\x82"));                             // truncated
  EXPECT_FALSE(isUtf8("\x80"));                                 // a lone continuation
}

TEST(FilePaths, UrlPathEncodesEverythingButUnreservedAndSlash) {
  EXPECT_EQ(urlPath("a/b c/\xC3\xBC.txt"), "a/b%20c/%C3%BC.txt");
  EXPECT_EQ(urlPath("100%.txt"), "100%25.txt");
  EXPECT_EQ(urlPath("q?x#y&z=1+2.txt"), "q%3Fx%23y%26z%3D1%2B2.txt");
  EXPECT_EQ(urlPath("A-Z_a.z~0/9"), "A-Z_a.z~0/9");
  EXPECT_EQ(baseName("a/b/c.txt"), "c.txt");
  EXPECT_EQ(baseName("c.txt"), "c.txt");
}

// ---- mime types -----------------------------------------------------------------------------

TEST(MimeTable, ReadsTypesByExtensionWithoutCaseAndFallsBack) {
  MimeTable table = MimeTable::fromText(
      "# a comment\n"
      "text/html\t\thtml htm  # trailing comment\n"
      "application/gzip gz\n"
      "image/jpeg jpeg jpg jpe\n"
      "application/x-first dup\n"
      "application/x-second dup\n"
      "not-a-type ignored\n"
      "application/x-none\n");
  EXPECT_EQ(table.size(), 7u);
  EXPECT_EQ(table.typeOf("index.html"), "text/html");
  EXPECT_EQ(table.typeOf("dir/PAGE.HTM"), "text/html");
  EXPECT_EQ(table.typeOf("photos/2024/a.b.JPG"), "image/jpeg");
  EXPECT_EQ(table.typeOf("release.tar.gz"), "application/gzip");
  EXPECT_EQ(table.typeOf("x.dup"), "application/x-first");
  EXPECT_EQ(table.typeOf("x.ignored"), "application/octet-stream");
  EXPECT_EQ(table.typeOf("README"), "application/octet-stream");
  EXPECT_EQ(table.typeOf(".html"), "application/octet-stream");  // a hidden file, no extension
  EXPECT_EQ(table.typeOf("x."), "application/octet-stream");
  EXPECT_EQ(table.typeOf("a.html/file"), "application/octet-stream");  // the last segment counts
}

TEST(MimeTable, TheSystemTableKnowsTheWebTypes) {
  ASSERT_TRUE(fs::exists("/etc/mime.types")) << "install media-types (scripts/install-deps.sh)";
  MimeTable table = MimeTable::fromFile("/etc/mime.types");
  EXPECT_GT(table.size(), 500u);
  EXPECT_EQ(table.typeOf("a.html"), "text/html");
  EXPECT_EQ(table.typeOf("a.css"), "text/css");
  EXPECT_EQ(table.typeOf("a.json"), "application/json");
  EXPECT_EQ(table.typeOf("a.png"), "image/png");
  EXPECT_EQ(table.typeOf("a.svg"), "image/svg+xml");
  EXPECT_EQ(table.typeOf("a.pdf"), "application/pdf");
  EXPECT_EQ(table.typeOf("a.txt"), "text/plain");
  EXPECT_EQ(table.typeOf("a.unknownext"), "application/octet-stream");
  EXPECT_THROW(MimeTable::fromFile("/nonexistent/mime.types"), std::runtime_error);
}

TEST(MimeTable, TheBuiltInTableCoversTheCommonTypes) {
  MimeTable table = MimeTable::builtIn();
  EXPECT_EQ(table.typeOf("a.js"), "text/javascript");
  EXPECT_EQ(table.typeOf("a.woff2"), "font/woff2");
  EXPECT_EQ(table.typeOf("a.zzz"), "application/octet-stream");
}

// ---- hashes and names -----------------------------------------------------------------------

TEST(Sha256, MatchesKnownDigestsWholeAndInPieces) {
  EXPECT_EQ(Sha256::of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256::of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 pieces;
  pieces.update("a", 1);
  pieces.update("bc", 2);
  EXPECT_EQ(pieces.hexDigest(), Sha256::of("abc"));
}

TEST(BlobNames, ChecksProjectIdsSpacesAndKeys) {
  EXPECT_EQ(projectIdRefusal("0a1b-c_D"), std::nullopt);
  EXPECT_NE(projectIdRefusal(""), std::nullopt);
  EXPECT_NE(projectIdRefusal("../x"), std::nullopt);
  EXPECT_NE(projectIdRefusal(std::string(65, 'a')), std::nullopt);
  EXPECT_EQ(spaceRefusal("files"), std::nullopt);
  EXPECT_EQ(spaceRefusal("release-archives_2"), std::nullopt);
  for (const std::string& bad :
       std::vector<std::string>{"", "Files", "1files", "fi/les", std::string(33, 'a')})
    EXPECT_EQ(spaceRefusal(bad).value_or(""),
              "space must be 1 to 32 of [a-z0-9_-], starting with a letter")
        << bad;
  EXPECT_EQ(keyRefusal("any/key with spaces/../and dots"), std::nullopt);
  EXPECT_EQ(keyRefusal("").value_or(""), "key cannot be empty");
  EXPECT_EQ(keyRefusal(std::string(1025, 'k')).value_or(""), "key can be at most 1024 bytes");
  EXPECT_EQ(keyRefusal(std::string("a\0b", 3)).value_or(""), "key cannot contain a NUL byte");
  EXPECT_EQ(keyRefusal("\xFF").value_or(""), "key must be UTF-8 text");
}

TEST(BlobNames, ObjectNamesAreRandomAndOnlyTheirOwnShapeParses) {
  std::string a = newObjectName("p1"), b = newObjectName("p1");
  EXPECT_NE(a, b);
  auto parsed = parseObjectName(a);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->group, "p1");
  EXPECT_EQ(parsed->id.size(), 32u);
  for (const std::string& bad : std::vector<std::string>{
           "p1", "p1/", "../" + parsed->id, "p1/" + parsed->id + "/x", "p1/../../etc/passwd",
           "p1/" + std::string(32, 'G'), "/" + parsed->id})
    EXPECT_FALSE(parseObjectName(bad)) << bad;
}

// ---- the local backend ----------------------------------------------------------------------

using berth::testing::readFile;
using berth::testing::writeFile;

std::string everyByte(size_t repeat) {
  std::string out;
  for (size_t r = 0; r < repeat; ++r)
    for (int b = 0; b < 256; ++b) out.push_back(static_cast<char>(b));
  return out;
}

size_t entries(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) ++n;
  return n;
}

class LocalBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = berth::testing::makeTempDir("storage-logic");
    backend_ = std::make_unique<LocalBackend>(dir_ + "/data/blobs");
  }
  void TearDown() override { berth::testing::removeTree(dir_); }

  std::string dir_;
  std::unique_ptr<LocalBackend> backend_;
};

TEST_F(LocalBackendTest, MakesItsFoldersReadableByOtherUsers) {
  for (const std::string& d :
       {backend_->root(), backend_->objectsDir(), backend_->temporaryDir()}) {
    struct stat st {};
    ASSERT_EQ(::stat(d.c_str(), &st), 0) << d;
    EXPECT_EQ(st.st_mode & 0777, 0755u) << d;
  }
  EXPECT_THROW(LocalBackend("relative/blobs"), BackendError);
}

TEST_F(LocalBackendTest, PutBytesStoresThemWholeWithTheirHash) {
  std::string object = newObjectName("p1");
  std::string bytes = everyByte(3);
  StoredObject stored = backend_->putBytes(object, bytes);
  EXPECT_EQ(stored.size, bytes.size());
  EXPECT_EQ(stored.sha256, Sha256::of(bytes));
  auto path = backend_->localPath(object);
  ASSERT_TRUE(path);
  EXPECT_EQ(path->rfind(backend_->objectsDir() + "/p1/", 0), 0u) << *path;
  EXPECT_EQ(readFile(*path), bytes);
  struct stat st {};
  ASSERT_EQ(::stat(path->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(entries(backend_->temporaryDir()), 0u);

  std::string empty_object = newObjectName("p1");
  EXPECT_EQ(backend_->putBytes(empty_object, "").sha256, Sha256::of(""));
  EXPECT_EQ(readFile(*backend_->localPath(empty_object)), "");
}

TEST_F(LocalBackendTest, PutFileCopiesAndLeavesTheSource) {
  std::string source = dir_ + "/source.bin";
  std::string bytes = everyByte(5000);  // over one copy buffer
  writeFile(source, bytes);
  std::string object = newObjectName("p1");
  StoredObject stored = backend_->putFile(object, source, /*move=*/false);
  EXPECT_EQ(stored.size, bytes.size());
  EXPECT_EQ(stored.sha256, Sha256::of(bytes));
  EXPECT_EQ(readFile(*backend_->localPath(object)), bytes);
  EXPECT_EQ(readFile(source), bytes);
  EXPECT_EQ(entries(backend_->temporaryDir()), 0u);
}

TEST_F(LocalBackendTest, PutFileMovesAFileOfTheSameFileSystem) {
  std::string source = dir_ + "/data/spooled";
  std::string bytes = everyByte(100);
  writeFile(source, bytes);
  ::chmod(source.c_str(), 0600);  // as the edge spools bodies
  std::string object = newObjectName("p1");
  StoredObject stored = backend_->putFile(object, source, /*move=*/true);
  EXPECT_EQ(stored.sha256, Sha256::of(bytes));
  EXPECT_FALSE(fs::exists(source));
  std::string path = *backend_->localPath(object);
  EXPECT_EQ(readFile(path), bytes);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // readable by the edge's workers
}

TEST_F(LocalBackendTest, PutFileCopiesWhenAMoveWouldCrossFileSystems) {
  struct stat shm {
  }, ours{};
  if (::stat("/dev/shm", &shm) != 0 || ::stat(dir_.c_str(), &ours) != 0 ||
      shm.st_dev == ours.st_dev)
    GTEST_SKIP() << "no second file system at /dev/shm";
  std::string source = "/dev/shm/berth-storage-test-" + std::to_string(::getpid());
  writeFile(source, "across");
  std::string object = newObjectName("p1");
  backend_->putFile(object, source, /*move=*/true);
  EXPECT_EQ(readFile(*backend_->localPath(object)), "across");
  EXPECT_TRUE(fs::exists(source));  // copied, so the caller still owns it
  ::unlink(source.c_str());
}

TEST_F(LocalBackendTest, AFailedWriteLeavesNeitherObjectNorTemporary) {
  std::string object = newObjectName("p1");
  EXPECT_THROW(backend_->putFile(object, dir_ + "/missing", false), BackendError);
  EXPECT_THROW(backend_->putFile(object, dir_, false), BackendError);  // a directory
  EXPECT_THROW(backend_->putFile(object, dir_, true), BackendError);
  EXPECT_FALSE(fs::exists(*backend_->localPath(object)));
  EXPECT_EQ(entries(backend_->temporaryDir()), 0u);
}

TEST_F(LocalBackendTest, RefusesObjectNamesThatAreNotItsOwn) {
  for (const std::string& bad :
       std::vector<std::string>{"../../etc/passwd", "p1/../x", "p1", "p1/abc"}) {
    EXPECT_THROW(backend_->putBytes(bad, "x"), BackendError) << bad;
    EXPECT_THROW(backend_->localPath(bad), BackendError) << bad;
    EXPECT_THROW(backend_->remove(bad), BackendError) << bad;
  }
  EXPECT_THROW(backend_->removeGroup("../.."), BackendError);
}

TEST_F(LocalBackendTest, ReadsSlices) {
  std::string object = newObjectName("p1");
  backend_->putBytes(object, "0123456789");
  EXPECT_EQ(backend_->read(object, 0, 10), "0123456789");
  EXPECT_EQ(backend_->read(object, 3, 4), "3456");
  EXPECT_EQ(backend_->read(object, 8, 100), "89");
  EXPECT_EQ(backend_->read(object, 10, 5), "");
  EXPECT_THROW(backend_->read(newObjectName("p1"), 0, 1), BackendError);
}

TEST_F(LocalBackendTest, SetModifiedDatesTheObject) {
  std::string object = newObjectName("p1");
  backend_->putBytes(object, "x");
  backend_->setModified(object, 1700000000);
  struct stat st {};
  ASSERT_EQ(::stat(backend_->localPath(object)->c_str(), &st), 0);
  EXPECT_EQ(st.st_mtime, 1700000000);
  auto listed = backend_->list("p1");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].object, object);
  EXPECT_EQ(listed[0].modified, 1700000000);
}

TEST_F(LocalBackendTest, RemoveTakesOneObjectAndToleratesAbsentOnes) {
  std::string a = newObjectName("p1"), b = newObjectName("p1");
  backend_->putBytes(a, "a");
  backend_->putBytes(b, "b");
  backend_->remove(a);
  backend_->remove(a);
  EXPECT_FALSE(fs::exists(*backend_->localPath(a)));
  EXPECT_TRUE(fs::exists(*backend_->localPath(b)));
  EXPECT_EQ(backend_->list("p1").size(), 1u);
}

TEST_F(LocalBackendTest, RemoveGroupTakesEveryObjectOfOneGroupOnly) {
  for (int i = 0; i < 20; ++i) backend_->putBytes(newObjectName("p1"), std::to_string(i));
  std::string other = newObjectName("p2");
  backend_->putBytes(other, "keep");
  EXPECT_EQ(backend_->groups().size(), 2u);
  backend_->removeGroup("p1");
  EXPECT_FALSE(fs::exists(backend_->objectsDir() + "/p1"));
  EXPECT_EQ(readFile(*backend_->localPath(other)), "keep");
  EXPECT_EQ(backend_->groups(), std::vector<std::string>{"p2"});
  backend_->removeGroup("p1");  // nothing left: confirmed
}

TEST_F(LocalBackendTest, RemoveGroupReportsWhatItCouldNotRemoveAndCanBeRepeated) {
  std::string object = newObjectName("p1");
  backend_->putBytes(object, "x");
  std::string shard = fs::path(*backend_->localPath(object)).parent_path().string();
  // Something unlink() cannot take: a directory that is not empty.
  fs::create_directories(shard + "/obstacle/inside");
  EXPECT_THROW(backend_->removeGroup("p1"), BackendError);
  EXPECT_TRUE(fs::exists(backend_->objectsDir() + "/p1"));
  fs::remove_all(shard + "/obstacle");
  backend_->removeGroup("p1");
  EXPECT_FALSE(fs::exists(backend_->objectsDir() + "/p1"));
}

TEST_F(LocalBackendTest, CleanTemporaryRemovesOnlyOldUnfinishedWrites) {
  std::string old_part = backend_->temporaryDir() + "/abc.part";
  std::string new_part = backend_->temporaryDir() + "/def.part";
  std::string other = backend_->temporaryDir() + "/notes.txt";
  writeFile(old_part, "half");
  writeFile(new_part, "half");
  writeFile(other, "keep");
  timespec old_time[2] = {{1000, 0}, {1000, 0}};
  ::utimensat(AT_FDCWD, old_part.c_str(), old_time, 0);
  EXPECT_EQ(backend_->cleanTemporary(2000), 1u);
  EXPECT_FALSE(fs::exists(old_part));
  EXPECT_TRUE(fs::exists(new_part));
  EXPECT_EQ(backend_->cleanTemporary(std::numeric_limits<int64_t>::max()), 1u);
  EXPECT_FALSE(fs::exists(new_part));
  EXPECT_TRUE(fs::exists(other));
}

// A child process writes 4 MB objects in a loop and is killed with SIGKILL at some point of
// a write; whatever moment that was, every object in the store is whole, and the unfinished
// write is at most a temporary that cleanTemporary() removes.
TEST_F(LocalBackendTest, AWriteKilledAtAnyMomentLeavesNoPartialObject) {
  std::string source = dir_ + "/big.bin";
  std::string bytes = everyByte(16 * 1024);  // 4 MB
  writeFile(source, bytes);
  std::string digest = Sha256::of(bytes);
  std::string marker = dir_ + "/first-done";
  for (int round = 0; round < 3; ++round) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        LocalBackend backend(backend_->root());
        for (int i = 0;; ++i) {
          backend.putFile(newObjectName("crash"), source, /*move=*/false);
          if (i == 0) writeFile(marker, "1");
        }
      } catch (...) {
        ::_exit(1);
      }
    }
    while (!fs::exists(marker)) {
      int early = 0;
      if (::waitpid(child, &early, WNOHANG) == child) FAIL() << "the writer failed on its own";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(7 * (round + 1)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    fs::remove(marker);
  }
  auto objects = backend_->list("crash");
  ASSERT_GE(objects.size(), 3u);
  for (const auto& listed : objects) {
    std::string path = *backend_->localPath(listed.object);
    EXPECT_EQ(fs::file_size(path), bytes.size()) << listed.object;
    EXPECT_EQ(Sha256::of(readFile(path)), digest) << listed.object;
  }
  backend_->cleanTemporary(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(entries(backend_->temporaryDir()), 0u);
}

}  // namespace
