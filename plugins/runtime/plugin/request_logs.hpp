// Request logs from the edge's access log (the core fires edge.access for every request nginx
// finished): a request on a project host becomes a `request` entry of that project's logs.
// A schedule's run is one too, with the schedule's id as its message (contract.md, Logs):
// the gateway sees the x-berth-schedule header, the access log does not, so the gateway
// remembers request id -> schedule id for the access hook to pick up.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>

#include "log_store.hpp"

namespace berth::runtime {

class ScheduleRequests {
 public:
  // Bounded: access log lines normally follow their request within milliseconds, so only
  // the newest ids matter; the oldest give way.
  static constexpr std::size_t kMaxRemembered = 4096;

  void remember(const std::string& request_id, const std::string& schedule_id);
  std::optional<std::string> take(const std::string& request_id);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> schedules_;
  std::deque<std::string> order_;
};

// Is this the address of a request made on this machine (X-Real-IP 127.0.0.1 or ::1)? Only
// such requests may name a schedule: anyone can send the header.
bool isLoopbackAddress(const std::string& address);

// The `request` entry of an edge.access payload ({request_id, host, method, path, status,
// seconds, bytes, edge, remote, at}); message: the schedule id, if it was a schedule's run.
LogEntry requestLogEntry(const nlohmann::json& access, const std::optional<std::string>& schedule);

}  // namespace berth::runtime
