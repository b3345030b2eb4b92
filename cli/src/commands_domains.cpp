// domains ls|add|verify|rm: custom domains and the DNS records that prove them.
#include "command.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

void printRecords(Context& ctx, const json& d) {
  auto records = d.value("records", json::array());
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : records)
    rows.push_back({r.value("type", ""), r.value("name", ""), r.value("value", "")});
  ctx.out.table({"TYPE", "NAME", "VALUE"}, rows);
}

int domainsLs(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/domains");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("domains", json::array());
  for (const auto& d : list) {
    std::string txt;
    for (const auto& rec : d.value("records", json::array()))
      if (rec.value("type", "") == "TXT") txt = rec.value("value", "");
    rows.push_back(
        {d.value("host", ""),
         d.value("verified", false) ? ctx.out.green("verified") : ctx.out.yellow("claimed"),
         formatTime(d["created_at"]), d.value("verified", false) ? "" : txt});
  }
  ctx.out.table({"HOST", "STATE", "CLAIMED", "TXT TO PUBLISH"}, rows);
  return kExitOk;
}

int domainsAdd(Context& ctx) {
  json d = ctx.api().post(ctx.projectPath() + "/domains", {{"host", ctx.word(0)}});
  if (ctx.out.json()) {
    ctx.out.printJson(d);
    return kExitOk;
  }
  ctx.out.line("claimed " + d.value("host", "") +
               "; publish these records, then berth domains "
               "verify " +
               d.value("host", "") + ":");
  printRecords(ctx, d);
  return kExitOk;
}

int domainsVerify(Context& ctx) {
  json d =
      ctx.api().postEmpty(ctx.projectPath() + "/domains/" + urlEncode(ctx.word(0)) + "/verify");
  if (ctx.out.json())
    ctx.out.printJson(d);
  else
    ctx.out.line(d.value("host", "") + " is verified and routes to " + ctx.project());
  return kExitOk;
}

int domainsRm(Context& ctx) {
  std::string host = ctx.word(0);
  confirmOrThrow(ctx.yes(), "remove the domain " + host + " from " + ctx.project());
  ctx.api().del(ctx.projectPath() + "/domains/" + urlEncode(host));
  if (ctx.out.json())
    ctx.out.printJson({{"removed", host}});
  else
    ctx.out.line("removed " + host);
  return kExitOk;
}

}  // namespace

void addDomainsCommands(std::vector<Command>& out) {
  out.push_back(
      {"domains ls", "berth domains ls", "the project's custom domains", {}, 0, 0, domainsLs});
  out.push_back({"domains add",
                 "berth domains add HOST",
                 "claim a domain (prints its records)",
                 {},
                 1,
                 1,
                 domainsAdd});
  out.push_back({"domains verify",
                 "berth domains verify HOST",
                 "check its TXT record",
                 {},
                 1,
                 1,
                 domainsVerify});
  out.push_back(
      {"domains rm", "berth domains rm HOST --yes", "remove a domain", {}, 1, 1, domainsRm});
}

}  // namespace berth::client
