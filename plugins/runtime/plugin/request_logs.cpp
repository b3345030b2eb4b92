#include "request_logs.hpp"

#include <cmath>

namespace berth::runtime {

void ScheduleRequests::remember(const std::string& request_id, const std::string& schedule_id) {
  std::lock_guard lock(mutex_);
  if (!schedules_.emplace(request_id, schedule_id).second) return;
  order_.push_back(request_id);
  while (order_.size() > kMaxRemembered) {
    schedules_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<std::string> ScheduleRequests::take(const std::string& request_id) {
  std::lock_guard lock(mutex_);
  auto found = schedules_.find(request_id);
  if (found == schedules_.end()) return std::nullopt;
  std::string schedule = std::move(found->second);
  schedules_.erase(found);  // its id stays in order_ and is skipped when it comes up
  return schedule;
}

bool isLoopbackAddress(const std::string& address) {
  return address == "127.0.0.1" || address == "::1";
}

LogEntry requestLogEntry(const nlohmann::json& access, const std::optional<std::string>& schedule) {
  LogEntry entry;
  entry.at = access.value("at", std::int64_t{0});
  entry.kind = "request";
  entry.method = access.value("method", "");
  entry.path = access.value("path", "");
  entry.status = access.value("status", 0);
  entry.ms = static_cast<int>(std::lround(access.value("seconds", 0.0) * 1000.0));
  if (schedule) entry.message = *schedule;
  return entry;
}

}  // namespace berth::runtime
