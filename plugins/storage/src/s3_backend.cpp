#include "s3_backend.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "blob_names.hpp"
#include "sha256.hpp"

namespace berth::storage {

namespace {

constexpr size_t kChunk = 1 << 20;
constexpr mode_t kDirMode = 0755;
constexpr mode_t kFileMode = 0644;

std::string failure(const std::string& what, const std::string& path, int error) {
  return what + " " + path + ": " + std::system_category().message(error);
}

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// Size and SHA-256 of a file, read through a bounded buffer (the payload hash must be known
// before the first byte is sent).
StoredObject measure(int fd, const std::string& path) {
  std::vector<char> buffer(kChunk);
  Sha256 hash;
  StoredObject out;
  while (true) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      throw BackendError(failure("cannot read", path, errno));
    }
    if (got == 0) break;
    hash.update(buffer.data(), static_cast<size_t>(got));
    out.size += static_cast<uint64_t>(got);
  }
  out.sha256 = hash.hexDigest();
  return out;
}

void makeDirs(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw BackendError("cannot create " + dir + ": " + error.message());
  ::chmod(dir.c_str(), kDirMode);
}

std::string parentOf(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

}  // namespace

S3Backend::S3Backend(S3Settings settings, std::string root, uint64_t cache_bytes,
                     std::chrono::milliseconds grace)
    : client_(std::move(settings)), root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty() || root_[0] != '/')
    throw BackendError("the blob directory must be an absolute path: " + root_);
  makeDirs(root_);
  makeDirs(cacheDir());
  makeDirs(temporaryDir());
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0) throw BackendError(failure("cannot stat", root_, errno));
  device_ = st.st_dev;
  cache_ = std::make_unique<CopyCache>(cacheDir(), cache_bytes, grace);
}

void S3Backend::addedCopy(const std::string& path, uint64_t size) const {
  if (!cache_->added(path, size)) return;
  size_t evicted = cache_->evict();
  if (evicted > 0 && on_evicted_) on_evicted_(evicted);
}

void S3Backend::probe() const {
  client_.list("", "/", std::nullopt);
}

std::string S3Backend::cachePath(const std::string& object) const {
  auto name = parseObjectName(object);
  if (!name) throw BackendError("not an object name: " + object);
  return cacheDir() + "/" + name->group + "/" + name->id.substr(0, 2) + "/" + name->id;
}

