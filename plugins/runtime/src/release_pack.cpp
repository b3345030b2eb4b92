// The packer walks the tree as the unpacker builds one: relative to folder descriptors opened
// with O_NOFOLLOW, so nothing in the tree (which a build step wrote) can lead it elsewhere.
#include "release_pack.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "berth/common/fd.hpp"
#include "release_unpack.hpp"

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;
using common::Fd;

// Packing is on the build's path and unpacking speed hardly depends on the level: the fast one.
constexpr const char* kGzipLevel = "1";
constexpr std::size_t kBlock = 256 * 1024;

std::string errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

std::string hex(const unsigned char* bytes, unsigned length) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned i = 0; i < length; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xF]);
  }
  return out;
}

struct Sha256 {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md{EVP_MD_CTX_new(), EVP_MD_CTX_free};
  Sha256() {
    if (!md || EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("SHA-256 is not available");
  }
  void update(const void* data, std::size_t size) {
    if (size > 0 && EVP_DigestUpdate(md.get(), data, size) != 1)
      throw std::runtime_error("SHA-256 update failed");
  }
  std::string hexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned length = 0;
    if (EVP_DigestFinal_ex(md.get(), digest, &length) != 1)
      throw std::runtime_error("SHA-256 final failed");
    return hex(digest, length);
  }
};

// Where libarchive's output goes: the file, and the hash and size of what was written.
struct Sink {
  int fd = -1;
  Sha256 hash;
  std::uint64_t size = 0;
};

la_ssize_t writeToSink(archive* a, void* client, const void* buffer, size_t length) {
  auto* sink = static_cast<Sink*>(client);
  const char* data = static_cast<const char*>(buffer);
  std::size_t left = length;
  while (left > 0) {
    const ssize_t wrote = ::write(sink->fd, data, left);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      archive_set_error(a, errno, "%s", errnoText(errno).c_str());
      return -1;
    }
    data += wrote;
    left -= static_cast<std::size_t>(wrote);
  }
  try {
    sink->hash.update(buffer, length);
  } catch (const std::exception& e) {
    archive_set_error(a, EIO, "%s", e.what());
    return -1;
  }
  sink->size += length;
  return static_cast<la_ssize_t>(length);
}

struct ArchiveWriter {
  archive* handle = archive_write_new();
  ~ArchiveWriter() { archive_write_free(handle); }
};

struct Entry {
  archive_entry* handle = archive_entry_new();
  ~Entry() { archive_entry_free(handle); }
};

class Packer {
 public:
  explicit Packer(archive* writer) : writer_(writer), buffer_(kBlock) {}

