// logs [-n N] [--kind K] [--follow]: the project's log, oldest first; --follow asks again with
// the last answer's cursor (the route's `after`) every second.
#include <chrono>
#include <thread>

#include "command.hpp"
#include "errors.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

std::string entryText(const Output& out, const json& e) {
  std::string kind = e.value("kind", "");
  std::string text = formatTime(e["at"]) + " " + out.dim(kind) + " ";
  if (kind == "request") {
    text += e["method"].is_string() ? e["method"].get<std::string>() : "-";
    text += " ";
    text += e["path"].is_string() ? e["path"].get<std::string>() : "-";
    if (e["status"].is_number()) {
      int st = e["status"].get<int>();
      std::string s = std::to_string(st);
      text += " " + (st >= 500 ? out.red(s) : st >= 400 ? out.yellow(s) : s);
    }
    if (e["ms"].is_number()) text += " " + std::to_string(e["ms"].get<int64_t>()) + "ms";
    std::string m = e.value("message", "");
    if (!m.empty()) text += " " + out.dim("(" + m + ")");
  } else {
    text += e.value("message", "");
  }
  return text;
}

int logs(Context& ctx) {
  std::string kind = ctx.args.get("kind");
  if (!kind.empty() && kind != "request" && kind != "process" && kind != "platform" &&
      kind != "schedule")
    throw usageError("--kind is request, process, platform or schedule");
  long limit = 100;
  if (auto n = ctx.args.value("lines")) {
    try {
      size_t used = 0;
      limit = std::stol(*n, &used);
      if (used != n->size()) throw std::invalid_argument("n");
    } catch (const std::exception&) {
      throw usageError("-n takes a whole number from 1 to 1000");
    }
    if (limit < 1 || limit > 1000) throw usageError("-n takes a whole number from 1 to 1000");
  }
  bool follow = ctx.args.has("follow");
  std::string base = ctx.projectPath() + "/logs";
  json page = ctx.api().get(base + "?limit=" + std::to_string(limit));
  auto entries = page.value("logs", json::array());
  json shown = json::array();
  // The first page comes newest first; a log reads oldest first.
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (kind.empty() || it->value("kind", "") == kind) shown.push_back(*it);
  if (ctx.out.json() && !follow) {
    ctx.out.printJson({{"logs", shown}, {"cursor", page["cursor"]}});
    return kExitOk;
  }
  auto print = [&](const json& e) {
    if (ctx.out.json())
      ctx.out.printLine(e);
    else
      ctx.out.line(entryText(ctx.out, e));
  };
  for (const auto& e : shown) print(e);
  if (!follow) return kExitOk;
  std::string cursor = page["cursor"].is_string() ? page["cursor"].get<std::string>() : "";
  while (true) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::string path = base + "?limit=1000";
    if (!cursor.empty()) path += "&after=" + cursor;
    json next = ctx.api().get(path);
    auto fresh = next.value("logs", json::array());
    // Without a cursor yet (an empty log), the answer is newest first like the first page.
    if (cursor.empty()) std::reverse(fresh.begin(), fresh.end());
    for (const auto& e : fresh)
      if (kind.empty() || e.value("kind", "") == kind) print(e);
    if (next["cursor"].is_string()) cursor = next["cursor"].get<std::string>();
  }
}

}  // namespace

void addLogsCommands(std::vector<Command>& out) {
  out.push_back({"logs",
                 "berth logs [-n N] [--kind K] [--follow]",
                 "the project's requests, output and platform events (K: request, process, "
                 "platform)",
                 {"lines", "kind", "follow"},
                 0,
                 0,
                 logs});
}

}  // namespace berth::client
