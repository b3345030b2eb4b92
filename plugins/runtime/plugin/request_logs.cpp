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

LogEntry requestLogEntry(const berth::AccessLine& access, const std::optional<RequestNote>& note) {
  LogEntry entry;
  entry.at = access.at;
  entry.kind = "request";
  entry.method = access.method;
  entry.path = access.path;
  entry.status = access.status;
  entry.ms = static_cast<int>(std::lround(access.seconds * 1000.0));
  if (note && !note->method.empty()) entry.method = note->method;
  if (note && note->schedule) entry.message = *note->schedule;
  return entry;
}

}  // namespace berth::runtime
