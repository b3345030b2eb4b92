// What a statement is, judged on PostgreSQL's parse tree (never on its text): the parse node's
// name plus the few details the SQL routes need. Used by /sql (schema changes only) and by
// /import (which statements are left out, which COPY carries inline data).
#pragma once
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace berth::sqlconsole {

struct Classification {
  // The first key of stmts[i].stmt in pg_query_parse's JSON: "CreateStmt", "SelectStmt",
  // "TransactionStmt", ...
  std::string node;
  // TransactionStmt only: its kind, e.g. "TRANS_STMT_BEGIN" (END parses as TRANS_STMT_COMMIT,
  // ABORT as TRANS_STMT_ROLLBACK).
  std::string transactionKind;
  // CopyStmt: COPY ... FROM STDIN (data follows the statement) / COPY ... TO STDOUT.
  bool copyFromStdin = false;
  bool copyToStdout = false;
  // SelectStmt that is nothing but one call of set_config or pg_catalog.set_config, as pg_dump
  // writes (`SELECT pg_catalog.set_config('search_path', '', false);`).
  bool setConfigCall = false;
};

// From the text of one parse node ({"CreateStmt":{...}}, as ParsedStatement::nodeJson gives).
// Only statements whose details matter are parsed into a DOM.
Classification classifyNode(std::string_view node_json);
// The same from a parsed node.
Classification classifyNode(const nlohmann::json& node);
// Parses one statement. Throws SqlSyntaxError when it does not parse, std::invalid_argument when
// the text holds no statement or more than one.
Classification classifyStatement(std::string_view sql);

// For /sql: is this a statement that starts with CREATE, ALTER or DROP? The parse nodes that
// such statements produce are listed in schemaChangeNodes(); every other node (COMMENT, GRANT,
// TRUNCATE, SELECT INTO, IMPORT FOREIGN SCHEMA, REFRESH MATERIALIZED VIEW, ...) is refused.
bool isSchemaChange(std::string_view node);
// The sorted list behind isSchemaChange: every node named Create*, Alter* or Drop*, plus
// DefineStmt (CREATE AGGREGATE / OPERATOR / TYPE / COLLATION / TEXT SEARCH ...), IndexStmt
// (CREATE INDEX), ViewStmt (CREATE VIEW), CompositeTypeStmt (CREATE TYPE ... AS (...)),
// RuleStmt (CREATE RULE) and RenameStmt (ALTER ... RENAME).
std::span<const std::string_view> schemaChangeNodes();

// Why /import leaves something out (docs/openapi.yaml, POST /projects/{name}/import, rule 2).
enum class SkipReason {
  None,                // runs
  MetaCommand,         // a psql backslash line (\connect, \restrict, ...)
  SetStatement,        // SET / SET LOCAL / SET SESSION / SET ROLE / SET TRANSACTION / RESET
  SetConfigCall,       // SELECT [pg_catalog.]set_config(...)
  TransactionControl,  // BEGIN, START TRANSACTION, COMMIT, END, ROLLBACK, ABORT
};

// The import rule for one statement:
//  - every VariableSetStmt is left out: SET, SET LOCAL, SET SESSION AUTHORIZATION, SET ROLE,
//    SET TIME ZONE, SET TRANSACTION and RESET (RESET ROLE would undo the role the import runs
//    as, so it is treated like SET). SET CONSTRAINTS is a different node (ConstraintsSetStmt)
//    and runs;
//  - a SELECT that only calls set_config (setConfigCall) is left out; any other SELECT runs;
//  - TransactionStmt of kind BEGIN, START, COMMIT (also END, COMMIT AND CHAIN) and ROLLBACK
//    (also ABORT) is left out, because the import runs the script in its own transaction;
//    SAVEPOINT, RELEASE, ROLLBACK TO and the two-phase commands run.
SkipReason importSkip(const Classification& statement);

// A few words for logs and reports: "psql meta-command", "SET statement", ...
std::string_view describe(SkipReason reason);

}  // namespace berth::sqlconsole
