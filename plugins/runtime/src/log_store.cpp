#include "log_store.hpp"

#include <chrono>

#include "berth/common/utf8.hpp"

namespace berth::runtime {

const char* const kInsertLogsSql =
    "INSERT INTO runtime_logs (project_id, at, kind, method, path, status, ms, message) "
    "SELECT $1::text, e.at, e.kind, e.method, e.path, e.status, e.ms, e.message "
    "FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (at bigint, kind text, method text, "
    "path text, status int, ms int, message text)) WITH ORDINALITY "
    "AS e(at, kind, method, path, status, ms, message, n) ORDER BY e.n";

// The id of the keep-th newest entry bounds what stays; the index (project_id, id) serves both
// the lookup and the delete.
const char* const kTrimLogsSql =
    "DELETE FROM runtime_logs WHERE project_id = $1::text AND id < ("
    "SELECT id FROM runtime_logs WHERE project_id = $1::text "
    "ORDER BY id DESC OFFSET $2::bigint - 1 LIMIT 1)";

const char* const kSelectLogsSql =
    "SELECT at, kind, method, path, status, ms, message, id FROM runtime_logs "
    "WHERE project_id = $1::text ORDER BY id DESC LIMIT $2::int";

const char* const kSelectLogsAfterSql =
    "SELECT at, kind, method, path, status, ms, message, id FROM runtime_logs "
    "WHERE project_id = $1::text AND id > $3::bigint ORDER BY id LIMIT $2::int";

const char* const kLockLogsSql =
    "SELECT pg_advisory_xact_lock(hashtext('runtime:logs:' || $1::text))";

bool isLogKind(std::string_view kind) {
  return kind == "request" || kind == "schedule" || kind == "process" || kind == "platform";
}

nlohmann::json logEntryJson(const LogEntry& e) {
  auto orNull = [](const auto& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {{"at", e.at},
                      {"kind", e.kind},
                      {"method", orNull(e.method)},
                      {"path", orNull(e.path)},
                      {"status", orNull(e.status)},
                      {"ms", orNull(e.ms)},
                      {"message", e.message}};
  if (e.id > 0) j["cursor"] = logCursorText(e.id);
  return j;
}

std::string logCursorText(std::int64_t id) {
  return std::to_string(id);
}

LogCursor parseLogCursor(std::optional<std::string_view> text) {
  LogCursor cursor;
  if (!text) return cursor;
  const std::string_view t = *text;
  std::int64_t value = 0;
  bool ok = !t.empty() && t.size() <= 18;  // fits an int64 whatever the digits
  for (char c : ok ? t : std::string_view()) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    value = value * 10 + (c - '0');
  }
  if (!ok) {
    cursor.error = "after must be a cursor from an earlier answer";
    return cursor;
  }
  cursor.after = value;
  return cursor;
}

LogLimit parseLogLimit(std::optional<std::string_view> text) {
  LogLimit limit;
  if (!text) return limit;
  const std::string_view t = *text;
  int value = 0;
  bool ok = !t.empty() && t.size() <= 4;
  for (char c : ok ? t : std::string_view()) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    value = value * 10 + (c - '0');
  }
  if (!ok || value < 1 || value > 1000) {
    limit.error = "limit must be a whole number from 1 to 1000";
    return limit;
  }
  limit.value = value;
  return limit;
}

std::string logBatchJson(const std::vector<LogEntry>& entries) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& e : entries) array.push_back(logEntryJson(e));
  // Invalid UTF-8 from an app's output must not fail the whole batch.
  return array.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void LogBuffer::add(const std::string& project_id, LogEntry entry) {
  // Never cut inside a UTF-8 sequence: a character straddling the cut goes whole.
  entry.message.resize(common::utf8CutPoint(entry.message, max_message_));
  std::lock_guard lock(mutex_);
  auto& waiting = waiting_[project_id];
  waiting.entries.push_back(std::move(entry));
  while (waiting.entries.size() > max_waiting_) {
    waiting.entries.pop_front();
    ++waiting.dropped;
  }
}

std::map<std::string, std::vector<LogEntry>> LogBuffer::take() {
  std::map<std::string, Waiting> taken;
  {
    std::lock_guard lock(mutex_);
    taken.swap(waiting_);
  }
  std::map<std::string, std::vector<LogEntry>> out;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (auto& [project, waiting] : taken) {
    auto& list = out[project];
    if (waiting.dropped > 0)
      list.push_back(LogEntry{now, "platform", std::nullopt, std::nullopt, std::nullopt,
                              std::nullopt,
                              std::to_string(waiting.dropped) +
                                  " log lines were dropped: the app printed faster than they "
                                  "are stored"});
    list.insert(list.end(), std::make_move_iterator(waiting.entries.begin()),
                std::make_move_iterator(waiting.entries.end()));
  }
  return out;
}

}  // namespace berth::runtime
