#include "local_backend.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "berth/common/fd.hpp"
#include "blob_names.hpp"
#include "sha256.hpp"

namespace berth::storage {

namespace {

constexpr size_t kChunk = 1 << 20;  // copy buffer: bounded memory whatever the blob's size
constexpr mode_t kDirMode = 0755;
constexpr mode_t kFileMode = 0644;

std::string failure(const std::string& what, const std::string& path, int error) {
  return what + " " + path + ": " + std::system_category().message(error);
}

// close() reports the error: on some file systems close() is where a write fails.
using common::Fd;

std::string parentOf(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

void fsyncDir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) throw BackendError(failure("cannot open", dir, errno));
  if (::fsync(fd.get()) != 0) throw BackendError(failure("cannot fsync", dir, errno));
}

// mkdir with a fixed mode (the umask would narrow it), tolerant of a racing creator.
// Returns true when it made the directory.
bool makeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), kDirMode) == 0) {
    if (::chmod(dir.c_str(), kDirMode) != 0)
      throw BackendError(failure("cannot chmod", dir, errno));
    return true;
  }
  if (errno != EEXIST) throw BackendError(failure("cannot create", dir, errno));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw BackendError(dir + " exists and is not a directory");
  return false;
}

// Creates `dir` below `base` (which exists), fsyncing each parent that gained an entry, so the
// new object's directory survives a crash along with the object.
void makeDirsBelow(const std::string& base, const std::string& dir) {
  std::string current = base;
  size_t pos = base.size();
  while (pos < dir.size()) {
    size_t next = dir.find('/', pos + 1);
    if (next == std::string::npos) next = dir.size();
    std::string child = dir.substr(0, next);
    if (makeDir(child)) fsyncDir(current);
    current = child;
    pos = next;
  }
}

void writeAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t wrote = ::write(fd, data, size);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      throw BackendError(failure("cannot write", path, errno));
    }
    data += wrote;
    size -= static_cast<size_t>(wrote);
  }
}

// Reads a whole file through a bounded buffer, feeding `sink(data, size)`.
template <class Sink>
uint64_t readAll(int fd, const std::string& path, Sink&& sink) {
  std::vector<char> buffer(kChunk);
  uint64_t total = 0;
  while (true) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      throw BackendError(failure("cannot read", path, errno));
    }
    if (got == 0) return total;
    sink(buffer.data(), static_cast<size_t>(got));
    total += static_cast<uint64_t>(got);
  }
}

std::vector<std::string> entriesOf(const std::string& dir) {
  std::vector<std::string> names;
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) {
    if (errno == ENOENT) return names;
    throw BackendError(failure("cannot list", dir, errno));
  }
  while (dirent* entry = ::readdir(handle)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(handle);
  return names;
}

bool isShardName(const std::string& name) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return name.size() == 2 && hex(name[0]) && hex(name[1]);
}

}  // namespace

LocalBackend::LocalBackend(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty() || root_[0] != '/')
    throw BackendError("the blob directory must be an absolute path: " + root_);
  std::error_code error;
  bool created = std::filesystem::create_directories(root_, error);
  if (error) throw BackendError("cannot create " + root_ + ": " + error.message());
  if (created && ::chmod(root_.c_str(), kDirMode) != 0)
    throw BackendError(failure("cannot chmod", root_, errno));
  makeDir(objectsDir());
  makeDir(temporaryDir());
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0) throw BackendError(failure("cannot stat", root_, errno));
  device_ = st.st_dev;
}

std::string LocalBackend::pathOf(const std::string& object) const {
  auto name = parseObjectName(object);
  if (!name) throw BackendError("not an object name: " + object);
  return objectsDir() + "/" + name->group + "/" + name->id.substr(0, 2) + "/" + name->id;
}

StoredObject LocalBackend::putFile(const std::string& object, const std::string& source,
                                   bool move) {
  std::string target = pathOf(object);
  makeDirsBelow(objectsDir(), parentOf(target));
  StoredObject stored;
  if (move && tryMove(source, target, stored)) return stored;
  return copyIn(target, &source, {});
}

StoredObject LocalBackend::putBytes(const std::string& object, std::string_view bytes) {
  std::string target = pathOf(object);
  makeDirsBelow(objectsDir(), parentOf(target));
  return copyIn(target, nullptr, bytes);
}

