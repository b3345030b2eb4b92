// secrets ls|set K=V...|unset K...|import FILE: names and scopes only; values are never shown.
#include <fstream>
#include <sstream>

#include "command.hpp"
#include "env_file.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

namespace {

int secretsLs(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/secrets");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("secrets", json::array());
  for (const auto& s : list)
    rows.push_back({s.value("name", ""), s.value("scope", ""), formatTime(s["updated_at"])});
  ctx.out.table({"NAME", "SCOPE", "UPDATED"}, rows);
  return kExitOk;
}

int setAll(Context& ctx, const std::vector<std::pair<std::string, std::string>>& pairs) {
  json done = json::array();
  for (const auto& [name, value] : pairs) {
    json body = {{"name", name}, {"value", value}};
    if (auto scope = ctx.args.value("scope")) body["scope"] = *scope;
    done.push_back(ctx.api().post(ctx.projectPath() + "/secrets", body));
  }
  if (ctx.out.json()) {
    ctx.out.printJson({{"secrets", done}});
  } else {
    for (const auto& s : done)
      ctx.out.line("set " + s.value("name", "") + " (" + s.value("scope", "") + ")");
  }
  return kExitOk;
}

int secretsSet(Context& ctx) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& w : ctx.words) pairs.push_back(splitAssignment(w));
  return setAll(ctx, pairs);
}

int secretsImport(Context& ctx) {
  std::string file = ctx.word(0);
  std::string text;
  if (file == "-") {
    text = readAllStdin();
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw usageError("could not read " + file);
    std::stringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  std::vector<EnvEntry> entries;
  try {
    entries = parseEnvFile(text);
  } catch (const std::invalid_argument& e) {
    throw usageError(file + ", " + e.what());
  }
  if (entries.empty()) throw usageError(file + " sets nothing");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& e : entries) pairs.emplace_back(e.name, e.value);
  return setAll(ctx, pairs);
}

int secretsUnset(Context& ctx) {
  std::string names;
  for (const auto& w : ctx.words) names += (names.empty() ? "" : ", ") + w;
  confirmOrThrow(ctx.yes(), "remove the secret" + std::string(ctx.words.size() > 1 ? "s " : " ") +
                                names + " of " + ctx.project() + " (the project restarts)");
  for (const auto& w : ctx.words) ctx.api().del(ctx.projectPath() + "/secrets/" + urlEncode(w));
  if (ctx.out.json())
    ctx.out.printJson({{"removed", ctx.words}});
  else
    ctx.out.line("removed " + names);
  return kExitOk;
}

}  // namespace

void addSecretsCommands(std::vector<Command>& out) {
  out.push_back({"secrets ls",
                 "berth secrets ls",
                 "the project's secrets (names, never values)",
                 {},
                 0,
                 0,
                 secretsLs});
  out.push_back({"secrets set",
                 "berth secrets set NAME=VALUE... [--scope runtime|build|both]",
                 "set secrets (the project restarts)",
                 {"scope"},
                 1,
                 kManyWords,
                 secretsSet});
  out.push_back({"secrets unset",
                 "berth secrets unset NAME... --yes",
                 "remove secrets",
                 {},
                 1,
                 kManyWords,
                 secretsUnset});
  out.push_back({"secrets import",
                 "berth secrets import FILE|- [--scope S]",
                 "set every NAME=value of a .env file",
                 {"scope"},
                 1,
                 1,
                 secretsImport});
}

}  // namespace berth::client
