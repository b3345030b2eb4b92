// ctest-label: api (starts a real S3-compatible server, s3rver)
// The S3 backend against a real S3-compatible server: store, read, ranged read, list, delete,
// a project's objects removed and confirmed, a 60 MB upload streamed (the process never holds
// it), the local copy for the edge (filled on first use, verified by size and SHA-256, dated
// with the blob's time), a store that is down or silent (an error, nothing half-written),
// credentials (a file other users can read is refused; a key the store does not know is
// refused at start), the bound on the local copies (the least recently used evicted and
// fetched again, a copy just used kept, copies left by an earlier run counted at start).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "blob_names.hpp"
#include "s3_backend.hpp"
#include "sha256.hpp"
#include "support/s3rver_process.hpp"

using namespace berth::storage;
using namespace berth::testing;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Peak resident memory of this process, in bytes.
int64_t peakRss() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return 0;
}

class S3BackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store = new S3rverProcess();
    store->start();
  }
  static void TearDownTestSuite() {
    delete store;
    store = nullptr;
  }
  void SetUp() override {
    root = makeTempDir("s3-backend-root");
    if (!store->running()) store->start();
    backend = std::make_unique<S3Backend>(settings(), root + "/blobs");
  }
  void TearDown() override {
    backend.reset();
    removeTree(root);
  }
  static S3Settings settings() {
    S3Settings s;
    s.endpoint = store->endpoint();
    s.bucket = store->bucket();
    s.credentials = {S3rverProcess::kAccessKey, S3rverProcess::kSecret};
    s.connect_timeout_seconds = 2;
    s.stall_seconds = 2;
    return s;
  }
  std::vector<std::string> objectsOf(const std::string& group) {
    std::vector<std::string> names;
    for (const auto& o : backend->list(group)) names.push_back(o.object);
    std::sort(names.begin(), names.end());
    return names;
  }

  static S3rverProcess* store;
  std::string root;
  std::unique_ptr<S3Backend> backend;
};

S3rverProcess* S3BackendTest::store = nullptr;

TEST_F(S3BackendTest, StoresReadsRangesListsAndDeletes) {
  std::string object = newObjectName("proj-a");
  std::string bytes = "0123456789abcdefghij";
  StoredObject stored = backend->putBytes(object, bytes);
  EXPECT_EQ(stored.size, bytes.size());
  EXPECT_EQ(stored.sha256, Sha256::of(bytes));

  EXPECT_EQ(backend->read(object, 0, bytes.size()), bytes);
  EXPECT_EQ(backend->read(object, 5, 4), "5678") << "a ranged GET";
  EXPECT_EQ(backend->read(object, 18, 100), "ij") << "fewer at the end";
  EXPECT_EQ(backend->read(object, 3, 0), "");

  std::string file = root + "/source";
  spit(file, "from a file");
  std::string second = newObjectName("proj-a");
  EXPECT_EQ(backend->putFile(second, file, false).sha256, Sha256::of("from a file"));
  EXPECT_TRUE(fs::exists(file)) << "without move the source stays";
  EXPECT_EQ(backend->read(second, 0, 100), "from a file");

  std::vector<std::string> expected = {object, second};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(objectsOf("proj-a"), expected);
  auto groups = backend->groups();
  EXPECT_NE(std::find(groups.begin(), groups.end(), "proj-a"), groups.end());
  for (const auto& o : backend->list("proj-a")) EXPECT_GT(o.modified, 1700000000) << o.object;

  backend->remove(object);
  EXPECT_EQ(objectsOf("proj-a"), std::vector<std::string>{second});
  EXPECT_THROW(backend->read(object, 0, 1), BackendError) << "a removed object is not there";
  EXPECT_NO_THROW(backend->remove(object)) << "an absent object counts as removed";
}

TEST_F(S3BackendTest, AReplacementIsANewObjectAndTheOldOneGoes) {
  // What the store does on a replace: the new version under a new name, then the old removed;
  // a reader of the old version reads it whole until then.
  std::string v1 = newObjectName("proj-r");
  backend->putBytes(v1, "version one");
  std::string v2 = newObjectName("proj-r");
  backend->putBytes(v2, "version two, longer");
  EXPECT_EQ(backend->read(v1, 0, 100), "version one");
  backend->remove(v1);
  EXPECT_EQ(backend->read(v2, 0, 100), "version two, longer");
  EXPECT_EQ(objectsOf("proj-r"), std::vector<std::string>{v2});
}

