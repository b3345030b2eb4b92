// A project's logs (docs/openapi.yaml, GET /projects/{name}/logs): requests (from the edge's
// access log), schedule runs, lines its process printed, platform events. They live in
// PostgreSQL, not in berthd's memory: they survive a restart and every node of a cluster sees
// the same logs. Each project keeps its newest `keep` entries: every flush inserts a batch and
// trims in the same transaction.
//
// Lines arrive much faster than one INSERT each could follow, so they wait in a LogBuffer
// (bounded per project; the oldest waiting lines give way) that a periodic job flushes.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth::runtime {

struct LogEntry {
  std::int64_t at = 0;  // Unix seconds, like every other timestamp of the API
  std::string kind;     // request, schedule, process, platform
  std::optional<std::string> method;
  std::optional<std::string> path;
  std::optional<int> status;
  std::optional<int> ms;
  std::string message;
  std::int64_t id = 0;  // runtime_logs.id once stored (0 while waiting): the entry's cursor
};

bool isLogKind(std::string_view kind);

// {at, kind, method, path, status, ms, message}, plus cursor (a string) for a stored entry;
// absent fields are null.
nlohmann::json logEntryJson(const LogEntry& entry);

// GET /projects/{name}/logs?limit=N: default 100, 1 to 1000; otherwise 400 with the error.
struct LogLimit {
  int value = 100;
  std::optional<std::string> error;  // "limit must be a whole number from 1 to 1000"
};
LogLimit parseLogLimit(std::optional<std::string_view> text);

// GET /projects/{name}/logs?after=C: C is the cursor of an entry an earlier answer gave (the
// entry's id in runtime_logs, as decimal text). nullopt when absent; otherwise 400 on error.
struct LogCursor {
  std::optional<std::int64_t> after;
  std::optional<std::string> error;  // "after must be a cursor from an earlier answer"
};
LogCursor parseLogCursor(std::optional<std::string_view> text);
std::string logCursorText(std::int64_t id);

// Statements on the table of migrations/0001 (runtime_logs). Values are always parameters.
// $1 project id (text, the projects plugin's id), $2 JSON array of entries (logBatchJson).
extern const char* const kInsertLogsSql;
// $1 project id (text, the projects plugin's id), $2 how many newest entries to keep. Run after the
// insert, same transaction.
extern const char* const kTrimLogsSql;
// $1 project id (text, the projects plugin's id), $2 limit: newest first, columns at, kind,
// method, path, status, ms, message, id (the cursor).
extern const char* const kSelectLogsSql;
// $1 project id, $2 limit, $3 cursor (id): the entries strictly after it, oldest first, same
// columns.
extern const char* const kSelectLogsAfterSql;
// $1 project id: taken by each flush before its insert, so a project's entries commit in the
// order of their ids and a reader following `after` never skips one committed later.
extern const char* const kLockLogsSql;

std::string logBatchJson(const std::vector<LogEntry>& entries);

class LogBuffer {
 public:
  explicit LogBuffer(std::size_t max_waiting_per_project = 5000, std::size_t max_message = 2000)
      : max_waiting_(max_waiting_per_project), max_message_(max_message) {}

  void add(const std::string& project_id, LogEntry entry);
  // Everything waiting, by project, oldest first; lines that gave way are counted in one
  // platform entry "<n> log lines were dropped: the app printed faster than they are stored".
  std::map<std::string, std::vector<LogEntry>> take();

 private:
  struct Waiting {
    std::deque<LogEntry> entries;
    std::uint64_t dropped = 0;
  };
  std::size_t max_waiting_;
  std::size_t max_message_;
  std::mutex mutex_;
  std::map<std::string, Waiting> waiting_;
};

}  // namespace berth::runtime
