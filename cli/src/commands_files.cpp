// files ls|put|get|rm: the project's public stored files (served at /_files/<path>).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "command.hpp"
#include "errors.hpp"
#include "progress.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

int filesLs(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/files");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("files", json::array());
  for (const auto& f : list)
    rows.push_back({f.value("path", ""), formatBytes(f.value("bytes", 0)),
                    f.value("content_type", ""), formatTime(f["updated_at"]), f.value("url", "")});
  ctx.out.table({"PATH", "SIZE", "TYPE", "UPDATED", "URL"}, rows);
  return kExitOk;
}

int filesPut(Context& ctx) {
  std::string local = ctx.word(0);
  std::string remote = ctx.word(1, fs::path(local).filename().string());
  std::ifstream in(local, std::ios::binary);
  if (!in) throw usageError("could not read " + local);
  std::stringstream s;
  s << in.rdbuf();
  json f = ctx.api().upload(ctx.projectPath() + "/files/" + encodePath(remote), s.str(),
                            "application/octet-stream");
  if (ctx.out.json())
    ctx.out.printJson(f);
  else
    ctx.out.line("stored " + f.value("path", remote) + " (" + formatBytes(f.value("bytes", 0)) +
                 ") at " + f.value("url", ""));
  return kExitOk;
}

int filesGet(Context& ctx) {
  std::string remote = ctx.word(0);
  json project = ctx.api().get(ctx.projectPath());
  std::string url = project.value("url", "") + "/_files/" + encodePath(remote);
  std::string target = ctx.args.get("output", fs::path(remote).filename().string());
  bool to_stdout = target == "-";
  FILE* sink = to_stdout ? stdout : std::fopen((target + ".part").c_str(), "wb");
  if (!sink) throw usageError("could not write " + target);
  HttpRequest req;
  req.target = url;
  req.sink = sink;
  req.authorize = false;
  req.progress_label = to_stdout ? "" : "downloading";
  HttpResponse r;
  try {
    r = ctx.api().send(req);
  } catch (...) {
    if (!to_stdout) std::fclose(sink), std::remove((target + ".part").c_str());
    throw;
  }
  if (!to_stdout) std::fclose(sink);
  if (r.status >= 400) {
    if (!to_stdout) std::remove((target + ".part").c_str());
    throwIfRefused(r);
  }
  if (!to_stdout) {
    std::rename((target + ".part").c_str(), target.c_str());
    if (ctx.out.json())
      ctx.out.printJson({{"path", remote}, {"file", target}});
    else
      ctx.out.note("wrote " + target);
  }
  return kExitOk;
}

int filesRm(Context& ctx) {
  std::string remote = ctx.word(0);
  confirmOrThrow(ctx.yes(), "delete the stored file " + remote + " of " + ctx.project());
  ctx.api().del(ctx.projectPath() + "/files/" + encodePath(remote));
  if (ctx.out.json())
    ctx.out.printJson({{"deleted", remote}});
  else
    ctx.out.line("deleted " + remote);
  return kExitOk;
}

}  // namespace

void addFilesCommands(std::vector<Command>& out) {
  out.push_back({"files ls", "berth files ls", "the project's stored files", {}, 0, 0, filesLs});
  out.push_back({"files put",
                 "berth files put LOCAL [PATH]",
                 "store a file (public at /_files/PATH)",
                 {},
                 1,
                 2,
                 filesPut});
  out.push_back({"files get",
                 "berth files get PATH [-o FILE|-]",
                 "download a stored file",
                 {"output"},
                 1,
                 1,
                 filesGet});
  out.push_back(
      {"files rm", "berth files rm PATH --yes", "delete a stored file", {}, 1, 1, filesRm});
}

}  // namespace berth::client
