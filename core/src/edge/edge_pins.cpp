#include "edge/edge_pins.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "log/logging.hpp"

namespace berth::core {
namespace {

// Each pin is a connect and two small requests on loopback; the hash that spreads connections
// over workers covers two of them in a few tries.
constexpr int kMaxTries = 64;
constexpr int kIoTimeoutMs = 2000;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool sendAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Reads until `done` says the text is complete, or the timeout; false on EOF or timeout.
template <class Done>
bool readUntil(int fd, std::string& text, Done done) {
  char buffer[1024];
  while (!done(text)) {
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, kIoTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.append(buffer, static_cast<size_t>(n));
  }
  return true;
}

bool headersDone(const std::string& text) {
  return text.find("\r\n\r\n") != std::string::npos;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The value of a header in a header block, or "".
std::string headerValue(const std::string& head, const std::string& name) {
  std::string lower = lowercase(head);
  size_t at = lower.find("\r\n" + lowercase(name) + ":");
  if (at == std::string::npos) return "";
  at += name.size() + 3;
  size_t end = head.find("\r\n", at);
  std::string value = head.substr(at, end - at);
  value.erase(0, value.find_first_not_of(' '));
  return value;
}

// The pin server's answer to "who": the worker's pid in a body of Content-Length bytes.
pid_t readWho(int fd) {
  std::string text;
  if (!readUntil(fd, text, headersDone)) return 0;
  size_t body = text.find("\r\n\r\n") + 4;
  size_t length = 0;
  try {
    length = std::stoul(headerValue(text.substr(0, body), "Content-Length"));
  } catch (const std::exception&) {
    return 0;
  }
  if (!readUntil(fd, text, [&](const std::string& t) { return t.size() >= body + length; }))
    return 0;
  try {
    return static_cast<pid_t>(std::stol(text.substr(body, length)));
  } catch (const std::exception&) {
    return 0;
  }
}

int connectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

// With read(2), not an ifstream: a process ending between the open and the read makes the read
// fail (ESRCH), and libstdc++ throws that out of an istreambuf_iterator whatever the stream's
// exception mask, which ended berthd from the edge's supervisor thread.
std::string readProcFile(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buffer[4096];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

namespace {

// The inodes of the sockets a process holds.
std::set<unsigned long> socketInodes(pid_t pid) {
  std::set<unsigned long> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* fds = ::opendir(dir.c_str());
  if (!fds) return out;
  while (dirent* entry = ::readdir(fds)) {
    char target[64];
    ssize_t n = ::readlink((dir + "/" + entry->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    unsigned long inode = 0;
    if (std::sscanf(target, "socket:[%lu]", &inode) == 1) out.insert(inode);
  }
  ::closedir(fds);
  return out;
}

// The inodes of TCP connections (not listeners) whose local port is one of `ports`.
std::set<unsigned long> clientConnections(const std::vector<uint16_t>& ports) {
  std::set<unsigned long> out;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream lines(readProcFile(table));
    std::string line;
    std::getline(lines, line);  // the column names
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
      unsigned long inode = 0;
      if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
            timeout >> inode))
        continue;
      size_t colon = local.rfind(':');
      if (colon == std::string::npos || state == "0A") continue;  // 0A: listening
      auto port = static_cast<uint16_t>(std::stoul(local.substr(colon + 1), nullptr, 16));
      if (std::find(ports.begin(), ports.end(), port) != ports.end()) out.insert(inode);
    }
  }
  return out;
}

bool shuttingDown(pid_t pid) {
  return readProcFile("/proc/" + std::to_string(pid) + "/cmdline").find("shutting down") !=
         std::string::npos;
}

}  // namespace

void EdgePins::releaseDone(const std::vector<uint16_t>& ports) {
  dropEnded();
  std::vector<pid_t> leaving;
  for (const auto& pin : pins_)
    if (shuttingDown(pin.worker)) leaving.push_back(pin.worker);
  if (leaving.empty()) return;
  const std::set<unsigned long> clients = clientConnections(ports);
  for (pid_t worker : leaving) {
    const std::set<unsigned long> held = socketInodes(worker);
    bool busy = std::any_of(held.begin(), held.end(),
                            [&](unsigned long inode) { return clients.contains(inode); });
    if (busy) continue;
    std::erase_if(pins_, [&](Pin& pin) {
      if (pin.worker != worker) return false;
      closeFd(pin.client);
      closeFd(pin.held);
      return true;
    });
  }
}

std::vector<pid_t> nginxServingWorkers(pid_t master) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* entry = ::readdir(proc)) {
    pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    const std::string dir = "/proc/" + std::to_string(pid);
    std::string stat = readProcFile(dir + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent != master || state == "Z") continue;
    std::string cmdline = readProcFile(dir + "/cmdline");
    // nginx retitles a leaving worker "worker process is shutting down".
    if (cmdline.find("worker process") != std::string::npos &&
        cmdline.find("shutting down") == std::string::npos)
      out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

EdgePins::EdgePins(std::string socket_path) : socket_path_(std::move(socket_path)) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof address.sun_path)
    throw std::runtime_error("the edge pin socket path is too long: " + socket_path_);
  std::memcpy(address.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
  listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ::unlink(socket_path_.c_str());
  bool ok = listener_ >= 0 &&
            ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
            // Workers may run as another user; the socket answers nothing to anyone.
            ::chmod(socket_path_.c_str(), 0666) == 0 && ::listen(listener_, 1024) == 0;
  if (!ok) {
    std::string error = std::strerror(errno);
    closeFd(listener_);
    throw std::runtime_error("cannot listen on " + socket_path_ + ": " + error);
  }
}

EdgePins::~EdgePins() {
  clear();
  closeFd(listener_);
  ::unlink(socket_path_.c_str());
}

void EdgePins::clear() {
  for (auto& pin : pins_) {
    closeFd(pin.client);
    closeFd(pin.held);
  }
  pins_.clear();
}

void EdgePins::dropEnded() {
  std::erase_if(pins_, [](Pin& pin) {
    pollfd p{pin.client, POLLIN | POLLRDHUP, 0};
    bool ended = ::poll(&p, 1, 0) != 0 || (::kill(pin.worker, 0) != 0 && errno == ESRCH);
    if (ended) {
      closeFd(pin.client);
      closeFd(pin.held);
    }
    return ended;
  });
}

size_t EdgePins::pinWorkers(pid_t master, uint16_t port) {
  dropEnded();
  std::vector<pid_t> wanted;
  for (pid_t worker : nginxServingWorkers(master)) {
    bool pinned = std::any_of(pins_.begin(), pins_.end(),
                              [&](const Pin& pin) { return pin.worker == worker; });
    if (!pinned) wanted.push_back(worker);
  }
  for (int tries = 0; !wanted.empty() && tries < kMaxTries; ++tries) tryOne(port, wanted);
  if (!wanted.empty())
    getLogger("edge")->warn("{} nginx worker(s) could not be pinned before a reload",
                            wanted.size());
  return wanted.size();
}

void EdgePins::tryOne(uint16_t port, std::vector<pid_t>& wanted) {
  int client = connectLoopback(port);
  if (client < 0) return;
  pid_t worker = 0;
  if (sendAll(client, "GET /_berth_pin/who HTTP/1.1\r\nHost: pin\r\n\r\n"))
    worker = readWho(client);
  auto found = std::find(wanted.begin(), wanted.end(), worker);
  if (found == wanted.end() ||
      !sendAll(client, "GET /_berth_pin/hold HTTP/1.1\r\nHost: pin\r\n\r\n")) {
    ::close(client);
    return;
  }
  // Pinned once nginx has passed the hold on: its worker is then waiting for an answer.
  for (;;) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, kIoTimeoutMs) <= 0) break;
    int held = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (held < 0) break;
    std::string head;
    if (readUntil(held, head, headersDone) &&
        headerValue(head, "X-Berth-Pin-Worker") == std::to_string(worker)) {
      pins_.push_back({worker, client, held});
      wanted.erase(found);
      return;
    }
    ::close(held);  // someone else's hold
  }
  ::close(client);
}

}  // namespace berth::core
