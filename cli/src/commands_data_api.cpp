// data-api show|grant|revoke|rotate-key: what the browser data API's publishable key opens.
#include <set>

#include "command.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

const std::vector<std::string> kOperations = {"read", "create", "update", "delete"};

int dataApiShow(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/data-api");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  ctx.out.line("publishable key: " + r.value("key", ""));
  std::vector<std::vector<std::string>> rows;
  auto tables = r.value("tables", json::object());
  for (auto& [name, flags] : tables.items()) {
    std::vector<std::string> row = {name};
    for (const auto& op : kOperations)
      row.push_back(flags.value(op, false) ? ctx.out.green("yes") : "-");
    rows.push_back(row);
  }
  ctx.out.table({"TABLE", "READ", "CREATE", "UPDATE", "DELETE"}, rows);
  std::string functions;
  for (const auto& f : r.value("functions", json::array()))
    functions += (functions.empty() ? "" : ", ") + f.get<std::string>();
  ctx.out.line("functions: " + (functions.empty() ? std::string("none") : functions));
  return kExitOk;
}

int change(Context& ctx, bool open) {
  if (auto fn = ctx.args.value("function")) {
    if (!ctx.words.empty()) throw usageError("--function takes no table");
    json r = ctx.api().put(ctx.projectPath() + "/data-api/functions/" + urlEncode(*fn),
                           {{"enabled", open}});
    if (ctx.out.json())
      ctx.out.printJson(r);
    else
      ctx.out.line(std::string(open ? "enabled " : "disabled ") + "the function " + *fn);
    return kExitOk;
  }
  if (ctx.words.empty())
    throw usageError("name a table (berth data-api " + std::string(open ? "grant" : "revoke") +
                     " TABLE [read|create|update|delete...]) or --function NAME");
  std::string table = ctx.words[0];
  std::set<std::string> ops(ctx.words.begin() + 1, ctx.words.end());
  // Granting alone opens reading; revoking alone closes everything.
  if (ops.empty()) {
    if (open)
      ops = {"read"};
    else
      ops = {kOperations.begin(), kOperations.end()};
  }
  json body = json::object();
  for (const auto& op : ops) {
    if (std::find(kOperations.begin(), kOperations.end(), op) == kOperations.end())
      throw usageError("unknown operation " + op + "; read, create, update or delete");
    body[op] = open;
  }
  json r = ctx.api().put(ctx.projectPath() + "/data-api/tables/" + urlEncode(table), body);
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::string now;
  for (const auto& op : kOperations)
    if (r.value(op, false)) now += (now.empty() ? "" : ", ") + op;
  ctx.out.line(table + ": " + (now.empty() ? std::string("closed") : now));
  return kExitOk;
}

int rotateKey(Context& ctx) {
  confirmOrThrow(ctx.yes(), "make a new publishable key for " + ctx.project() +
                                " (the old one stops working at once)");
  json r = ctx.api().postEmpty(ctx.projectPath() + "/data-api/key");
  if (ctx.out.json())
    ctx.out.printJson(r);
  else
    ctx.out.line(r.value("key", ""));
  return kExitOk;
}

}  // namespace

void addDataApiCommands(std::vector<Command>& out) {
  out.push_back({"data-api show",
                 "berth data-api show",
                 "the publishable key and what it opens",
                 {},
                 0,
                 0,
                 dataApiShow});
  out.push_back({"data-api grant",
                 "berth data-api grant TABLE [OPERATION...] | --function F",
                 "open read (default), create, update, delete, or a function",
                 {"function"},
                 0,
                 5,
                 [](Context& c) { return change(c, true); }});
  out.push_back({"data-api revoke",
                 "berth data-api revoke TABLE [OPERATION...] | --function F",
                 "close operations (default: all) or a function",
                 {"function"},
                 0,
                 5,
                 [](Context& c) { return change(c, false); }});
  out.push_back({"data-api rotate-key",
                 "berth data-api rotate-key --yes",
                 "make a new publishable key",
                 {},
                 0,
                 0,
                 rotateKey});
}

}  // namespace berth::client
