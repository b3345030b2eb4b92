#include "install_runs.hpp"

#include <berth/util/unix_time.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

namespace berth::templates {

namespace {

constexpr const char* kInterrupted = "berthd stopped during the install; run it again";

constexpr const char* kColumns =
    "id, project_id, project_name, template, caller, status, started_at, finished_at, error, "
    "progress, answer::text AS answer";

InstallRun runAt(const berth::DbResult& r, int64_t row) {
  InstallRun run;
  run.id = r.get<int64_t>(row, "id");
  run.project_id = r.get<std::string>(row, "project_id");
  run.project_name = r.get<std::string>(row, "project_name");
  run.template_slug = r.get<std::string>(row, "template");
  run.caller = r.get<std::string>(row, "caller");
  run.status = r.get<std::string>(row, "status");
  run.started_at = r.get<int64_t>(row, "started_at");
  run.finished_at = r.get<std::optional<int64_t>>(row, "finished_at");
  run.error = r.get<std::optional<std::string>>(row, "error");
  run.progress = r.get<std::optional<std::string>>(row, "progress");
  auto answer = r.get<std::optional<std::string>>(row, "answer");
  run.answer = answer ? nlohmann::json::parse(*answer, nullptr, false) : nlohmann::json(nullptr);
  return run;
}

}  // namespace

std::string thisNode(const berth::Services& services) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + ":" + services.coreSetting("data_dir").value_or("") + ":";
}

std::string thisBerthd(const berth::Services& services) {
  static const std::string boot = [] {
    std::random_device random;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%08x%08x", random(), random());
    return std::string(hex);
  }();
  return thisNode(services) + boot;
}

nlohmann::json toJson(const InstallRun& run) {
  return {{"project", run.project_name},
          {"template", run.template_slug},
          {"status", run.status},
          {"started_at", run.started_at},
          {"finished_at", run.finished_at ? nlohmann::json(*run.finished_at) : nullptr},
          {"error", run.error ? nlohmann::json(*run.error) : nullptr},
          {"progress", run.progress ? nlohmann::json(*run.progress) : nullptr}};
}

std::optional<InstallRun> InstallRuns::begin(const std::string& project_id,
                                             const std::string& project_name,
                                             const std::string& template_slug,
                                             const std::string& caller,
                                             const std::string& runner) const {
  int64_t now = berth::unixSeconds();
  db_.exec(
      "UPDATE templates.installs SET status = 'failed', finished_at = $2, error = $4 "
      "WHERE project_id = $1 AND status = 'installing' AND heartbeat_at < $3",
      project_id, now, now - kStaleAfterSeconds, kInterrupted);
  auto r = db_.exec(std::string("INSERT INTO templates.installs (project_id, project_name, "
                                "template, caller, status, started_at, heartbeat_at, runner) "
                                "VALUES ($1, $2, $3, $4, 'installing', $5, $5, $6) "
                                "ON CONFLICT (project_id) WHERE status = 'installing' DO NOTHING "
                                "RETURNING ") +
                        kColumns,
                    project_id, project_name, template_slug, caller, now, runner);
  if (r.empty()) return std::nullopt;
  return runAt(r, 0);
}

int64_t InstallRuns::failInterrupted(const std::string& node, const std::string& berthd) const {
  return db_
      .exec(
          "UPDATE templates.installs SET status = 'failed', finished_at = $3, error = $4 "
          "WHERE status = 'installing' AND starts_with(runner, $1::text) "
          "AND runner <> $2::text",
          node, berthd, berth::unixSeconds(), kInterrupted)
      .affected();
}

void InstallRuns::heartbeat(int64_t id) const {
  db_.exec(
      "UPDATE templates.installs SET heartbeat_at = $2 WHERE id = $1 AND status = "
      "'installing'",
      id, berth::unixSeconds());
}

bool InstallRuns::noteProgress(const std::string& project_id, const std::string& message) const {
  return db_.exec(
                "UPDATE templates.installs SET progress = $2, progress_at = $3 "
                "WHERE project_id = $1 AND status = 'installing'",
                project_id, message, berth::unixSeconds())
             .affected() > 0;
}

void InstallRuns::finish(int64_t id, const nlohmann::json& answer) const {
  db_.exec(
      "UPDATE templates.installs SET status = 'installed', finished_at = $2, "
      "answer = $3::jsonb WHERE id = $1",
      id, berth::unixSeconds(), answer.dump());
}

void InstallRuns::fail(int64_t id, const std::string& error) const {
  db_.exec(
      "UPDATE templates.installs SET status = 'failed', finished_at = $2, error = $3 "
      "WHERE id = $1",
      id, berth::unixSeconds(), error);
}

std::optional<InstallRun> InstallRuns::latest(const std::string& project_id,
                                              const std::string& template_slug) const {
  auto r = db_.exec(std::string("SELECT ") + kColumns +
                        " FROM templates.installs WHERE project_id = $1 AND template = $2 "
                        "ORDER BY id DESC LIMIT 1",
                    project_id, template_slug);
  if (r.empty()) return std::nullopt;
  return runAt(r, 0);
}

int64_t InstallRuns::removeProject(const std::string& project_id) const {
  return db_.exec("DELETE FROM templates.installs WHERE project_id = $1", project_id).affected();
}

}  // namespace berth::templates
