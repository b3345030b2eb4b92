#include "export_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace berth::sqlconsole {
namespace {

constexpr size_t kBuffer = size_t{1} << 20;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("export file " + path + ": " + what);
}

}  // namespace

ExportFile::ExportFile(std::string path, bool gzip) : path_(std::move(path)), gzip_(gzip) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(path_, std::strerror(errno));
  ::fchmod(fd_, 0644);  // whatever the umask: the edge's workers may run as another user
  if (gzip_) {
    // Level 6, zlib's default: about as small as 9 at a third of the time.
    gz_ = gzdopen(fd_, "wb6");
    if (gz_ == nullptr) {
      ::close(fd_);
      fd_ = -1;
      fail(path_, "gzdopen failed");
    }
    fd_ = -1;  // gz_ owns it now
    gzbuffer(gz_, 256 * 1024);
  }
  buffer_.reserve(kBuffer);
}

ExportFile::~ExportFile() {
  if (gz_ != nullptr) gzclose(gz_);
  if (fd_ >= 0) ::close(fd_);
}

void ExportFile::write(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBuffer) flush();
  if (bytes.size() >= kBuffer) {
    buffer_.append(bytes);
    flush();
    return;
  }
  buffer_.append(bytes);
}

void ExportFile::flush() {
  if (buffer_.empty()) return;
  if (gz_ != nullptr) {
    size_t done = 0;
    while (done < buffer_.size()) {
      const unsigned chunk =
          static_cast<unsigned>(std::min<size_t>(buffer_.size() - done, size_t{1} << 30));
      const int wrote = gzwrite(gz_, buffer_.data() + done, chunk);
      if (wrote <= 0) {
        int code = 0;
        fail(path_, std::string("compressing failed: ") + gzerror(gz_, &code));
      }
      done += static_cast<size_t>(wrote);
    }
  } else {
    size_t done = 0;
    while (done < buffer_.size()) {
      const ssize_t wrote = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) fail(path_, std::strerror(errno));
      done += static_cast<size_t>(wrote);
    }
  }
  buffer_.clear();
}

void ExportFile::close() {
  flush();
  if (gz_ != nullptr) {
    const int result = gzclose(gz_);
    gz_ = nullptr;
    if (result != Z_OK) fail(path_, "finishing the gzip stream failed");
  }
  if (fd_ >= 0) {
    const int result = ::close(fd_);
    fd_ = -1;
    if (result != 0) fail(path_, std::strerror(errno));
  }
}

}  // namespace berth::sqlconsole
