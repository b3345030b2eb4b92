// nginx's access log arrives as syslog datagrams on a unix socket: no file to rotate, and
// berthd sees each request as it finishes (request logs, idle tracking).
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "edge/edge.hpp"
#include "log/logging.hpp"

namespace berth::core {
namespace {

std::string stringField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double numberField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

bool parseAccessLine(const std::string& datagram, AccessEntry& out) {
  // The syslog header ("<190>Nov 21 12:00:00 berth: ") ends where our JSON object starts.
  auto start = datagram.find('{');
  if (start == std::string::npos) return false;
  auto json = nlohmann::json::parse(datagram.begin() + static_cast<std::ptrdiff_t>(start),
                                    datagram.end(), nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("id")) return false;
  AccessEntry entry;
  entry.request_id = stringField(json, "id");
  entry.host = stringField(json, "host");
  entry.method = stringField(json, "method");
  entry.path = stringField(json, "path");
  entry.status = static_cast<int>(numberField(json, "status"));
  entry.seconds = numberField(json, "time");
  entry.bytes_sent = static_cast<uint64_t>(numberField(json, "bytes"));
  entry.edge = stringField(json, "edge");
  entry.remote = stringField(json, "remote");
  entry.at = static_cast<int64_t>(std::floor(numberField(json, "at")));
  if (entry.request_id.empty()) return false;
  out = std::move(entry);
  return true;
}

AccessLogReceiver::AccessLogReceiver(std::string socket_path, Callback callback)
    : path_(std::move(socket_path)), callback_(std::move(callback)) {}

AccessLogReceiver::~AccessLogReceiver() {
  stop();
}

void AccessLogReceiver::start() {
  if (fd_ >= 0) return;
  sockaddr_un addr{};
  if (path_.size() >= sizeof addr.sun_path) {
    throw std::runtime_error("access log socket path too long: " + path_);
  }
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      throw std::runtime_error(path_ + " exists and is not a socket; not removing it");
    }
    ::unlink(path_.c_str());  // left by an earlier run
  }
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw std::runtime_error("cannot open a unix socket: " + std::string(strerror(errno)));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    ::close(fd);
    throw std::runtime_error("cannot bind " + path_ + ": " + strerror(err));
  }
  // nginx workers may run as another user; only they and we know the path anyway.
  ::chmod(path_.c_str(), 0666);
  // Bursts of short requests must not fill the queue while the callback is busy.
  int buffer_bytes = 4 * 1024 * 1024;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
  fd_ = fd;
  stopping_ = false;
  thread_ = std::thread([this] {
    auto logger = getLogger("edge");
    std::vector<char> buffer(256 * 1024);
    while (!stopping_) {
      pollfd pfd{fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, 200);  // timeout: notice stop() without a wake-up pipe
      if (ready <= 0) continue;
      ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (got <= 0) continue;
      AccessEntry entry;
      if (!parseAccessLine(std::string(buffer.data(), static_cast<size_t>(got)), entry)) {
        logger->debug("ignoring an access log datagram that is not ours");
        continue;
      }
      try {
        callback_(entry);
      } catch (const std::exception& e) {
        logger->error("access log callback failed: {}", e.what());
      }
    }
  });
}

void AccessLogReceiver::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
  }
}

}  // namespace berth::core
