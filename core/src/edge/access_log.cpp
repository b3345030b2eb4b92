// nginx's access log, followed: see AccessLogTail in edge.hpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "edge/edge.hpp"
#include "log/logging.hpp"

namespace berth::core {

namespace {

using Clock = std::chrono::steady_clock;

// How long nginx's workers may still write to a rotated file after the new one exists: their
// buffers flush within flush= (nginx_config.cpp), and each reopens at its next event.
constexpr auto kRotatedGrace = std::chrono::seconds(3);
// nginx did not reopen (it was restarting, say): ask again after this.
constexpr auto kReopenAgain = std::chrono::seconds(10);
constexpr auto kPollInterval = std::chrono::milliseconds(50);

}  // namespace

bool isAccessLine(std::string_view line) {
  return line.starts_with("{\"request_id\":\"") && line.ends_with('}');
}

// One file being read: its descriptor, where the reading is, and a line not finished yet.
struct AccessLogTail::Source {
  int fd = -1;
  uint64_t offset = 0;
  std::string partial;
  Clock::time_point since{};  // a rotated file: since when nginx may have moved on

  Source() = default;
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() { close(); }
  bool open(const std::string& file) {
    close();
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    offset = 0;
    partial.clear();
    return fd >= 0;
  }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

AccessLogTail::AccessLogTail(std::string path, Callback callback, uint64_t rotate_bytes)
    : path_(std::move(path)), callback_(std::move(callback)), rotate_bytes_(rotate_bytes) {}

AccessLogTail::~AccessLogTail() {
  stop();
}

void AccessLogTail::setReopen(std::function<void()> reopen) {
  reopen_ = std::move(reopen);
}

void AccessLogTail::start() {
  if (thread_.joinable()) return;
  // nginx appends to it; made here so that it is berthd's, readable before nginx starts, and
  // nobody else's (its lines name clients and paths): nginx keeps the mode of a file it finds.
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw std::runtime_error("cannot create the access log " + path_ + ": " + strerror(errno));
  int changed = ::fchmod(fd, 0600);
  int error = errno;
  ::close(fd);
  if (changed != 0)
    throw std::runtime_error("cannot make the access log " + path_ +
                             " private: " + strerror(error));
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void AccessLogTail::stop() {
  {
    std::lock_guard lock(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool AccessLogTail::drain(Source& source) {
  if (source.fd < 0) return false;
  static thread_local std::vector<char> buffer(256 * 1024);
  bool any = false;
  while (true) {
    ssize_t got = ::read(source.fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    any = true;
    source.offset += static_cast<uint64_t>(got);
    std::string_view chunk(buffer.data(), static_cast<size_t>(got));
    size_t begin = 0;
    while (true) {
      size_t end = chunk.find('\n', begin);
      if (end == std::string_view::npos) break;
      std::string_view line = chunk.substr(begin, end - begin);
      if (!source.partial.empty()) {
        source.partial.append(line);
        line = source.partial;
      }
      if (isAccessLine(line)) {
        try {
          callback_(line);
        } catch (const std::exception& e) {
          getLogger("edge")->error("access log callback failed: {}", e.what());
        }
      } else if (!line.empty()) {
        getLogger("edge")->debug("ignoring an access log line that is not ours");
      }
      source.partial.clear();
      begin = end + 1;
    }
    source.partial.append(chunk.substr(begin));
  }
  return any;
}

namespace {

// How far the current file has been read, kept beside it ("<path>.read") so that a restart
// neither repeats nor skips lines.
class ReadMark {
 public:
  explicit ReadMark(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {}
  ~ReadMark() {
    if (fd_ >= 0) ::close(fd_);
  }
  ReadMark(const ReadMark&) = delete;
  ReadMark& operator=(const ReadMark&) = delete;
  uint64_t load() const {
    uint64_t value = 0;
    return fd_ >= 0 && ::pread(fd_, &value, sizeof value, 0) == sizeof value ? value : 0;
  }
  void save(uint64_t value) {
    if (fd_ < 0 || value == saved_) return;
    if (::pwrite(fd_, &value, sizeof value, 0) == sizeof value) saved_ = value;
  }

 private:
  int fd_;
  uint64_t saved_ = UINT64_MAX;
};

}  // namespace

void AccessLogTail::run() {
  auto logger = getLogger("edge");
  const std::string rotated_path = path_ + ".1";
  ReadMark mark(path_ + ".read");
  Source current, rotated;
  // An earlier run stopped in the middle of a rotation: its lines first.
  if (rotated.open(rotated_path)) {
    drain(rotated);
    rotated.close();
    ::unlink(rotated_path.c_str());
  }
  if (current.open(path_)) {
    // Where the last run stopped reading, unless the file is not the one it read.
    const uint64_t read = mark.load();
    struct stat st {};
    if (read > 0 && ::fstat(current.fd, &st) == 0 && read <= static_cast<uint64_t>(st.st_size) &&
        ::lseek(current.fd, static_cast<off_t>(read), SEEK_SET) >= 0)
      current.offset = read;
  }
  Clock::time_point reopen_asked{};
  while (true) {
    const bool stopping = stopping_;
    bool read_any = drain(rotated);
    read_any = drain(current) || read_any;
    // Only whole lines count as read: a partial one is read again after a restart.
    if (current.fd >= 0) mark.save(current.offset - current.partial.size());
    if (stopping) break;

    if (rotated.fd >= 0) {
      // The new file appears when nginx reopens; until then its lines still go to the old one.
      // nginx makes it 0644 (in a folder only berthd and nginx's workers enter): made private
      // as soon as it is seen, nginx keeps the mode from then on.
      if (current.fd < 0 && current.open(path_)) {
        rotated.since = Clock::now();
        if (::fchmod(current.fd, 0600) != 0)
          logger->error("cannot make the access log {} private: {}", path_, strerror(errno));
      }
      if (current.fd >= 0 && Clock::now() - rotated.since >= kRotatedGrace) {
        drain(rotated);
        rotated.close();
        ::unlink(rotated_path.c_str());
      } else if (current.fd < 0 && Clock::now() - reopen_asked >= kReopenAgain && reopen_) {
        reopen_asked = Clock::now();
        reopen_();
      }
    } else if (current.fd < 0) {
      current.open(path_);  // removed behind our back: nginx makes it again at its next start
    } else if (current.offset >= rotate_bytes_ && current.partial.empty() && reopen_) {
      logger->info("access log rotated at {} bytes", current.offset);
      if (::rename(path_.c_str(), rotated_path.c_str()) == 0) {
        std::swap(rotated.fd, current.fd);
        rotated.offset = current.offset;
        rotated.since = Clock::now();
        current.close();
        current.offset = 0;
        reopen_asked = Clock::now();
        reopen_();
      } else {
        logger->error("cannot rotate the access log {}: {}", path_, strerror(errno));
      }
    }
    if (!read_any) {
      std::unique_lock lock(wake_mutex_);
      wake_.wait_for(lock, kPollInterval, [this] { return stopping_.load(); });
    }
  }
}

}  // namespace berth::core
