#include "release_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <berth/error.hpp>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>

namespace berth::runtime {

namespace {

namespace fs = std::filesystem;
using berth::runtime_releases::ReleaseFile;

// The archive's bytes go to a file descriptor, counted: past the limit the write fails.
struct Sink {
  int fd = -1;
  std::uint64_t written = 0;
  std::uint64_t limit = 0;
  bool too_large = false;
};

la_ssize_t writeOut(archive* a, void* data, const void* buffer, size_t size) {
  auto* sink = static_cast<Sink*>(data);
  if (sink->written + size > sink->limit) {
    sink->too_large = true;
    archive_set_error(a, EFBIG, "the packed release is too large");
    return -1;
  }
  const char* bytes = static_cast<const char*>(buffer);
  size_t left = size;
  while (left > 0) {
    ssize_t n = ::write(sink->fd, bytes, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      archive_set_error(a, errno, "cannot write the packed release: %s", std::strerror(errno));
      return -1;
    }
    bytes += n;
    left -= static_cast<size_t>(n);
  }
  sink->written += size;
  return static_cast<la_ssize_t>(size);
}

class Packer {
 public:
  Packer(const std::string& out, std::uint64_t max_bytes) {
    sink_.fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (sink_.fd < 0)
      throw berth::Error("cannot make the release archive " + out + ": " + std::strerror(errno));
    sink_.limit = max_bytes;
    writer_ = archive_write_new();
    archive_write_add_filter_gzip(writer_);
    archive_write_set_format_pax_restricted(writer_);
    // Names are UTF-8 bytes as given, whatever berthd's locale (the unpacker reads UTF-8).
    archive_write_set_format_option(writer_, "pax", "hdrcharset", "BINARY");
    if (archive_write_open(writer_, &sink_, nullptr, &writeOut, nullptr) != ARCHIVE_OK) fail();
  }
  ~Packer() {
    if (writer_) archive_write_free(writer_);
    if (sink_.fd >= 0) ::close(sink_.fd);
  }
  Packer(const Packer&) = delete;
  Packer& operator=(const Packer&) = delete;

  void folder(const std::string& path, std::int64_t mtime) {
    archive_entry* e = entry(path, AE_IFDIR, 0755, 0, mtime);
    check(archive_write_header(writer_, e));
    archive_entry_free(e);
  }

  void file(const std::string& path, const std::string& content, bool executable) {
    archive_entry* e = entry(path, AE_IFREG, executable ? 0755 : 0644,
                             static_cast<la_int64_t>(content.size()), std::time(nullptr));
    check(archive_write_header(writer_, e));
    archive_entry_free(e);
    if (!content.empty() && archive_write_data(writer_, content.data(), content.size()) < 0) fail();
  }

  // A file of the folder, read through its descriptor (opened without following links).
  void copy(const std::string& path, const fs::path& source, const std::string& shown) {
    int fd = ::open(source.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      const std::string why = fd < 0 ? std::strerror(errno) : "it is not a file any more";
      if (fd >= 0) ::close(fd);
      throw berth::Error::badRequest("folder " + shown + ": cannot read " + path + ": " + why);
    }
    archive_entry* e = entry(path, AE_IFREG, (st.st_mode & 0111) ? 0755 : 0644,
                             static_cast<la_int64_t>(st.st_size), st.st_mtime);
    int status = archive_write_header(writer_, e);
    archive_entry_free(e);
    if (status < ARCHIVE_WARN) {
      ::close(fd);
      fail();
    }
    char buffer[1 << 16];
    std::int64_t left = st.st_size;  // the header promised this many bytes
    while (left > 0) {
      ssize_t n =
          ::read(fd, buffer, static_cast<size_t>(std::min<std::int64_t>(left, sizeof buffer)));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = n < 0 ? std::strerror(errno) : "it shrank while being read";
        ::close(fd);
        throw berth::Error::badRequest("folder " + shown + ": cannot read " + path + ": " + why);
      }
      if (archive_write_data(writer_, buffer, static_cast<size_t>(n)) < 0) {
        ::close(fd);
        fail();
      }
      left -= n;
    }
    ::close(fd);
  }

  void finish() {
    check(archive_write_close(writer_));
    if (::fsync(sink_.fd) != 0)
      throw berth::Error(std::string("cannot write the packed release: ") + std::strerror(errno));
  }

 private:
  static archive_entry* entry(const std::string& path, unsigned type, int mode, la_int64_t size,
                              std::int64_t mtime) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, static_cast<mode_t>(mode));
    archive_entry_set_size(e, size);
    archive_entry_set_mtime(e, static_cast<time_t>(mtime), 0);
    return e;
  }
  void check(int status) {
    if (status < ARCHIVE_WARN) fail();
  }
  [[noreturn]] void fail() {
    if (sink_.too_large)
      throw berth::Error::payloadTooLarge("the packed release passes " +
                                          std::to_string(sink_.limit / (1024 * 1024)) +
                                          " MB, the limit for one release archive");
    const char* why = writer_ ? archive_error_string(writer_) : nullptr;
    throw berth::Error(std::string("cannot pack the release: ") + (why ? why : "unknown error"));
  }

  Sink sink_;
  archive* writer_ = nullptr;
};

void packFolder(Packer& packer, const std::string& folder, const std::set<std::string>& replaced) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw berth::Error::badRequest("folder " + folder + " is not a folder");
  const fs::path root(folder);
  // Links are never followed (nor listed through): a link anywhere is refused below.
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    const std::string relative = path.lexically_relative(root).generic_string();
    const fs::file_status status = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(status)) {
      struct stat st {};
      ::lstat(path.c_str(), &st);
      packer.folder(relative, st.st_mtime);
    } else if (fs::is_regular_file(status)) {
      if (!replaced.contains(relative)) packer.copy(relative, path, folder);
    } else {
      const char* what = fs::is_symlink(status) ? "a link" : "a device, fifo or socket";
      throw berth::Error::badRequest("folder " + folder + " holds " + relative + ", " + what +
                                     ", which a release cannot hold");
    }
  }
  if (ec) throw berth::Error::badRequest("folder " + folder + " cannot be read: " + ec.message());
}

}  // namespace

void writeReleaseArchive(const std::string& out, const std::optional<std::string>& folder,
                         const std::vector<ReleaseFile>& files, std::uint64_t max_bytes) {
  Packer packer(out, max_bytes);
  if (folder) {
    std::set<std::string> replaced;
    for (const auto& f : files) replaced.insert(f.path);
    packFolder(packer, *folder, replaced);
  }
  for (const auto& f : files) packer.file(f.path, f.content, f.executable);
  packer.finish();
}

}  // namespace berth::runtime