  // Packs what is inside the folder `dir` (an open descriptor) under the archive path `prefix`.
  std::optional<std::string> folder(int dir, const std::string& prefix) {
    std::vector<std::string> names;
    {
      Fd listing(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
      DIR* stream = listing.valid() ? ::fdopendir(listing.get()) : nullptr;
      if (stream == nullptr) return "cannot read " + shown(prefix) + ": " + errnoText(errno);
      listing.release();  // the stream owns it now
      errno = 0;
      while (dirent* item = ::readdir(stream)) {
        const std::string name = item->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      const int err = errno;
      ::closedir(stream);
      if (err != 0) return "cannot read " + shown(prefix) + ": " + errnoText(err);
    }
    std::sort(names.begin(), names.end());  // the same tree packs to the same bytes
    for (const auto& name : names) {
      const std::string path = prefix.empty() ? name : prefix + "/" + name;
      struct stat st {};
      if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return "cannot read " + path + ": " + errnoText(errno);
      std::optional<std::string> problem;
      if (S_ISDIR(st.st_mode))
        problem = subfolder(dir, name, path, st);
      else if (S_ISREG(st.st_mode))
        problem = file(dir, name, path);
      else if (S_ISLNK(st.st_mode))
        problem = link(dir, name, path, st);
      else
        problem = path + ": device files, fifos and sockets cannot be packed";
      if (problem) return problem;
    }
    return std::nullopt;
  }

  std::uint64_t entries() const { return entries_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  static std::string shown(const std::string& prefix) {
    return prefix.empty() ? std::string("the release folder") : prefix;
  }

  std::optional<std::string> header(archive_entry* entry, const std::string& path) {
    // A warning is a name libarchive could not convert to UTF-8: it is written as its bytes.
    if (archive_write_header(writer_, entry) < ARCHIVE_WARN) return writeError(path);
    ++entries_;
    return std::nullopt;
  }

  std::optional<std::string> writeError(const std::string& path) const {
    const char* why = archive_error_string(writer_);
    return "cannot write the archive at " + path + ": " + (why ? why : "unknown error");
  }

  static void describe(archive_entry* entry, const std::string& path, const struct stat& st) {
    archive_entry_set_pathname(entry, path.c_str());
    archive_entry_set_mtime(entry, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    archive_entry_set_uid(entry, 0);
    archive_entry_set_gid(entry, 0);
  }

  std::optional<std::string> subfolder(int dir, const std::string& name, const std::string& path,
                                       const struct stat& st) {
    Fd child(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!child.valid()) return "cannot read " + path + ": " + errnoText(errno);
    Entry entry;
    describe(entry.handle, path, st);
    archive_entry_set_filetype(entry.handle, AE_IFDIR);
    archive_entry_set_perm(entry.handle, 0755);
    if (auto problem = header(entry.handle, path)) return problem;
    return folder(child.get(), path);
  }

  std::optional<std::string> file(int dir, const std::string& name, const std::string& path) {
    Fd in(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!in.valid()) return "cannot read " + path + ": " + errnoText(errno);
    struct stat st {};
    if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode))
      return path + ": changed while it was packed";
    Entry entry;
    describe(entry.handle, path, st);
    archive_entry_set_filetype(entry.handle, AE_IFREG);
    archive_entry_set_perm(entry.handle, (st.st_mode & 0111) ? 0755 : 0644);
    archive_entry_set_size(entry.handle, st.st_size);
    if (auto problem = header(entry.handle, path)) return problem;
    std::uint64_t left = static_cast<std::uint64_t>(st.st_size);
    while (left > 0) {
      const ssize_t got = ::read(in.get(), buffer_.data(), std::min<std::uint64_t>(left, kBlock));
      if (got < 0) {
        if (errno == EINTR) continue;
        return "cannot read " + path + ": " + errnoText(errno);
      }
      if (got == 0) return path + ": changed while it was packed";  // shorter than it said
      if (archive_write_data(writer_, buffer_.data(), static_cast<std::size_t>(got)) != got)
        return writeError(path);
      left -= static_cast<std::uint64_t>(got);
    }
    bytes_ += static_cast<std::uint64_t>(st.st_size);
    return std::nullopt;
  }

  std::optional<std::string> link(int dir, const std::string& name, const std::string& path,
                                  const struct stat& st) {
    std::array<char, 4097> text{};
    const ssize_t n = ::readlinkat(dir, name.c_str(), text.data(), text.size() - 1);
    if (n < 0) return "cannot read " + path + ": " + errnoText(errno);
    if (static_cast<std::size_t>(n) == text.size() - 1)
      return path + ": a link pointing outside the release cannot be packed";  // too long
    const std::string target(text.data(), static_cast<std::size_t>(n));
    if (!linkTextStaysInside(path, target))
      return path + ": a link pointing outside the release cannot be packed";
    Entry entry;
    describe(entry.handle, path, st);
    archive_entry_set_filetype(entry.handle, AE_IFLNK);
    archive_entry_set_perm(entry.handle, 0777);
    archive_entry_set_symlink(entry.handle, target.c_str());
    return header(entry.handle, path);
  }

  archive* writer_;
  std::vector<char> buffer_;
  std::uint64_t entries_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace

PackResult packRelease(const fs::path& dir, const fs::path& archive_file) {
  PackResult result;
  Fd root(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root.valid()) {
    result.error = "cannot read the release folder " + dir.string() + ": " + errnoText(errno);
    return result;
  }
  Fd out(::open(archive_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!out.valid()) {
    result.error = "cannot create " + archive_file.string() + ": " + errnoText(errno);
    return result;
  }
  Sink sink;
  sink.fd = out.get();
  ArchiveWriter writer;
  archive* a = writer.handle;
  archive_write_set_format_pax_restricted(a);
  // Names are written as the bytes they are: converting them from berthd's locale ("C") would
  // fail for UTF-8 names. The unpacker reads them back as UTF-8.
  archive_write_set_format_option(a, "pax", "hdrcharset", "BINARY");
  archive_write_add_filter_gzip(a);
  archive_write_set_filter_option(a, "gzip", "compression-level", kGzipLevel);
  archive_write_set_bytes_in_last_block(a, 1);  // no padding after the end
  if (archive_write_open(a, &sink, nullptr, writeToSink, nullptr) != ARCHIVE_OK) {
    const char* why = archive_error_string(a);
    result.error = std::string("cannot write the archive: ") + (why ? why : "unknown error");
    return result;
  }
  Packer packer(a);
  if (auto problem = packer.folder(root.get(), "")) {
    result.error = std::move(problem);
    return result;
  }
  if (archive_write_close(a) != ARCHIVE_OK) {
    const char* why = archive_error_string(a);
    result.error = std::string("cannot write the archive: ") + (why ? why : "unknown error");
    return result;
  }
  // Not fsynced here: the blob store's put makes it durable when it takes it over.
  if (out.close() != 0) {
    result.error = "cannot write the archive: " + errnoText(errno);
    return result;
  }
  result.sha256 = sink.hash.hexDigest();
  result.size = sink.size;
  result.entries = packer.entries();
  result.bytes = packer.bytes();
  return result;
}

FileDigest digestOf(int fd) {
  Sha256 hash;
  FileDigest out;
  std::vector<char> buffer(kBlock);
  off_t at = 0;
  for (;;) {
    const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), at);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot read the file: " + errnoText(errno));
    }
    if (got == 0) break;
    hash.update(buffer.data(), static_cast<std::size_t>(got));
    at += got;
  }
  out.sha256 = hash.hexDigest();
  out.size = static_cast<std::uint64_t>(at);
  return out;
}

}  // namespace berth::runtime