bool LocalBackend::tryMove(const std::string& source, const std::string& target,
                           StoredObject& stored) {
  Fd fd(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw BackendError(failure("cannot open", source, errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw BackendError(failure("cannot stat", source, errno));
  if (!S_ISREG(st.st_mode)) throw BackendError(source + " is not a regular file");
  if (st.st_dev != device_) return false;
  // Made readable by the edge's workers and dated now (the sweep judges age by it); a file
  // that is not ours to change is copied instead.
  if (::fchmod(fd.get(), kFileMode) != 0 || ::futimens(fd.get(), nullptr) != 0) return false;
  Sha256 hash;
  stored.size =
      readAll(fd.get(), source, [&](const char* data, size_t size) { hash.update(data, size); });
  stored.sha256 = hash.hexDigest();
  if (::fsync(fd.get()) != 0) throw BackendError(failure("cannot fsync", source, errno));
  if (::rename(source.c_str(), target.c_str()) != 0) {
    if (errno == EXDEV) return false;
    throw BackendError(failure("cannot move " + source + " to", target, errno));
  }
  fsyncDir(parentOf(target));
  return true;
}

StoredObject LocalBackend::copyIn(const std::string& target, const std::string* source,
                                  std::string_view bytes) {
  std::string temporary = temporaryDir() + "/" + randomHex(16) + ".part";
  Fd out(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kFileMode));
  if (!out.valid()) throw BackendError(failure("cannot create", temporary, errno));
  try {
    if (::fchmod(out.get(), kFileMode) != 0)
      throw BackendError(failure("cannot chmod", temporary, errno));
    Sha256 hash;
    StoredObject stored;
    if (source != nullptr) {
      Fd in(::open(source->c_str(), O_RDONLY | O_CLOEXEC));
      if (!in.valid()) throw BackendError(failure("cannot open", *source, errno));
      struct stat st {};
      if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw BackendError(*source + " is not a regular file");
      stored.size = readAll(in.get(), *source, [&](const char* data, size_t size) {
        hash.update(data, size);
        writeAll(out.get(), data, size, temporary);
      });
    } else {
      hash.update(bytes.data(), bytes.size());
      writeAll(out.get(), bytes.data(), bytes.size(), temporary);
      stored.size = bytes.size();
    }
    stored.sha256 = hash.hexDigest();
    if (::fsync(out.get()) != 0) throw BackendError(failure("cannot fsync", temporary, errno));
    if (out.close() != 0) throw BackendError(failure("cannot close", temporary, errno));
    if (::rename(temporary.c_str(), target.c_str()) != 0)
      throw BackendError(failure("cannot rename " + temporary + " to", target, errno));
    fsyncDir(parentOf(target));
    return stored;
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
}

void LocalBackend::setModified(const std::string& object, int64_t unix_seconds) {
  std::string path = pathOf(object);
  timespec times[2] = {{static_cast<time_t>(unix_seconds), 0},
                       {static_cast<time_t>(unix_seconds), 0}};
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0)
    throw BackendError(failure("cannot set the time of", path, errno));
}

std::optional<std::string> LocalBackend::localPath(const std::string& object) const {
  return pathOf(object);
}

std::string LocalBackend::read(const std::string& object, uint64_t offset, uint64_t length) const {
  std::string path = pathOf(object);
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw BackendError(failure("cannot open", path, errno));
  std::string out;
  out.resize(length);
  size_t done = 0;
  while (done < length) {
    ssize_t got =
        ::pread(fd.get(), out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw BackendError(failure("cannot read", path, errno));
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  out.resize(done);
  return out;
}

void LocalBackend::remove(const std::string& object) {
  std::string path = pathOf(object);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw BackendError(failure("cannot remove", path, errno));
}

void LocalBackend::removeGroup(const std::string& group) {
  if (projectIdRefusal(group)) throw BackendError("not a group name: " + group);
  std::string dir = objectsDir() + "/" + group;
  size_t failures = 0;
  std::string first_failure;
  auto note = [&](const std::string& what, const std::string& path) {
    if (failures++ == 0) first_failure = failure(what, path, errno);
  };
  for (const auto& shard : entriesOf(dir)) {
    std::string shard_dir = dir + "/" + shard;
    for (const auto& name : entriesOf(shard_dir)) {
      std::string path = shard_dir + "/" + name;
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) note("cannot remove", path);
    }
    if (::rmdir(shard_dir.c_str()) != 0 && errno != ENOENT) note("cannot remove", shard_dir);
  }
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) note("cannot remove", dir);
  if (failures > 0)
    throw BackendError(std::to_string(failures) + " entries of " + dir +
                       " were not removed; the first: " + first_failure);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) throw BackendError(dir + " is still there after removal");
  fsyncDir(objectsDir());
}

std::vector<std::string> LocalBackend::groups() const {
  std::vector<std::string> out;
  for (auto& name : entriesOf(objectsDir()))
    if (!projectIdRefusal(name)) out.push_back(std::move(name));
  return out;
}

std::vector<ListedObject> LocalBackend::list(const std::string& group) const {
  std::vector<ListedObject> out;
  if (projectIdRefusal(group)) return out;
  std::string dir = objectsDir() + "/" + group;
  for (const auto& shard : entriesOf(dir)) {
    if (!isShardName(shard)) continue;
    for (const auto& name : entriesOf(dir + "/" + shard)) {
      std::string object = group + "/" + name;
      if (!parseObjectName(object) || name.compare(0, 2, shard) != 0) continue;
      struct stat st {};
      if (::stat((dir + "/" + shard + "/" + name).c_str(), &st) != 0) continue;
      out.push_back({object, static_cast<int64_t>(st.st_mtime)});
    }
  }
  return out;
}

size_t LocalBackend::cleanTemporary(int64_t before) {
  size_t removed = 0;
  for (const auto& name : entriesOf(temporaryDir())) {
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".part") != 0) continue;
    std::string path = temporaryDir() + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime >= before) continue;
    if (::unlink(path.c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace berth::storage