TEST_F(S3BackendTest, RemoveGroupConfirmsNothingIsLeft) {
  for (int i = 0; i < 5; ++i) backend->putBytes(newObjectName("proj-g"), std::to_string(i));
  backend->putBytes(newObjectName("proj-other"), "stays");
  std::string spooled = root + "/blobs/spooled";
  spit(spooled, "kept as the local copy");
  std::string moved = newObjectName("proj-g");
  backend->putFile(moved, spooled, true);
  ASSERT_TRUE(fs::exists(backend->cachePath(moved)));
  backend->removeGroup("proj-g");
  EXPECT_TRUE(objectsOf("proj-g").empty());
  EXPECT_EQ(objectsOf("proj-other").size(), 1u);
  EXPECT_FALSE(fs::exists(backend->cacheDir() + "/proj-g"));
}

TEST_F(S3BackendTest, SixtyMegabytesStreamBothWays) {
  std::string file = root + "/big";
  Sha256 hash;
  {
    std::ofstream out(file, std::ios::binary);
    std::string chunk(1 << 20, '\0');
    for (int i = 0; i < 60; ++i) {
      for (size_t j = 0; j < chunk.size(); j += 64) chunk[j] = static_cast<char>(i * 7 + j);
      out << chunk;
      hash.update(chunk.data(), chunk.size());
    }
  }
  std::string digest = hash.hexDigest();
  int64_t before = peakRss();
  std::string object = newObjectName("proj-big");
  StoredObject stored = backend->putFile(object, file, false);
  EXPECT_EQ(stored.size, 60u << 20);
  EXPECT_EQ(stored.sha256, digest);
  // The local copy for the edge: a streamed GET into a temporary, verified, renamed.
  auto copy = backend->localCopy(object, stored, 1700000000);
  ASSERT_TRUE(copy);
  int64_t grew = peakRss() - before;
  EXPECT_LT(grew, 24 << 20) << "the 60 MB went through bounded buffers both ways";
  struct stat st {};
  ASSERT_EQ(::stat(copy->c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 60 << 20);
  EXPECT_EQ(st.st_mtime, 1700000000) << "dated with the blob's time (the edge's Last-Modified)";
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(backend->read(object, (60u << 20) - 3, 10).size(), 3u);
  backend->remove(object);
  EXPECT_FALSE(fs::exists(*copy)) << "the copy goes with its object";
}

TEST_F(S3BackendTest, LocalCopyIsVerifiedAndKeptFromAMovedUpload) {
  std::string object = newObjectName("proj-c");
  std::string file = root + "/blobs/spooled";
  spit(file, "spooled body");
  StoredObject stored = backend->putFile(object, file, /*move=*/true);
  EXPECT_FALSE(fs::exists(file)) << "the spooled body became the local copy";
  EXPECT_TRUE(fs::exists(backend->cachePath(object)));
  backend->setModified(object, 1650000000);
  auto copy = backend->localCopy(object, stored, 1650000000);
  EXPECT_EQ(slurp(*copy), "spooled body");

  // A copy that does not match what the row says is fetched again and checked: a store whose
  // bytes differ from the row's is an error, and nothing is left behind.
  std::string other = newObjectName("proj-c");
  backend->putBytes(other, "the real bytes");
  EXPECT_THROW(backend->localCopy(other, {14, Sha256::of("other bytes!!!")}, 1), BackendError);
  EXPECT_FALSE(fs::exists(backend->cachePath(other)));
  EXPECT_TRUE(fs::is_empty(backend->temporaryDir()));
  auto good = backend->localCopy(other, {14, Sha256::of("the real bytes")}, 1);
  EXPECT_EQ(slurp(*good), "the real bytes");
}

TEST_F(S3BackendTest, AStoreThatIsDownFailsThePutAndWritesNothing) {
  std::string file = root + "/body";
  spit(file, std::string(3 << 20, 'x'));
  store->stop();
  std::string object = newObjectName("proj-down");
  EXPECT_THROW(backend->putFile(object, file, true), BackendError) << "connection refused";
  EXPECT_TRUE(fs::exists(file)) << "a put that failed did not take the body";
  EXPECT_THROW(backend->read(object, 0, 1), BackendError);
  store->start();
  EXPECT_TRUE(objectsOf("proj-down").empty()) << "nothing half-written";

  // A store that accepts the connection and never answers: the stall limit (2 s here, plus
  // curl's 5 s speed window after the body went into the socket buffers, per attempt).
  store->pause();
  auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(backend->putFile(object, file, false), BackendError);
  auto took = std::chrono::steady_clock::now() - started;
  store->resume();
  EXPECT_LT(took, std::chrono::seconds(45));
  // The store, resumed, reads what was left in the socket: s3rver then keeps a truncated body
  // of a PutObject cut off mid-way (it checks neither Content-Length nor x-amz-content-sha256;
  // AWS S3, MinIO and the others refuse it). The plugin never refers to it (the put failed:
  // no row, and storage.sweep removes it), and a local copy of it is refused, so it is never
  // served.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::string whole(3 << 20, 'x');
  StoredObject expected{whole.size(), Sha256::of(whole)};
  for (const auto& o : backend->list("proj-down")) {
    std::string kept = backend->read(o.object, 0, 4u << 20);
    RecordProperty("kept_by_the_store_after_the_stall", std::to_string(kept.size()));
    if (kept != whole) {
      EXPECT_THROW(backend->localCopy(o.object, expected, 1), BackendError);
    }
    EXPECT_FALSE(fs::exists(backend->cachePath(o.object)));
  }
}

// Blobs of 30 KB put in the store (no local copy yet): name and bytes.
struct Stored {
  std::string object;
  std::string bytes;
  StoredObject meta;
};

Stored storeBlob(S3Backend& backend, char fill) {
  Stored b{newObjectName("proj-lru"), std::string(30 * 1024, fill), {}};
  b.meta = backend.putBytes(b.object, b.bytes);
  return b;
}

TEST_F(S3BackendTest, CopiesPastTheBoundEvictTheLeastRecentlyUsed) {
  // 100 KB of copies at most, no grace: three 30 KB copies fit, a fourth passes the bound.
  S3Backend cache(settings(), root + "/bounded", 100 * 1024, std::chrono::milliseconds(0));
  Stored a = storeBlob(cache, 'a'), b = storeBlob(cache, 'b'), c = storeBlob(cache, 'c'),
         d = storeBlob(cache, 'd');
  size_t evictions = 0;
  cache.onEvicted([&](size_t n) { evictions += n; });
  for (const Stored* blob : {&a, &b, &c}) ASSERT_TRUE(cache.localCopy(blob->object, blob->meta, 1));
  EXPECT_EQ(cache.cachedBytes(), 90u * 1024);
  EXPECT_EQ(evictions, 0u);
  // a is read again: b is now the least recently used, though a was filled first.
  ASSERT_TRUE(cache.localCopy(a.object, a.meta, 1));
  ASSERT_TRUE(cache.localCopy(d.object, d.meta, 1));
  EXPECT_EQ(evictions, 1u);
  EXPECT_TRUE(fs::exists(cache.cachePath(a.object))) << "a recently used copy survives";
  EXPECT_FALSE(fs::exists(cache.cachePath(b.object))) << "the least recently used goes";
  EXPECT_TRUE(fs::exists(cache.cachePath(c.object)));
  EXPECT_TRUE(fs::exists(cache.cachePath(d.object)));
  EXPECT_EQ(cache.cachedBytes(), 90u * 1024);

  // The evicted blob is fetched again on its next read, with its bytes; c goes in turn.
  auto again = cache.localCopy(b.object, b.meta, 1);
  ASSERT_TRUE(again);
  EXPECT_EQ(slurp(*again), b.bytes);
  EXPECT_FALSE(fs::exists(cache.cachePath(c.object)));
  EXPECT_EQ(cache.cachedCopies(), 3u);
}

TEST_F(S3BackendTest, ACopyBeingServedIsNotEvicted) {
  // Its descriptor survives an unlink, but a path handed out and not yet opened would not:
  // a copy used within the grace stays, even past the bound.
  S3Backend cache(settings(), root + "/grace", 50 * 1024, std::chrono::minutes(1));
  Stored a = storeBlob(cache, 'a'), b = storeBlob(cache, 'b');
  auto first = cache.localCopy(a.object, a.meta, 1);
  int fd = ::open(first->c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(cache.localCopy(b.object, b.meta, 1));
  EXPECT_TRUE(fs::exists(*first)) << "used a moment ago: not evicted";
  EXPECT_EQ(cache.cachedBytes(), 60u * 1024);
  ::close(fd);

  // Without the grace it goes, and a descriptor opened before still reads every byte.
  S3Backend strict(settings(), root + "/grace", 50 * 1024, std::chrono::milliseconds(0));
  EXPECT_LE(strict.cachedBytes(), 45u * 1024) << "the bound applied at start";
  Stored c = storeBlob(strict, 'c');
  auto open_copy = strict.localCopy(c.object, c.meta, 1);
  int open_fd = ::open(open_copy->c_str(), O_RDONLY);
  ASSERT_GE(open_fd, 0);
  Stored e = storeBlob(strict, 'e');
  ASSERT_TRUE(strict.localCopy(e.object, e.meta, 1));
  EXPECT_FALSE(fs::exists(*open_copy));
  std::string read_back(c.bytes.size(), '\0');
  EXPECT_EQ(::pread(open_fd, read_back.data(), read_back.size(), 0),
            static_cast<ssize_t>(c.bytes.size()));
  EXPECT_EQ(read_back, c.bytes) << "an open descriptor outlives the eviction";
  ::close(open_fd);
}

TEST_F(S3BackendTest, CopiesLeftByAnEarlierRunCountAndTheBoundHoldsAtStart) {
  std::string dir = root + "/restart";
  std::vector<Stored> blobs;
  {
    S3Backend first(settings(), dir, 10 << 20, std::chrono::milliseconds(0));
    for (char fill : {'w', 'x', 'y', 'z'}) {
      blobs.push_back(storeBlob(first, fill));
      ASSERT_TRUE(first.localCopy(blobs.back().object, blobs.back().meta, 1));
    }
    // The order of use an earlier run leaves: atime (set here, as relatime may not).
    for (size_t i = 0; i < blobs.size(); ++i) {
      timespec times[2] = {{static_cast<time_t>(1700000000 + i), 0}, {0, UTIME_OMIT}};
      ASSERT_EQ(::utimensat(AT_FDCWD, first.cachePath(blobs[i].object).c_str(), times, 0), 0);
    }
  }
  {
    S3Backend counted(settings(), dir, 10 << 20, std::chrono::milliseconds(0));
    EXPECT_EQ(counted.cachedCopies(), 4u) << "copies from before are counted";
    EXPECT_EQ(counted.cachedBytes(), 120u * 1024);
  }
  // A smaller bound at start: the oldest two go, down to a tenth below 70 KB.
  S3Backend bounded(settings(), dir, 70 * 1024, std::chrono::milliseconds(0));
  EXPECT_EQ(bounded.cachedCopies(), 2u);
  EXPECT_EQ(bounded.cachedBytes(), 60u * 1024);
  EXPECT_FALSE(fs::exists(bounded.cachePath(blobs[0].object)));
  EXPECT_FALSE(fs::exists(bounded.cachePath(blobs[1].object)));
  EXPECT_TRUE(fs::exists(bounded.cachePath(blobs[2].object)));
  EXPECT_TRUE(fs::exists(bounded.cachePath(blobs[3].object)));
  auto back = bounded.localCopy(blobs[0].object, blobs[0].meta, 1);
  EXPECT_EQ(slurp(*back), blobs[0].bytes) << "an evicted copy is fetched again, whole";
}

TEST_F(S3BackendTest, CredentialsTheStoreDoesNotKnowStopTheStart) {
  S3Settings s = settings();
  s.credentials = {"NOT-A-KEY", "wrong"};
  S3Backend wrong(s, root + "/other");
  try {
    wrong.probe();
    FAIL() << "a key the store does not know was accepted";
  } catch (const S3Error& e) {
    EXPECT_EQ(e.status(), 403);
    EXPECT_NE(std::string(e.what()).find("InvalidAccessKeyId"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(backend->probe());
}

TEST(S3Credentials, AFileOthersCanReadIsRefused) {
  std::string dir = makeTempDir("s3-credentials");
  std::string file = dir + "/credentials";
  spit(file, "[default]\naws_access_key_id = AKID\naws_secret_access_key = SECRET/KEY\n");
  ::chmod(file.c_str(), 0644);
  try {
    loadS3Credentials(file);
    FAIL() << "a world-readable credentials file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "storage.s3_credentials_file " + file +
                  " has mode 0644: other users could read the secret; make it 0600 (chmod 600 " +
                  file + ")");
  }
  ::chmod(file.c_str(), 0640);
  EXPECT_THROW(loadS3Credentials(file), std::runtime_error) << "group-readable too";
  ::chmod(file.c_str(), 0600);
  sigv4::Credentials c = loadS3Credentials(file);
  EXPECT_EQ(c.access_key_id, "AKID");
  EXPECT_EQ(c.secret_access_key, "SECRET/KEY");

  spit(file, "[other]\naws_access_key_id = X\n");
  EXPECT_THROW(loadS3Credentials(file), std::runtime_error) << "no keys in [default]";
  fs::create_symlink(file, dir + "/link");
  EXPECT_THROW(loadS3Credentials(dir + "/link"), std::runtime_error) << "no symbolic links";

  // Without a file: the environment.
  ::setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET", 1);
  EXPECT_EQ(loadS3Credentials("").access_key_id, "ENVKEY");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  EXPECT_THROW(loadS3Credentials(""), std::runtime_error);
  ::unsetenv("AWS_ACCESS_KEY_ID");
  removeTree(dir);
}

TEST(S3Settings, EndpointAndBucketAreChecked) {
  S3Settings s;
  s.endpoint = "http://127.0.0.1:9000";
  s.bucket = "berth-blobs";
  EXPECT_NO_THROW(checkS3Settings(s));
  s.endpoint = "127.0.0.1:9000";
  EXPECT_THROW(checkS3Settings(s), std::runtime_error);
  s.endpoint = "https://s3.example.com/bucket";
  EXPECT_THROW(checkS3Settings(s), std::runtime_error) << "a path in the endpoint";
  s.endpoint = "https://s3.example.com";
  s.bucket = "Bad_Bucket";
  EXPECT_THROW(checkS3Settings(s), std::runtime_error);
}

}  // namespace
