// deploy, deploys, promote.
#include <unistd.h>

#include <chrono>
#include <thread>

#include "command.hpp"
#include "errors.hpp"
#include "pack.hpp"
#include "progress.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

// Polls the release until it is no longer building; build output is shown on stderr as it
// grows.
json followBuild(Context& ctx, const std::string& path) {
  bool tty = ::isatty(STDERR_FILENO);
  auto started = std::chrono::steady_clock::now();
  size_t shown = 0;
  while (true) {
    json r = ctx.api().get(path);
    std::string log = r.value("build_log", "");
    if (!ctx.out.json() && log.size() > shown) {
      if (tty) std::fprintf(stderr, "\r\x1b[K");
      std::fwrite(log.data() + shown, 1, log.size() - shown, stderr);
      if (log.back() != '\n') std::fputc('\n', stderr);
      shown = log.size();
    }
    if (r.value("status", "") != "building") {
      if (tty && !ctx.out.json()) std::fprintf(stderr, "\r\x1b[K");
      return r;
    }
    if (tty && !ctx.out.json()) {
      auto s = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                                started)
                   .count();
      std::fprintf(stderr, "\rbuilding... %llds\x1b[K", static_cast<long long>(s));
      std::fflush(stderr);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
  }
}

int deploy(Context& ctx) {
  std::string dir = ctx.word(0, ".");
  std::string project = ctx.project();
  PackStats stats;
  std::string archive = packFolder(dir, &stats);
  if (!ctx.out.json())
    ctx.out.note("packed " + std::to_string(stats.files) + " files (" + formatBytes(stats.bytes) +
                 ", " + formatBytes(archive.size()) + " compressed)");
  std::vector<std::string> headers;
  if (auto cmd = ctx.args.value("cmd")) headers.push_back("x-berth-cmd: " + *cmd);
  json release = ctx.api().upload(ctx.projectPath() + "/deploys", std::move(archive),
                                  "application/gzip", std::move(headers));
  std::string id = release.value("id", "");
  if (ctx.args.has("detach")) {
    if (ctx.out.json())
      ctx.out.printJson(release);
    else
      ctx.out.line("release " + id + " is building; berth deploys shows how it went");
    return kExitOk;
  }
  json done = followBuild(ctx, ctx.projectPath() + "/deploys/" + urlEncode(id));
  std::string status = done.value("status", "");
  if (status == "failed") {
    std::string error =
        done["error"].is_string() ? done["error"].get<std::string>() : "the build failed";
    if (ctx.out.json()) ctx.out.printJson(done);
    throw CliError(kExitDeployFailed, "release " + id + " failed: " + error);
  }
  json project_now = ctx.api().get(ctx.projectPath());
  std::string url = project_now.value("url", "");
  if (ctx.out.json()) {
    done["url"] = url;
    done.erase("build_log");
    ctx.out.printJson(done);
  } else {
    ctx.out.line("release " + id + " is " + ctx.out.status(status) + " at " + url);
  }
  return kExitOk;
}

int deploys(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/deploys");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("deploys", json::array());
  for (const auto& d : list)
    rows.push_back({d.value("id", ""), ctx.out.status(d.value("status", "")),
                    formatTime(d["created_at"]),
                    d["runtime"].is_string() ? d["runtime"].get<std::string>() : "-",
                    std::to_string(d.value("files", 0)),
                    d["error"].is_string() ? d["error"].get<std::string>() : ""});
  ctx.out.table({"ID", "STATUS", "CREATED", "RUNTIME", "FILES", "ERROR"}, rows);
  return kExitOk;
}

int promote(Context& ctx) {
  std::string id = ctx.word(0);
  json r = ctx.api().postEmpty(ctx.projectPath() + "/deploys/" + urlEncode(id) + "/promote");
  if (ctx.out.json())
    ctx.out.printJson(r);
  else
    ctx.out.line("release " + id + " is " + ctx.out.status(r.value("status", "live")));
  return kExitOk;
}

}  // namespace

void addDeployCommands(std::vector<Command>& out) {
  out.push_back({"deploy",
                 "berth deploy [DIR] [--cmd C] [--detach]",
                 "pack the folder, upload it and follow the build until it is live",
                 {"cmd", "detach"},
                 0,
                 1,
                 deploy});
  out.push_back(
      {"deploys", "berth deploys", "the project's releases, newest first", {}, 0, 0, deploys});
  out.push_back(
      {"promote", "berth promote ID", "make an earlier release live again", {}, 1, 1, promote});
}

}  // namespace berth::client
