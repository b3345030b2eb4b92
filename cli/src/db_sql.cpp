#include "db_sql.hpp"

#include "errors.hpp"
#include "sql_split.hpp"

namespace berth::client {

using nlohmann::json;

json runSql(Context& ctx, const std::string& sql) {
  auto statements = splitStatements(sql);
  if (statements.empty()) return json();
  if (statements.size() == 1) return ctx.api().post(ctx.projectPath() + "/query", {{"sql", sql}});
  return ctx.api().post(ctx.projectPath() + "/batch", {{"statements", statements}});
}

static void printResult(Context& ctx, const json& r) {
  auto columns = r.value("columns", json::array());
  std::string took = std::to_string(r.value("took_ms", 0)) + " ms";
  if (columns.empty()) {
    ctx.out.line(std::to_string(r.value("changed", 0)) + " rows changed (" + took + ")");
    return;
  }
  std::vector<std::string> header;
  for (const auto& c : columns) header.push_back(c.get<std::string>());
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("rows", json::array());
  for (const auto& row : list) {
    std::vector<std::string> cells;
    for (const auto& c : header) {
      const json& v = row.contains(c) ? row[c] : json();
      cells.push_back(v.is_null() ? ctx.out.dim("NULL") : cellText(v));
    }
    rows.push_back(cells);
  }
  ctx.out.table(header, rows);
  ctx.out.line(ctx.out.dim("(" + std::to_string(list.size()) + " rows" +
                           (r.value("truncated", false) ? ", more not shown" : "") + ", " + took +
                           ")"));
}

void printSqlAnswer(Context& ctx, const json& answer) {
  if (answer.is_null()) return;
  if (ctx.out.json()) {
    ctx.out.printJson(answer);
    return;
  }
  if (answer.contains("results")) {
    for (const auto& r : answer["results"]) printResult(ctx, r);
  } else {
    printResult(ctx, answer);
  }
}

void printTables(Context& ctx) {
  json r = ctx.api().get(ctx.projectPath() + "/tables");
  if (ctx.out.json()) {
    ctx.out.printJson(r);
    return;
  }
  std::vector<std::vector<std::string>> rows;
  auto list = r.value("tables", json::array());
  for (const auto& t : list)
    rows.push_back({t.value("name", ""), std::to_string(t.value("columns", json::array()).size())});
  ctx.out.table({"TABLE", "COLUMNS"}, rows);
}

void printTable(Context& ctx, const std::string& name) {
  json r = ctx.api().get(ctx.projectPath() + "/tables");
  auto list = r.value("tables", json::array());
  for (const auto& t : list) {
    if (t.value("name", "") != name) continue;
    if (ctx.out.json()) {
      ctx.out.printJson(t);
      return;
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : t.value("columns", json::array()))
      rows.push_back({c.value("name", ""), c.value("type", ""),
                      c.value("not_null", false) ? "not null" : "",
                      c.value("primary_key", false) ? "primary key" : "",
                      c["default_value"].is_string() ? c["default_value"].get<std::string>() : ""});
    ctx.out.table({"COLUMN", "TYPE", "NULL", "KEY", "DEFAULT"}, rows);
    for (const auto& l : t.value("links", json::array()))
      ctx.out.line("  " + l.value("column", "") + " -> " + l.value("table", "") + "(" +
                   l.value("to", "") + ")");
    return;
  }
  throw CliError(kExitRefused, "no table called " + name);
}

}  // namespace berth::client