StoredObject S3Backend::putFile(const std::string& object, const std::string& source, bool move) {
  std::string copy = cachePath(object);  // checks the name before anything is sent
  Fd fd(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0) throw BackendError(failure("cannot open", source, errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw BackendError(source + " is not a regular file");
  StoredObject stored = measure(fd.fd, source);
  client_.put(object, source, stored.size, stored.sha256);
  if (move) keepAsCopy(object, source);
  return stored;
}

// The edge's spooled body, once stored, becomes the local copy when it is on the cache's file
// system (a rename, no copy); otherwise it is left where it is and the first read fills the
// copy. A failure here costs a download later, never the put.
void S3Backend::keepAsCopy(const std::string& object, const std::string& source) const {
  std::string target = cachePath(object);
  Fd fd(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0 || st.st_dev != device_) return;
  if (::fchmod(fd.fd, kFileMode) != 0) return;
  try {
    makeDirs(parentOf(target));
  } catch (const BackendError&) {
    return;
  }
  if (::rename(source.c_str(), target.c_str()) == 0)
    addedCopy(target, static_cast<uint64_t>(st.st_size));
}

StoredObject S3Backend::putBytes(const std::string& object, std::string_view bytes) {
  cachePath(object);
  StoredObject stored{bytes.size(), Sha256::of(bytes)};
  client_.putBytes(object, bytes, stored.sha256);
  return stored;
}

void S3Backend::setModified(const std::string& object, int64_t unix_seconds) {
  // The store keeps its own LastModified; only a local copy carries the blob's time.
  std::string copy = cachePath(object);
  timespec times[2] = {{static_cast<time_t>(unix_seconds), 0},
                       {static_cast<time_t>(unix_seconds), 0}};
  if (::utimensat(AT_FDCWD, copy.c_str(), times, 0) != 0 && errno != ENOENT)
    throw BackendError(failure("cannot set the time of", copy, errno));
}

std::optional<std::string> S3Backend::localCopy(const std::string& object,
                                                const StoredObject& expected,
                                                int64_t modified) const {
  std::string copy = cachePath(object);
  // The use is recorded before the file is looked at: an eviction can then no longer pick it
  // (grace), and one that already did leaves no file, so it is fetched again below.
  bool indexed = cache_->used(copy);
  struct stat st {};
  if (::stat(copy.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) == expected.size) {
    if (!indexed) {
      addedCopy(copy, expected.size);
    } else if (cache_->over()) {
      // Copies the grace kept past the bound, now older: this one was just used, so it stays.
      size_t evicted = cache_->evict();
      if (evicted > 0 && on_evicted_) on_evicted_(evicted);
    }
    if (st.st_mtime != modified) {
      // A copy kept at upload, dated before the row was (or by another node): the blob's time.
      timespec times[2] = {{static_cast<time_t>(modified), 0}, {static_cast<time_t>(modified), 0}};
      ::utimensat(AT_FDCWD, copy.c_str(), times, 0);
    }
    return copy;
  }
  makeDirs(parentOf(copy));
  std::string temporary = temporaryDir() + "/" + randomHex(16) + ".part";
  Fd out(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kFileMode));
  if (out.fd < 0) throw BackendError(failure("cannot create", temporary, errno));
  try {
    Sha256 hash;
    uint64_t written = 0;
    S3Object got = client_.getTo(object, [&](const char* data, size_t size) {
      hash.update(data, size);
      written += size;
      while (size > 0) {
        ssize_t n = ::write(out.fd, data, size);
        if (n < 0) {
          if (errno == EINTR) continue;
          throw BackendError(failure("cannot write", temporary, errno));
        }
        data += n;
        size -= static_cast<size_t>(n);
      }
    });
    std::string digest = hash.hexDigest();
    if (written != expected.size || digest != expected.sha256 ||
        (!got.sha256.empty() && got.sha256 != expected.sha256))
      throw BackendError("the store's copy of " + object + " is not the blob stored (" +
                         std::to_string(written) + " bytes, sha256 " + digest + "; expected " +
                         std::to_string(expected.size) + " bytes, sha256 " + expected.sha256 + ")");
    ::fchmod(out.fd, kFileMode);
    timespec times[2] = {{static_cast<time_t>(modified), 0}, {static_cast<time_t>(modified), 0}};
    if (::futimens(out.fd, times) != 0)
      throw BackendError(failure("cannot set the time of", temporary, errno));
    if (::rename(temporary.c_str(), copy.c_str()) != 0)
      throw BackendError(failure("cannot rename " + temporary + " to", copy, errno));
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  // After the rename, so that an eviction never removes the copy this call returns (it is the
  // most recent use, inside the grace).
  addedCopy(copy, expected.size);
  return copy;
}

std::string S3Backend::read(const std::string& object, uint64_t offset, uint64_t length) const {
  cachePath(object);
  return client_.getRange(object, offset, length);
}

void S3Backend::remove(const std::string& object) {
  std::string copy = cachePath(object);
  // The copy first: a copy without its object is never served after the row is gone anyway,
  // but an object without a copy is what the sweep expects to find.
  if (::unlink(copy.c_str()) != 0 && errno != ENOENT)
    throw BackendError(failure("cannot remove", copy, errno));
  cache_->forgotten(copy);
  client_.remove(object);
}

void S3Backend::removeGroup(const std::string& group) {
  if (projectIdRefusal(group)) throw BackendError("not a group name: " + group);
  std::error_code error;
  std::filesystem::remove_all(cacheDir() + "/" + group, error);
  cache_->forgottenUnder(cacheDir() + "/" + group);
  if (error)
    throw BackendError("cannot remove " + cacheDir() + "/" + group + ": " + error.message());
  std::optional<std::string> next;
  do {
    S3Listing page = client_.list(group + "/", "", next);
    for (const auto& entry : page.objects) client_.remove(entry.key);
    next = page.next;
  } while (next);
  // Confirmed by the store: nothing of the group is listed any more.
  S3Listing left = client_.list(group + "/", "", std::nullopt);
  if (!left.objects.empty())
    throw BackendError(
        std::to_string(left.objects.size()) + " objects of " + group +
        " are still in the bucket after removal, the first: " + left.objects.front().key);
}

std::vector<std::string> S3Backend::groups() const {
  std::vector<std::string> out;
  std::optional<std::string> next;
  do {
    S3Listing page = client_.list("", "/", next);
    for (auto& prefix : page.prefixes) {
      if (prefix.empty() || prefix.back() != '/') continue;
      prefix.pop_back();
      if (!projectIdRefusal(prefix)) out.push_back(std::move(prefix));
    }
    next = page.next;
  } while (next);
  return out;
}

std::vector<ListedObject> S3Backend::list(const std::string& group) const {
  std::vector<ListedObject> out;
  if (projectIdRefusal(group)) return out;
  std::optional<std::string> next;
  do {
    S3Listing page = client_.list(group + "/", "", next);
    for (auto& entry : page.objects)
      if (parseObjectName(entry.key)) out.push_back({std::move(entry.key), entry.modified});
    next = page.next;
  } while (next);
  return out;
}

size_t S3Backend::cleanTemporary(int64_t before) {
  size_t removed = 0;
  DIR* dir = ::opendir(temporaryDir().c_str());
  if (dir == nullptr) return 0;
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (!name.ends_with(".part")) continue;
    std::string path = temporaryDir() + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime >= before) continue;
    if (::unlink(path.c_str()) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

}  // namespace berth::storage
