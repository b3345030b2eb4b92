// db tables|query|shell|import|export.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "command.hpp"
#include "db_sql.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

using nlohmann::json;

int sqlShell(Context& ctx);

namespace {

int dbTables(Context& ctx) {
  if (ctx.words.empty())
    printTables(ctx);
  else
    printTable(ctx, ctx.word(0));
  return kExitOk;
}

int dbQuery(Context& ctx) {
  std::string sql;
  for (const auto& w : ctx.words) sql += (sql.empty() ? "" : " ") + w;
  if (sql == "-") sql = readAllStdin();
  json answer = runSql(ctx, sql);
  if (answer.is_null()) throw usageError("there is nothing to run");
  printSqlAnswer(ctx, answer);
  return kExitOk;
}

int dbImport(Context& ctx) {
  std::string file = ctx.word(0);
  std::string body;
  if (file == "-") {
    body = readAllStdin();
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw usageError("could not read " + file);
    std::stringstream s;
    s << in.rdbuf();
    body = s.str();
  }
  json answer = ctx.api().upload(ctx.projectPath() + "/import", std::move(body), "application/sql");
  if (ctx.out.json())
    ctx.out.printJson(answer);
  else
    ctx.out.line("imported: " + std::to_string(answer.value("ran", 0)) + " statements ran, " +
                 std::to_string(answer.value("skipped", 0)) + " skipped; " +
                 std::to_string(answer.value("tables", 0)) + " tables now");
  return kExitOk;
}

// The filename of `Content-Disposition: attachment; filename=...`, without any folder.
std::string attachmentName(const std::string& header) {
  auto at = header.find("filename=");
  if (at == std::string::npos) return "";
  std::string name = header.substr(at + 9);
  name = name.substr(0, name.find(';'));
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
    name = name.substr(1, name.size() - 2);
  return std::filesystem::path(name).filename().string();
}

int dbExport(Context& ctx) {
  std::string query = "?format=" + urlEncode(ctx.args.get("format", "postgres"));
  if (ctx.args.has("gzip")) query += "&gzip=1";
  std::string target = ctx.args.get("output");
  bool to_stdout = target == "-";
  // Written to a temporary file first: a refused or broken export leaves no half file.
  std::string part =
      to_stdout ? "" : (target.empty() ? std::string("berth-export.part") : target + ".berth-part");
  FILE* sink = to_stdout ? stdout : std::fopen(part.c_str(), "wb");
  if (!sink) throw usageError("could not write " + part);
  HttpRequest req;
  req.target = ctx.projectPath() + "/export" + query;
  req.sink = sink;
  req.progress_label = to_stdout ? "" : "downloading";
  HttpResponse r;
  try {
    r = ctx.api().send(req);
  } catch (...) {
    if (!to_stdout) std::fclose(sink), std::remove(part.c_str());
    throw;
  }
  if (!to_stdout) std::fclose(sink);
  if (r.status >= 400) {
    if (!to_stdout) std::remove(part.c_str());
    throwIfRefused(r);
  }
  if (to_stdout) return kExitOk;
  if (target.empty()) target = attachmentName(r.header("content-disposition"));
  if (target.empty()) target = ctx.project() + ".sql";
  if (std::rename(part.c_str(), target.c_str()) != 0) {
    std::remove(part.c_str());
    throw usageError("could not write " + target);
  }
  std::error_code ec;
  auto size = std::filesystem::file_size(target, ec);
  if (ctx.out.json())
    ctx.out.printJson({{"file", target}, {"bytes", ec ? 0 : size}});
  else
    ctx.out.line("wrote " + target + " (" + std::to_string(ec ? 0 : size) + " bytes)");
  return kExitOk;
}

}  // namespace

void addDbCommands(std::vector<Command>& out) {
  out.push_back({"db tables",
                 "berth db tables [TABLE]",
                 "the tables, or one table's columns",
                 {},
                 0,
                 1,
                 dbTables});
  out.push_back({"db query",
                 "berth db query SQL|-",
                 "run SQL: one statement, or several in one transaction",
                 {},
                 1,
                 kManyWords,
                 dbQuery});
  out.push_back(
      {"db shell", "berth db shell", "an SQL shell (\\dt, \\d TABLE, \\q)", {}, 0, 0, sqlShell});
  out.push_back({"db import",
                 "berth db import FILE|-",
                 "run a SQL script (a plain pg_dump file too) in one transaction",
                 {},
                 1,
                 1,
                 dbImport});
  out.push_back({"db export",
                 "berth db export [--format F] [--gzip] [-o FILE|-]",
                 "download the database (F: postgres, mysql, json)",
                 {"format", "gzip", "output"},
                 0,
                 0,
                 dbExport});
}

}  // namespace berth::client
