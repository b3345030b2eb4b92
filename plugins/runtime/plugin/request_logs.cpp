#include "request_logs.hpp"

#include <cmath>

namespace berth::runtime {

void RequestNotes::remember(const std::string& request_id, RequestNote note) {
  std::lock_guard lock(mutex_);
  if (!notes_.emplace(request_id, std::move(note)).second) return;
  order_.push_back(request_id);
  while (order_.size() > kMaxRemembered) {
    notes_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<RequestNote> RequestNotes::take(const std::string& request_id) {
  std::lock_guard lock(mutex_);
  auto found = notes_.find(request_id);
  if (found == notes_.end()) return std::nullopt;
  RequestNote note = std::move(found->second);
  notes_.erase(found);  // its id stays in order_ and is skipped when it comes up
  return note;
}

bool isLoopbackAddress(const std::string& address) {
  return address == "127.0.0.1" || address == "::1";
}

LogEntry requestLogEntry(const nlohmann::json& access, const std::optional<RequestNote>& note) {
  LogEntry entry;
  entry.at = access.value("at", std::int64_t{0});
  entry.kind = "request";
  entry.method = access.value("method", "");
  entry.path = access.value("path", "");
  entry.status = access.value("status", 0);
  entry.ms = static_cast<int>(std::lround(access.value("seconds", 0.0) * 1000.0));
  if (note && !note->method.empty()) entry.method = note->method;
  if (note && note->schedule) entry.message = *note->schedule;
  return entry;
}

}  // namespace berth::runtime
