#include "readiness.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>

namespace berth::runtime {
namespace {

using Clock = std::chrono::steady_clock;

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

int connectTo(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  auto addr = loopback(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

void PortQuarantine::hold(std::uint16_t port, Clock::time_point now) {
  if (port == 0) return;
  std::lock_guard lock(mutex_);
  std::erase_if(until_, [now](const auto& entry) { return entry.second <= now; });
  until_[port] = now + kHold;
}

bool PortQuarantine::held(std::uint16_t port, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = until_.find(port);
  return it != until_.end() && it->second > now;
}

PortQuarantine& portQuarantine() {
  static PortQuarantine quarantine;
  return quarantine;
}

namespace {

// The kernel's ephemeral range (its source ports for outgoing connections), lowest first.
std::pair<std::uint16_t, std::uint16_t> ephemeralRange() {
  unsigned low = 32768, high = 60999;
  if (FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(f, "%u %u", &low, &high) != 2) low = 32768, high = 60999;
    std::fclose(f);
  }
  return {static_cast<std::uint16_t>(low), static_cast<std::uint16_t>(high)};
}

// Binds 127.0.0.1:port to see that it is free; true when it was.
bool bindsFree(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  auto addr = loopback(port);
  bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return free;
}

std::uint16_t kernelsFreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("cannot find a free port: socket failed");
  auto addr = loopback(0);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

std::uint16_t freeLoopbackPort() {
  // Below the kernel's ephemeral range: a port from inside it can be handed to a client as its
  // own source port while the app has not bound it yet, and the readiness poll connecting to
  // 127.0.0.1:P from source port P connects to itself and takes the app's port (seen with n8n).
  static thread_local std::mt19937 random{std::random_device{}()};
  const auto [ephemeral_low, ephemeral_high] = ephemeralRange();
  (void)ephemeral_high;
  if (ephemeral_low > kFirstAppPort + 1000) {
    std::uniform_int_distribution<unsigned> pick(kFirstAppPort, ephemeral_low - 1u);
    for (int attempt = 0; attempt < 200; ++attempt) {
      auto port = static_cast<std::uint16_t>(pick(random));
      if (!portQuarantine().held(port) && bindsFree(port)) return port;
    }
  }
  // A machine whose ephemeral range starts low leaves no room below it: the kernel's choice.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::uint16_t port = kernelsFreePort();
    if (!portQuarantine().held(port)) return port;
  }
  throw std::runtime_error("cannot find a free port: every one offered was just left by an app");
}

bool acceptsConnections(std::uint16_t port) {
  int fd = connectTo(port);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::optional<int> httpStatus(std::uint16_t port, const std::string& path,
                              std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  int fd = connectTo(port);
  if (fd < 0) return std::nullopt;
  const std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return std::nullopt;
  }
  std::string head;
  while (head.find("\r\n") == std::string::npos && head.size() < 1024) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    struct pollfd p {
      fd, POLLIN, 0
    };
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[512];
    ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) break;
    head.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  // "HTTP/1.1 200 OK"
  if (!head.starts_with("HTTP/") || head.find(' ') == std::string::npos) return std::nullopt;
  const auto space = head.find(' ');
  if (head.size() < space + 4) return std::nullopt;
  int status = 0;
  for (std::size_t i = space + 1; i < space + 4; ++i) {
    if (head[i] < '0' || head[i] > '9') return std::nullopt;
    status = status * 10 + (head[i] - '0');
  }
  return status;
}

}  // namespace berth::runtime
