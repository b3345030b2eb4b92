// Plain TCP to a loopback port, for requests written byte for byte (an absolute URI in the
// request line, say) that an HTTP client would not send as they are.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <string>

namespace berth::testing {

// A connected socket to 127.0.0.1:port with 30-second send and receive limits (a hung peer
// fails the test instead of hanging it); -1 when nothing listens.
inline int connectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  timeval timeout{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  return fd;
}

// One request written as is; the whole answer, until the peer closes ("" when nothing listens).
inline std::string rawExchange(uint16_t port, const std::string& request) {
  int fd = connectLoopback(port);
  if (fd < 0) return "";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  char buffer[4096];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) answer.append(buffer, got);
  ::close(fd);
  return answer;
}

// A listening socket on 127.0.0.1 at a free port (written to `port`), for a test's own app.
inline int listenLoopback(int backlog, int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(fd, backlog);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

// One request read by a test's own loopback server: the head and a Content-Length body (the
// edge sends no chunked bodies to apps); what arrived when the peer closes early.
inline std::string readHttpRequest(int fd) {
  std::string in;
  char buf[8192];
  size_t head_end;
  while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return in;
    in.append(buf, static_cast<size_t>(n));
  }
  std::string head = in.substr(0, head_end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t length = 0;
  if (auto cl = head.find("content-length: "); cl != std::string::npos)
    length = std::stoul(head.substr(cl + 16));
  while (in.size() < head_end + 4 + length) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  return in;
}

}  // namespace berth::testing
