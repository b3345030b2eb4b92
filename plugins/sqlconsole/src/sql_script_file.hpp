// The import file itself: opened once, checked whole before anything runs (size, empty, SQLite
// or pg_dump archive, NUL bytes, UTF-8), then read in chunks. The checks stream the file, so it
// is never held in memory for them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace berth::sqlconsole {

class ScriptFile {
 public:
  // Opens path and checks it; throws ScriptError (Empty, TooLarge, Sqlite, PgDumpArchive,
  // Binary, NotUtf8, Io). A UTF-8 byte order mark at the start is allowed and skipped.
  ScriptFile(const std::string& path, uint64_t max_bytes);
  ~ScriptFile();
  ScriptFile(const ScriptFile&) = delete;
  ScriptFile& operator=(const ScriptFile&) = delete;

  uint64_t size() const { return size_; }
  // Where the script's text starts: 3 after a byte order mark, else 0.
  uint64_t textStart() const { return textStart_; }
  // Reads up to n bytes at offset into out (which it appends to); returns how many. Throws
  // ScriptError (Io).
  size_t readAt(uint64_t offset, size_t n, std::string& out) const;

 private:
  void check(uint64_t max_bytes);

  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t textStart_ = 0;
};

// "256 MB" for 256 MiB, "1000 bytes" for sizes that are not whole megabytes.
std::string describeSize(uint64_t bytes);

}  // namespace berth::sqlconsole
