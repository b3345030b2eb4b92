#include "sql_script_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <berth/common/utf8.hpp>
#include "sql_script_error.hpp"

namespace berth::sqlconsole {
namespace {

constexpr size_t kCheckChunk = 1 << 20;
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::string_view kPgDumpMagic = "PGDMP";  // pg_dump -Fc / -Ft members / -Fd toc.dat
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

[[noreturn]] void ioError(const std::string& what) {
  throw ScriptError(ScriptError::Kind::Io,
                    "the file cannot be read: " + what + ": " + std::strerror(errno));
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::string describeSize(uint64_t bytes) {
  constexpr uint64_t kMiB = 1 << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MB";
  return std::to_string(bytes) + " bytes";
}

ScriptFile::ScriptFile(const std::string& path, uint64_t max_bytes) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) ioError(path);
  try {
    check(max_bytes);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

ScriptFile::~ScriptFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t ScriptFile::readAt(uint64_t offset, size_t n, std::string& out) const {
  const size_t old = out.size();
  out.resize(old + n);
  size_t got = 0;
  while (got < n) {
    const ssize_t r =
        ::pread(fd_, out.data() + old + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      out.resize(old);
      ioError("read");
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(old + got);
  return got;
}

void ScriptFile::check(uint64_t max_bytes) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) ioError("stat");
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > max_bytes) {
    throw ScriptError(ScriptError::Kind::TooLarge, "the file is over " + describeSize(max_bytes));
  }
  if (size_ == 0) throw ScriptError(ScriptError::Kind::Empty, "the file is empty");

  std::string chunk;
  readAt(0, 16, chunk);
  if (chunk.size() == kSqliteMagic.size() && chunk == kSqliteMagic) {
    throw ScriptError(ScriptError::Kind::Sqlite, "the file is a SQLite database, not a SQL script");
  }
  if (chunk.starts_with(kPgDumpMagic)) {
    throw ScriptError(ScriptError::Kind::PgDumpArchive,
                      "the file is a pg_dump archive, not a SQL script (make the dump with "
                      "--format=plain, or turn it into one with pg_restore -f)");
  }
  if (chunk.starts_with(kByteOrderMark)) textStart_ = kByteOrderMark.size();

  // One pass over the whole file: a NUL byte anywhere makes it binary (that wins over invalid
  // UTF-8, which binary files usually are too); otherwise the first invalid UTF-8 sequence is
  // reported; a file of nothing but whitespace is empty.
  common::Utf8Validator utf8;
  bool only_space = true;
  for (uint64_t offset = textStart_; offset < size_;) {
    chunk.clear();
    const size_t got = readAt(offset, kCheckChunk, chunk);
    if (got == 0) break;  // the file shrank under us; what is left is checked
    if (std::memchr(chunk.data(), '\0', got) != nullptr) {
      throw ScriptError(ScriptError::Kind::Binary, "the file is binary, not a SQL script");
    }
    utf8.feed(chunk);
    if (only_space) {
      for (char c : chunk) {
        if (!isSpace(c)) {
          only_space = false;
          break;
        }
      }
    }
    offset += got;
  }
  utf8.finish();
  if (auto bad = utf8.firstInvalid()) {
    const uint64_t at = *bad + textStart_;
    throw ScriptError(
        ScriptError::Kind::NotUtf8,
        "the file is not UTF-8 text (invalid byte at offset " + std::to_string(at) + ")", 0, 0, at);
  }
  if (only_space) throw ScriptError(ScriptError::Kind::Empty, "the file is empty");
}

}  // namespace berth::sqlconsole
