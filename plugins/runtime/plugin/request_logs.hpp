// Request logs from the edge's access log (the core fires edge.access for every request nginx
// finished): a request on a project host becomes a `request` entry of that project's logs.
// A schedule's run is one too, with the schedule's id as its message (docs/openapi.yaml,
// GET /projects/{name}/logs): the gateway sees the x-berth-schedule header, the access log does
// not, so the gateway remembers request id -> schedule id for the access hook to pick up. It
// remembers the method the same way when it is not GET: nginx logs GET for every request it
// passed on through an internal redirect (X-Accel-Redirect), which all gateway answers are.
#pragma once
#include <berth/util/access_line.hpp>

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "log_store.hpp"

namespace berth::runtime {

struct RequestNote {
  std::string method;                   // empty: the access log's own
  std::optional<std::string> schedule;  // the schedule that made the request
  bool proxied = false;                 // sent to the node that owns the app, whose edge logs it
};

class RequestNotes {
 public:
  // Bounded: access log lines normally follow their request within milliseconds, so only
  // the newest ids matter; the oldest give way.
  static constexpr std::size_t kMaxRemembered = 8192;

  void remember(const std::string& request_id, RequestNote note);
  std::optional<RequestNote> take(const std::string& request_id);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, RequestNote> notes_;
  std::deque<std::string> order_;
};

// Is this the address of a request made on this machine (X-Real-IP 127.0.0.1 or ::1)? Only
// such requests may name a schedule: anyone can send the header.
bool isLoopbackAddress(const std::string& address);

// The `request` entry of an edge.access line, corrected by what the gateway noted; message: the
// schedule id, if it was a schedule's run.
LogEntry requestLogEntry(const berth::AccessLine& access, const std::optional<RequestNote>& note);

}  // namespace berth::runtime
