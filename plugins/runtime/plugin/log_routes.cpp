// GET /projects/{name}/logs and the job that moves waiting log entries (process lines,
// platform events, requests) from berthd's memory into runtime_logs every second.
#include <berth/services/projects_directory.hpp>

#include "parts.hpp"
#include "release_part.hpp"

namespace berth::runtime {

namespace {

// src/log_store's statements name the table without its schema (its tests run them on the
// migration applied to a database of their own); here the plugin's schema comes first.
constexpr const char* kSearchPath = "SET LOCAL search_path = runtime, public";

}  // namespace

void flushLogs(Context& ctx) {
  for (auto& batch : ctx.logs.take()) {
    // Named references, not structured bindings: clang before 16 refuses to capture those.
    const std::string& project_id = batch.first;
    const auto& entries = batch.second;
    try {
      ctx.services->db().transaction([&](berth::Transaction& tx) {
        tx.exec(kSearchPath);
        tx.exec(kLockLogsSql, project_id);
        tx.exec(kInsertLogsSql, project_id, logBatchJson(entries));
        tx.exec(kTrimLogsSql, project_id, ctx.config.log_keep);
      });
    } catch (const std::exception& e) {
      ctx.logger().warn("project " + project_id + ": " + std::to_string(entries.size()) +
                        " log entries not stored: " + e.what());
    }
  }
}

void registerLogs(berth::Registrar& r, Context& context) {
  Context* ctx = &context;
  r.get("/projects/:name/logs", [ctx](const berth::Request& req, berth::Responder& resp) {
    // 404 "no project called <name>" unless the caller reaches it.
    const std::string project_id =
        berth::ProjectsDirectory(*ctx->services).find(req.caller().accountId, req.param("name")).id;
    std::optional<std::string> text = req.queryParam("limit");
    LogLimit limit = parseLogLimit(text ? std::optional<std::string_view>(*text) : std::nullopt);
    if (limit.error) throw berth::Error::badRequest(*limit.error);
    std::optional<std::string> after_text = req.queryParam("after");
    LogCursor after =
        parseLogCursor(after_text ? std::optional<std::string_view>(*after_text) : std::nullopt);
    if (after.error) throw berth::Error::badRequest(*after.error);
    nlohmann::json logs = nlohmann::json::array();
    // Without `after`: the newest entries, newest first, and the cursor of the newest. With it:
    // the entries after that cursor, oldest first, and the cursor of the last one given (the
    // same cursor again when there is nothing new), to pass as `after` next time.
    nlohmann::json cursor = after.after ? nlohmann::json(logCursorText(*after.after)) : nullptr;
    ctx->services->db().transaction([&](berth::Transaction& tx) {
      tx.exec(kSearchPath);
      auto rows = after.after ? tx.exec(kSelectLogsAfterSql, project_id, limit.value, *after.after)
                              : tx.exec(kSelectLogsSql, project_id, limit.value);
      for (int64_t i = 0; i < rows.rows(); ++i) {
        LogEntry e;
        e.at = rows.get<std::int64_t>(i, 0);
        e.kind = rows.get<std::string>(i, 1);
        e.method = rows.get<std::optional<std::string>>(i, 2);
        e.path = rows.get<std::optional<std::string>>(i, 3);
        e.status = rows.get<std::optional<int>>(i, 4);
        e.ms = rows.get<std::optional<int>>(i, 5);
        e.message = rows.get<std::string>(i, 6);
        e.id = rows.get<std::int64_t>(i, 7);
        logs.push_back(logEntryJson(e));
      }
    });
    if (!logs.empty()) cursor = after.after ? logs.back()["cursor"] : logs.front()["cursor"];
    resp.json(200, {{"logs", std::move(logs)}, {"cursor", std::move(cursor)}});
  });

  r.job("logs_flush", std::chrono::seconds(1), [ctx](berth::JobContext&) { flushLogs(*ctx); });
}

}  // namespace berth::runtime
