// Every entry is created relative to descriptors of folders opened with O_NOFOLLOW, so no path
// from the archive is ever resolved through a link: a link in the archive (checked to stay
// inside) cannot redirect a later entry outside the release.
#include "release_unpack.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>
#include <utility>
#include <vector>

#include "berth/common/fd.hpp"

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;

using common::Fd;

std::string errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

std::vector<std::string> splitPath(const std::string& clean) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= clean.size()) {
    auto end = clean.find('/', start);
    if (end == std::string::npos) end = clean.size();
    parts.push_back(clean.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace

bool linkTextStaysInside(const std::string& link_path, std::string_view target) {
  if (target.empty() || target.front() == '/') return false;
  std::vector<std::string_view> stack;
  auto parts = splitPath(link_path);
  parts.pop_back();  // the link's own name
  for (const auto& p : parts) stack.push_back(p);
  std::size_t start = 0;
  while (start <= target.size()) {
    auto end = target.find('/', start);
    if (end == std::string_view::npos) end = target.size();
    auto part = target.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (stack.empty()) return false;
      stack.pop_back();
    } else {
      stack.push_back(part);
    }
  }
  return true;
}

namespace {

std::string randomSuffix() {
  std::random_device device;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", device(), device());
  return text;
}

class Unpacker {
 public:
  Unpacker(const UnpackLimits& limits, Fd root, fs::path root_path, std::uint64_t compressed)
      : limits_(limits), root_(std::move(root)), root_path_(std::move(root_path)) {
    // The ratio becomes one more byte limit, whichever is lower counts.
    if (limits_.max_ratio > 0) {
      const std::uint64_t by_ratio =
          compressed > UINT64_MAX / limits_.max_ratio ? UINT64_MAX : compressed * limits_.max_ratio;
      if (by_ratio < limits_.max_bytes) {
        limits_.max_bytes = by_ratio;
        ratio_bound_ = true;
      }
    }
  }

  // Returns an error text, or nullopt when every entry was unpacked.
  std::optional<std::string> run(archive* reader) {
    bool first = true;
    for (;;) {
      archive_entry* entry = nullptr;
      int status = archive_read_next_header(reader, &entry);
      if (status == ARCHIVE_EOF) break;
      if (status < ARCHIVE_WARN) return readError(reader, first);
      first = false;
      if (++entries_ > limits_.max_entries) return tooMany();
      if (auto problem = unpackEntry(reader, entry)) return problem;
    }
    return checkLinks();
  }

  std::uint64_t files() const { return files_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::string tooMany() const {
    return "the release holds more than " + std::to_string(limits_.max_entries) +
           " files, the limit for one release";
  }

  static std::string readError(archive* reader, bool first) {
    const char* why = archive_error_string(reader);
    std::string text = why ? why : "unreadable";
    if (first) return "the release is not a gzip-compressed tar archive: " + text;
    return "the release archive is damaged: " + text;
  }

  static std::string entryName(archive_entry* entry, const char* (*utf8)(archive_entry*),
                               const char* (*raw)(archive_entry*)) {
    if (const char* name = utf8(entry)) return name;
    if (const char* name = raw(entry)) return name;
    return {};
  }

  std::optional<std::string> unpackEntry(archive* reader, archive_entry* entry) {
    const std::string raw = entryName(entry, archive_entry_pathname_utf8, archive_entry_pathname);
    auto clean = cleanArchivePath(raw);
    if (clean.error) return clean.error;
    const std::string& path = clean.path;

    const std::string hardlink =
        entryName(entry, archive_entry_hardlink_utf8, archive_entry_hardlink);
    if (!hardlink.empty()) return makeHardlink(path, hardlink);

    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR:
        if (path.empty()) return std::nullopt;  // "./" itself
        return makeFolder(path);
      case AE_IFREG:
        return writeFile(reader, entry, path);
      case AE_IFLNK: {
        const std::string target =
            entryName(entry, archive_entry_symlink_utf8, archive_entry_symlink);
        return makeSymlink(path, target);
      }
      default:
        return path + ": device files, fifos and sockets are not allowed in a release";
    }
  }

  // Opens (creating when asked) the folders leading to `path`; `leaf` receives its last part.
  std::optional<std::string> openParent(const std::string& path, bool create, Fd& parent,
                                        std::string& leaf) {
    auto parts = splitPath(path);
    leaf = parts.back();
    parts.pop_back();
    // Entries come grouped by folder: the last folder opened is usually the one wanted. It
    // stays the right folder, since a folder is never replaced by anything else.
    const auto slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash);
    if (cached_folder_fd_.get() >= 0 && folder == cached_folder_) {
      parent = Fd(::fcntl(cached_folder_fd_.get(), F_DUPFD_CLOEXEC, 0));
      return std::nullopt;
    }
    Fd current(::fcntl(root_.get(), F_DUPFD_CLOEXEC, 0));
    for (const auto& part : parts) {
      // A folder made for a deeper path counts as an entry too: otherwise one entry with a
      // long path ("a/a/a/...") makes any number of folders past the entry limit.
      if (create) {
        if (::mkdirat(current.get(), part.c_str(), 0755) == 0) {
          if (++entries_ > limits_.max_entries) return tooMany();
        } else if (errno != EEXIST) {
          return path + ": cannot create its folder: " + errnoText(errno);
        }
      }
      Fd next(
          ::openat(current.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (next.get() < 0) {
        int err = errno;
        struct stat st {};
        if (::fstatat(current.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
          return path + ": goes through a link, which is not allowed in a release";
        if (err == ENOTDIR) return path + ": " + part + " is a file, not a folder";
        return path + ": cannot open its folder: " + errnoText(err);
      }
      current = std::move(next);
    }
    cached_folder_ = folder;
    cached_folder_fd_ = Fd(::fcntl(current.get(), F_DUPFD_CLOEXEC, 0));
    parent = std::move(current);
    return std::nullopt;
  }

  // A later entry of the same name replaces an earlier one, as tar does; folders stay, so a
  // file or link where a folder is is refused (as makeFolder refuses the other way round).
  // The replaced one no longer counts among the release's files.
  std::optional<std::string> removeExisting(int dir, const std::string& leaf,
                                            const std::string& path) {
    struct stat st {};
    if (::fstatat(dir, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
    if (S_ISDIR(st.st_mode)) return path + ": a file and a folder have the same name";
    if (::unlinkat(dir, leaf.c_str(), 0) == 0 && files_ > 0) --files_;
    return std::nullopt;
  }

  std::optional<std::string> makeFolder(const std::string& path) {
    Fd parent;
    std::string leaf;
    if (auto problem = openParent(path, true, parent, leaf)) return problem;
    if (::mkdirat(parent.get(), leaf.c_str(), 0755) == 0) return std::nullopt;
    if (errno != EEXIST) return path + ": cannot create the folder: " + errnoText(errno);
    struct stat st {};
    if (::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
      return std::nullopt;
    return path + ": a file and a folder have the same name";
  }

  std::optional<std::string> tooBig() const {
    if (ratio_bound_)
      return "the release expands to more than " + std::to_string(limits_.max_ratio) +
             " times its compressed size (runtime.max_unpack_ratio)";
    return "the release expands past " + std::to_string(limits_.max_bytes) +
           " bytes, the limit for one release";
  }

  std::optional<std::string> writeFile(archive* reader, archive_entry* entry,
                                       const std::string& path) {
    if (path.empty()) return std::string("a file without a name is not allowed in a release");
    const la_int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    // Refused before reading, when the header already says it is too big.
    if (declared < 0 || static_cast<std::uint64_t>(declared) > limits_.max_bytes - bytes_)
      return tooBig();
    Fd parent;
    std::string leaf;
    if (auto problem = openParent(path, true, parent, leaf)) return problem;
    if (auto problem = removeExisting(parent.get(), leaf, path)) return problem;
    const mode_t mode = (archive_entry_perm(entry) & 0111) ? 0755 : 0644;
    Fd file(::openat(parent.get(), leaf.c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (file.get() < 0) return path + ": cannot create the file: " + errnoText(errno);

    std::uint64_t end = 0;
    for (;;) {
      const void* block = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      int status = archive_read_data_block(reader, &block, &size, &offset);
      if (status == ARCHIVE_EOF) break;
      if (status < ARCHIVE_WARN) return readError(reader, false);
      // Offsets count too: a sparse entry could otherwise claim terabytes of holes.
      const std::uint64_t block_end = static_cast<std::uint64_t>(offset) + size;
      if (offset < 0 || block_end > limits_.max_bytes - bytes_) return tooBig();
      end = std::max(end, block_end);
      const char* data = static_cast<const char*>(block);
      std::size_t done = 0;
      while (done < size) {
        ssize_t wrote = ::pwrite(file.get(), data + done, size - done,
                                 static_cast<off_t>(offset) + static_cast<off_t>(done));
        if (wrote < 0) {
          if (errno == EINTR) continue;
          return path + ": cannot write the file: " + errnoText(errno);
        }
        done += static_cast<std::size_t>(wrote);
      }
    }
    end = std::max(end, static_cast<std::uint64_t>(declared));
    if (::ftruncate(file.get(), static_cast<off_t>(end)) != 0)
      return path + ": cannot write the file: " + errnoText(errno);
    ::fchmod(file.get(), mode);
    if (archive_entry_mtime_is_set(entry)) {
      struct timespec times[2] = {{0, UTIME_OMIT},
                                  {static_cast<time_t>(archive_entry_mtime(entry)),
                                   static_cast<long>(archive_entry_mtime_nsec(entry))}};
      ::futimens(file.get(), times);
    }
    bytes_ += end;
    ++files_;
    return std::nullopt;
  }

  std::optional<std::string> makeSymlink(const std::string& path, const std::string& target) {
    if (path.empty()) return std::string("a link without a name is not allowed in a release");
    if (!linkTextStaysInside(path, target))
      return path + ": a link pointing outside the release is not allowed";
    Fd parent;
    std::string leaf;
    if (auto problem = openParent(path, true, parent, leaf)) return problem;
    if (auto problem = removeExisting(parent.get(), leaf, path)) return problem;
    if (::symlinkat(target.c_str(), parent.get(), leaf.c_str()) != 0)
      return path + ": cannot create the link: " + errnoText(errno);
    symlinks_.push_back(path);
    ++files_;
    return std::nullopt;
  }

  std::optional<std::string> makeHardlink(const std::string& path, const std::string& raw_target) {
    auto target = cleanArchivePath(raw_target);
    if (target.error || target.path.empty())
      return path + ": a link pointing outside the release is not allowed";
    if (path.empty()) return std::string("a link without a name is not allowed in a release");
    Fd source_parent;
    std::string source_leaf;
    if (auto problem = openParent(target.path, false, source_parent, source_leaf))
      return path + ": a link pointing outside the release is not allowed";
    struct stat st {};
    if (::fstatat(source_parent.get(), source_leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        S_ISDIR(st.st_mode))
      return path + ": links to " + target.path + ", which is not a file earlier in the release";
    // A hard link to a symbolic link is a second symbolic link with the same text somewhere
    // else, where that text may point outside: it is checked like one.
    const bool is_symlink = S_ISLNK(st.st_mode);
    if (is_symlink) {
      std::array<char, 4096> text{};
      const ssize_t n =
          ::readlinkat(source_parent.get(), source_leaf.c_str(), text.data(), text.size() - 1);
      if (n < 0 ||
          !linkTextStaysInside(path, std::string_view(text.data(), static_cast<size_t>(n))))
        return path + ": a link pointing outside the release is not allowed";
    }
    Fd parent;
    std::string leaf;
    if (auto problem = openParent(path, true, parent, leaf)) return problem;
    if (parent.get() >= 0 && leaf == source_leaf) {
      struct stat a {
      }, b{};
      if (::fstat(parent.get(), &a) == 0 && ::fstat(source_parent.get(), &b) == 0 &&
          a.st_ino == b.st_ino && a.st_dev == b.st_dev)
        return std::nullopt;  // a link to itself
    }
    if (auto problem = removeExisting(parent.get(), leaf, path)) return problem;
    if (::linkat(source_parent.get(), source_leaf.c_str(), parent.get(), leaf.c_str(), 0) != 0)
      return path + ": cannot create the link: " + errnoText(errno);
    if (is_symlink) symlinks_.push_back(path);
    ++files_;
    return std::nullopt;
  }

  // The text of every link stayed inside; links through other links (a -> ".", b -> "a/..")
  // can still resolve outside, which only the finished tree shows.
  std::optional<std::string> checkLinks() const {
    if (auto link = linkLeadingOutside(root_path_, symlinks_))
      return *link + ": a link pointing outside the release is not allowed";
    return std::nullopt;
  }

  UnpackLimits limits_;
  bool ratio_bound_ = false;  // max_bytes comes from max_ratio
  Fd root_;
  fs::path root_path_;
  std::uint64_t entries_ = 0;
  std::uint64_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<std::string> symlinks_;
  std::string cached_folder_;
  Fd cached_folder_fd_;
};

struct ArchiveReader {
  archive* handle = archive_read_new();
  ~ArchiveReader() { archive_read_free(handle); }
};

template <typename Open>
UnpackResult unpackWith(Open open, const fs::path& release_dir, const UnpackLimits& limits,
                        std::uint64_t compressed) {
  UnpackResult result;
  std::error_code ec;
  if (fs::symlink_status(release_dir, ec).type() != fs::file_type::not_found) {
    result.error = "the release folder " + release_dir.string() + " already exists";
    return result;
  }
  const fs::path temp = release_dir.parent_path() /
                        ("." + release_dir.filename().string() + ".unpacking-" + randomSuffix());
  if (::mkdir(temp.c_str(), 0755) != 0) {
    result.error = "cannot create " + temp.string() + ": " + errnoText(errno);
    return result;
  }
  // Whatever goes wrong below, the half-made folder goes.
  struct Cleanup {
    const fs::path& path;
    bool keep = false;
    ~Cleanup() {
      if (!keep) {
        std::error_code ignored;
        fs::remove_all(path, ignored);
      }
    }
  } cleanup{temp};

  Fd root(::open(temp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.get() < 0) {
    result.error = "cannot open " + temp.string() + ": " + errnoText(errno);
    return result;
  }
  ArchiveReader reader;
  archive_read_support_filter_gzip(reader.handle);
  archive_read_support_format_tar(reader.handle);
  if (open(reader.handle) != ARCHIVE_OK) {
    const char* why = archive_error_string(reader.handle);
    result.error = std::string("the release is not a gzip-compressed tar archive: ") +
                   (why ? why : "unreadable");
    return result;
  }
  Unpacker unpacker(limits, std::move(root), temp, compressed);
  if (auto problem = unpacker.run(reader.handle)) {
    result.error = std::move(problem);
    return result;
  }
  // RENAME_NOREPLACE: a folder made meanwhile by someone else is never replaced.
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, release_dir.c_str(), RENAME_NOREPLACE) != 0) {
    result.error = "cannot move the release into place: " + errnoText(errno);
    return result;
  }
  cleanup.keep = true;
  result.files = unpacker.files();
  result.bytes = unpacker.bytes();
  return result;
}

}  // namespace

std::optional<std::string> linkLeadingOutside(const fs::path& root_path,
                                              const std::vector<std::string>& links) {
  std::error_code ec;
  const fs::path root = fs::canonical(root_path, ec);
  if (ec) return root_path.string();
  for (const auto& link : links) {
    const fs::path resolved = fs::weakly_canonical(root_path / link, ec);
    if (ec) return link;
    auto rel = resolved.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") return link;
  }
  return std::nullopt;
}

CleanPath cleanArchivePath(std::string_view raw) {
  CleanPath out;
  if (!raw.empty() && raw.front() == '/') {
    out.error = std::string(raw) + ": absolute paths are not allowed in a release";
    return out;
  }
  std::size_t start = 0;
  while (start <= raw.size()) {
    auto end = raw.find('/', start);
    if (end == std::string_view::npos) end = raw.size();
    auto part = raw.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      out.path.clear();
      out.error = std::string(raw) + ": '..' is not allowed in a release path";
      return out;
    }
    if (!out.path.empty()) out.path += '/';
    out.path += part;
  }
  return out;
}

UnpackResult unpackRelease(const fs::path& archive_file, const fs::path& release_dir,
                           const UnpackLimits& limits) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(archive_file, ec);
  return unpackWith(
      [&](archive* a) { return archive_read_open_filename(a, archive_file.c_str(), 64 * 1024); },
      release_dir, limits, ec ? 0 : static_cast<std::uint64_t>(size));
}

UnpackResult unpackReleaseFromMemory(std::string_view archive_bytes, const fs::path& release_dir,
                                     const UnpackLimits& limits) {
  return unpackWith(
      [&](archive* a) {
        return archive_read_open_memory(a, archive_bytes.data(), archive_bytes.size());
      },
      release_dir, limits, archive_bytes.size());
}

}  // namespace berth::runtime
