// cron ls|add|pause|resume|rm|runs: schedules that GET a path of the project on a cron timer.
#include "command.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

std::string schedulePath(Context& ctx, const std::string& id) {
  return ctx.projectPath() + "/schedules/" + urlEncode(id);
}

int cronLs(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/schedules");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("schedules", json::array());
  for (const auto& s : list) {
    std::string last = "-";
    if (s["last_run_at"].is_number()) {
      last = formatTime(s["last_run_at"]);
      if (s["last_status"].is_number()) last += " " + std::to_string(s["last_status"].get<int>());
      if (s["last_error"].is_string())
        last += " " + ctx.out.red(s["last_error"].get<std::string>());
    }
    rows.push_back({s.value("id", ""), s.value("name", ""), s.value("spec", ""),
                    s.value("path", ""),
                    s.value("enabled", false) ? formatTime(s["next_run_at"]) : "paused", last});
  }
  ctx.out.table({"ID", "NAME", "SPEC (UTC)", "PATH", "NEXT RUN", "LAST RUN"}, rows);
  return kExitOk;
}

int cronAdd(Context& ctx) {
  json s = ctx.api().post(ctx.projectPath() + "/schedules",
                          {{"name", ctx.word(0)}, {"spec", ctx.word(1)}, {"path", ctx.word(2)}});
  if (ctx.out.json())
    ctx.out.printJson(s);
  else
    ctx.out.line("added schedule " + s.value("id", "") + " (" + s.value("spec", "") + " GET " +
                 s.value("path", "") + ")");
  return kExitOk;
}

int setEnabled(Context& ctx, bool enabled) {
  std::string id = ctx.word(0);
  ctx.api().patch(schedulePath(ctx, id), {{"enabled", enabled}});
  if (ctx.out.json())
    ctx.out.printJson({{"id", id}, {"enabled", enabled}});
  else
    ctx.out.line((enabled ? "resumed " : "paused ") + id);
  return kExitOk;
}

int cronRm(Context& ctx) {
  std::string id = ctx.word(0);
  confirmOrThrow(ctx.yes(), "delete the schedule " + id + " and its run history");
  ctx.api().del(schedulePath(ctx, id));
  if (ctx.out.json())
    ctx.out.printJson({{"deleted", id}});
  else
    ctx.out.line("deleted " + id);
  return kExitOk;
}

int cronRuns(Context& ctx) {
  json r = ctx.api().get(schedulePath(ctx, ctx.word(0)) + "/runs");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("runs", json::array());
  for (const auto& run : list)
    rows.push_back({formatTime(run["due_at"]), formatTime(run["at"]), cellText(run["status"]),
                    std::to_string(run.value("ms", 0)) + "ms",
                    run["error"].is_string() ? run["error"].get<std::string>() : ""});
  ctx.out.table({"DUE", "STARTED", "STATUS", "TOOK", "ERROR"}, rows);
  return kExitOk;
}

}  // namespace

void addCronCommands(std::vector<Command>& out) {
  out.push_back({"cron ls",
                 "berth cron ls",
                 "the project's schedules with their next run",
                 {},
                 0,
                 0,
                 cronLs});
  out.push_back({"cron add",
                 "berth cron add NAME 'SPEC' PATH",
                 "GET PATH on a five-field cron spec (UTC)",
                 {},
                 3,
                 3,
                 cronAdd});
  out.push_back({"cron pause", "berth cron pause ID", "pause a schedule", {}, 1, 1, [](Context& c) {
                   return setEnabled(c, false);
                 }});
  out.push_back(
      {"cron resume", "berth cron resume ID", "resume a schedule", {}, 1, 1, [](Context& c) {
         return setEnabled(c, true);
       }});
  out.push_back({"cron rm", "berth cron rm ID --yes", "delete a schedule", {}, 1, 1, cronRm});
  out.push_back(
      {"cron runs", "berth cron runs ID", "a schedule's last 50 runs", {}, 1, 1, cronRuns});
}

}  // namespace berth::client
