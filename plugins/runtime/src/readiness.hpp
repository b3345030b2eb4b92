// Is an app ready: does it accept connections on its loopback port, or (when a readiness path
// is configured) does that path answer with a status below 400.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace berth::runtime {

// Ports an app left a moment ago. The edge may still send requests to such a port until its
// reload is done (about a second), so it is not given to another app for `kHold`: they would
// reach the wrong project.
class PortQuarantine {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kHold{10};
  void hold(std::uint16_t port, Clock::time_point now = Clock::now());
  bool held(std::uint16_t port, Clock::time_point now = Clock::now());

 private:
  std::mutex mutex_;
  std::map<std::uint16_t, Clock::time_point> until_;
};
PortQuarantine& portQuarantine();  // this process's

// The first port an app may be given; apps get ports from here up to just below the kernel's
// ephemeral range (/proc/sys/net/ipv4/ip_local_port_range).
inline constexpr std::uint16_t kFirstAppPort = 10240;

// A free TCP port on 127.0.0.1 for an app, below the ephemeral range (bound once to check it
// is free), not one in portQuarantine(). Another process could take it before the app binds;
// the start then fails and is retried by the next request.
std::uint16_t freeLoopbackPort();

bool acceptsConnections(std::uint16_t port);

// The HTTP status of GET `path` on 127.0.0.1:port, nullopt when nothing answered in `timeout`.
std::optional<int> httpStatus(std::uint16_t port, const std::string& path,
                              std::chrono::milliseconds timeout);

}  // namespace berth::runtime
