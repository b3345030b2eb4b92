// The file an export is written to as rows stream from the database, compressed with zlib on
// the way when asked (gzip format), so a database of any size passes through a buffer of fixed
// size and never sits in memory.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <zlib.h>

namespace berth::sqlconsole {

class ExportFile {
 public:
  // Creates path (it must not exist), readable by all: the edge's workers, another user, send
  // it; the folder it is in is not listable and the name is random. Throws std::runtime_error
  // when it cannot.
  ExportFile(std::string path, bool gzip);
  ~ExportFile();  // closes without the checks of close()
  ExportFile(const ExportFile&) = delete;
  ExportFile& operator=(const ExportFile&) = delete;

  // Buffered; throws std::runtime_error when the disk refuses (full, ...).
  void write(std::string_view bytes);
  // Flushes and closes; throws std::runtime_error when the file is not complete.
  void close();

  const std::string& path() const { return path_; }

 private:
  void flush();

  std::string path_;
  bool gzip_;
  int fd_ = -1;
  gzFile gz_ = nullptr;
  std::string buffer_;
};

}  // namespace berth::sqlconsole
