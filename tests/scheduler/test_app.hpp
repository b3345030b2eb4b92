// A little HTTP app on loopback that schedules request in the scheduler's tests and benchmarks
// (through berthd's edge and the schedtarget fixture plugin). One request per connection:
//   /status/<code>   answers <code>
//   /sleep/<ms>      waits <ms> milliseconds, then answers 200
//   /switch/<key>    answers the status set with setStatus(key, code), 200 until set
//   anything else    answers 200
// It records every request it read (method, target, Host, x-berth-schedule, arrival time).
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace berth::testing::scheduler {

class TestApp {
 public:
  struct Hit {
    std::string method, target, host, schedule;
    int64_t at_ms = 0;  // wall clock, Unix milliseconds
  };

  explicit TestApp(int workers = 32) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(listener_, 1024) != 0)
      throw std::runtime_error("the test app could not listen");
    socklen_t len = sizeof addr;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { workLoop(); });
  }

  ~TestApp() {
    stopping_ = true;
    cv_.notify_all();
    acceptor_.join();
    for (auto& w : workers_) w.join();
    for (int fd : waiting_) close(fd);
    close(listener_);
  }

  TestApp(const TestApp&) = delete;
  TestApp& operator=(const TestApp&) = delete;

  uint16_t port() const { return port_; }

  void setStatus(const std::string& key, int status) {
    std::lock_guard lock(mutex_);
    switches_[key] = status;
  }

  std::vector<Hit> hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
  }

  std::vector<Hit> hitsOf(const std::string& schedule_id) const {
    std::vector<Hit> out;
    for (auto& h : hits())
      if (h.schedule == schedule_id) out.push_back(h);
    return out;
  }

  void clearHits() {
    std::lock_guard lock(mutex_);
    hits_.clear();
  }

 private:
  static int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void acceptLoop() {
    while (!stopping_) {
      pollfd p{listener_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      {
        std::lock_guard lock(mutex_);
        waiting_.push_back(fd);
      }
      cv_.notify_one();
    }
  }

  void workLoop() {
    while (true) {
      int fd = -1;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
        if (stopping_) return;
        fd = waiting_.front();
        waiting_.pop_front();
      }
      serve(fd);
      close(fd);
    }
  }

  static std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  void serve(int fd) {
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      request.append(buf, static_cast<size_t>(n));
    }
    Hit hit;
    hit.at_ms = nowMs();
    size_t line_end = request.find("\r\n");
    std::string line = request.substr(0, line_end);
    size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
    if (sp1 == std::string::npos || sp2 == sp1) return;
    hit.method = line.substr(0, sp1);
    hit.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    for (size_t at = line_end + 2; at < request.size();) {
      size_t end = request.find("\r\n", at);
      if (end == std::string::npos || end == at) break;
      std::string header = request.substr(at, end - at);
      size_t colon = header.find(':');
      if (colon != std::string::npos) {
        std::string name = lower(header.substr(0, colon));
        std::string value = header.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (name == "host") hit.host = value;
        if (name == "x-berth-schedule") hit.schedule = value;
      }
      at = end + 2;
    }
    std::string path = hit.target.substr(0, hit.target.find('?'));
    int status = 200;
    {
      std::lock_guard lock(mutex_);
      hits_.push_back(hit);
      if (path.rfind("/switch/", 0) == 0) {
        auto it = switches_.find(path.substr(8));
        if (it != switches_.end()) status = it->second;
      }
    }
    if (path.rfind("/status/", 0) == 0) status = std::stoi(path.substr(8));
    if (path.rfind("/sleep/", 0) == 0) {
      auto until =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(std::stoi(path.substr(7)));
      while (!stopping_ && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::string body = "ok";
    std::string response =
        "HTTP/1.1 " + std::to_string(status) +
        " Test\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
    send(fd, response.data(), response.size(), MSG_NOSIGNAL);
  }

  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<int> waiting_;
  std::vector<Hit> hits_;
  std::map<std::string, int> switches_;
  std::thread acceptor_;
  std::vector<std::thread> workers_;
};

}  // namespace berth::testing::scheduler
