// SQL text to the project's database: one statement to POST .../query, several to POST
// .../batch (one transaction), and the results printed as tables.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "command.hpp"

namespace berth::client {

// Runs the statements of `sql`; throws the API's refusal. Returns the answer: a Query result for
// one statement, {"results": [...]} for several, null when there is nothing to run.
nlohmann::json runSql(Context& ctx, const std::string& sql);
// Prints what runSql answered (JSON with --json).
void printSqlAnswer(Context& ctx, const nlohmann::json& answer);
// The tables (\dt) and one table's columns (\d NAME).
void printTables(Context& ctx);
void printTable(Context& ctx, const std::string& name);

}  // namespace berth::client
