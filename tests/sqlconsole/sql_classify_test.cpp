// Classification on the parse tree: node names, the /sql rule (CREATE / ALTER / DROP only) and
// the /import skip rule (docs/openapi.yaml, POST /projects/{name}/import, rule 2).
#include "sql_classify.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sql_parse.hpp"

namespace berth::sqlconsole {
namespace {

TEST(Classify, NodeNamesComeFromTheParseTree) {
  const std::pair<const char*, const char*> cases[] = {
      {"CREATE TABLE t (id int)", "CreateStmt"},
      {"create table t2 as select 1", "CreateTableAsStmt"},
      {"CREATE MATERIALIZED VIEW m AS SELECT 1", "CreateTableAsStmt"},
      {"ALTER TABLE t ADD COLUMN x text", "AlterTableStmt"},
      {"ALTER TABLE t RENAME TO u", "RenameStmt"},
      {"DROP TABLE t", "DropStmt"},
      {"SELECT 1", "SelectStmt"},
      {"SELECT 1 INTO newtable", "SelectStmt"},
      {"INSERT INTO t VALUES (1)", "InsertStmt"},
      {"UPDATE t SET a = 1", "UpdateStmt"},
      {"DELETE FROM t", "DeleteStmt"},
      {"SET search_path = public", "VariableSetStmt"},
      {"SET CONSTRAINTS ALL DEFERRED", "ConstraintsSetStmt"},
      {"BEGIN", "TransactionStmt"},
      {"COPY t FROM stdin", "CopyStmt"},
      {"CREATE INDEX i ON t (a)", "IndexStmt"},
      {"CREATE VIEW v AS SELECT 1", "ViewStmt"},
      {"CREATE TYPE pair AS (a int, b int)", "CompositeTypeStmt"},
      {"CREATE AGGREGATE s (int) (sfunc = int4pl, stype = int)", "DefineStmt"},
      {"COMMENT ON TABLE t IS 'x; y'", "CommentStmt"},
      {"GRANT SELECT ON t TO PUBLIC", "GrantStmt"},
      {"DO $$ BEGIN PERFORM 1; END $$", "DoStmt"},
  };
  for (const auto& [sql, node] : cases) EXPECT_EQ(classifyStatement(sql).node, node) << sql;
}

TEST(Classify, DetailsOfTransactionCopyAndSetConfig) {
  EXPECT_EQ(classifyStatement("BEGIN").transactionKind, "TRANS_STMT_BEGIN");
  EXPECT_EQ(classifyStatement("END").transactionKind, "TRANS_STMT_COMMIT");
  EXPECT_EQ(classifyStatement("ABORT").transactionKind, "TRANS_STMT_ROLLBACK");
  EXPECT_EQ(classifyStatement("ROLLBACK TO SAVEPOINT a").transactionKind, "TRANS_STMT_ROLLBACK_TO");

  const Classification from_stdin = classifyStatement("COPY public.t (a, b) FROM stdin;");
  EXPECT_TRUE(from_stdin.copyFromStdin);
  EXPECT_FALSE(from_stdin.copyToStdout);
  EXPECT_TRUE(classifyStatement("COPY t FROM STDIN WITH (FORMAT csv)").copyFromStdin);
  EXPECT_FALSE(classifyStatement("COPY t FROM '/etc/passwd'").copyFromStdin);
  EXPECT_FALSE(classifyStatement("COPY t FROM PROGRAM 'ls'").copyFromStdin);
  EXPECT_TRUE(classifyStatement("COPY t TO stdout").copyToStdout);
  EXPECT_FALSE(classifyStatement("COPY t TO stdout").copyFromStdin);

  EXPECT_TRUE(
      classifyStatement("SELECT pg_catalog.set_config('search_path', '', false);").setConfigCall);
  EXPECT_TRUE(classifyStatement("select set_config('a.b', 'c', true)").setConfigCall);
  EXPECT_FALSE(classifyStatement("SELECT pg_catalog.setval('s', 1, true)").setConfigCall);
  EXPECT_FALSE(classifyStatement("SELECT myschema.set_config('a', 'b', false)").setConfigCall);
  EXPECT_FALSE(classifyStatement("SELECT set_config('a', 'b', false), 1").setConfigCall);
  EXPECT_FALSE(classifyStatement("SELECT set_config('a', v, false) FROM t").setConfigCall);
  EXPECT_FALSE(
      classifyStatement("SELECT set_config('a', 'b', false) UNION SELECT 'x'").setConfigCall);
}

TEST(Classify, SameResultFromJsonTextAndFromDom) {
  const std::string sql = "SELECT pg_catalog.set_config('search_path', '', false)";
  const ParsedText parsed = ParsedText::parse(sql);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed.statements().size(), 1u);
  const std::string_view node = parsed.statements()[0].nodeJson;
  EXPECT_EQ(classifyNode(node).node, "SelectStmt");
  EXPECT_TRUE(classifyNode(node).setConfigCall);
  EXPECT_TRUE(classifyNode(nlohmann::json::parse(node)).setConfigCall);
}

TEST(Classify, OneStatementOrAnError) {
  EXPECT_THROW(classifyStatement("SELECT 1; SELECT 2"), std::invalid_argument);
  EXPECT_THROW(classifyStatement("  -- nothing\n"), std::invalid_argument);
  EXPECT_THROW(classifyStatement("SELEC 1"), SqlSyntaxError);
}

// /sql accepts a statement only when it starts with CREATE, ALTER or DROP.
TEST(Classify, SchemaChangesAreCreateAlterAndDrop) {
  const char* accepted[] = {
      "CREATE TABLE t (id int primary key)",
      "CREATE TABLE IF NOT EXISTS t (id int)",
      "CREATE UNLOGGED TABLE u (id int)",
      "CREATE TABLE t2 AS SELECT 1 AS x",
      "CREATE MATERIALIZED VIEW m AS SELECT 1",
      "CREATE OR REPLACE VIEW v AS SELECT 1",
      "CREATE UNIQUE INDEX CONCURRENTLY i ON t (id)",
      "CREATE SEQUENCE s",
      "CREATE SCHEMA app",
      "CREATE TYPE mood AS ENUM ('sad', 'ok')",
      "CREATE TYPE pair AS (a int, b int)",
      "CREATE TYPE r AS RANGE (subtype = int4)",
      "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
      "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$",
      "CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC SELECT 1; END",
      "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()",
      "CREATE RULE r AS ON INSERT TO t DO INSTEAD NOTHING",
      "CREATE EXTENSION IF NOT EXISTS pgcrypto",
      "CREATE POLICY p ON t USING (true)",
      "CREATE AGGREGATE s (int) (sfunc = int4pl, stype = int)",
      "CREATE OPERATOR === (leftarg = int, rightarg = int, function = int4eq)",
      "CREATE COLLATION c (locale = 'C')",
      "CREATE TEXT SEARCH CONFIGURATION ts (COPY = english)",
      "CREATE STATISTICS st ON a, b FROM t",
      "CREATE CAST (int AS text) WITH INOUT",
      "CREATE ROLE r",
      "CREATE DATABASE d",
      "ALTER TABLE t ADD COLUMN x text",
      "ALTER TABLE t RENAME COLUMN x TO y",
      "ALTER TABLE t SET SCHEMA app",
      "ALTER TABLE t OWNER TO r",
      "ALTER INDEX i RENAME TO j",
      "ALTER SEQUENCE s RESTART",
      "ALTER TYPE mood ADD VALUE 'happy'",
      "ALTER FUNCTION f() STABLE",
      "ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC",
      "ALTER DOMAIN posint DROP NOT NULL",
      "ALTER EXTENSION pgcrypto UPDATE",
      "ALTER POLICY p ON t USING (false)",
      "ALTER VIEW v RENAME TO w",
      "ALTER MATERIALIZED VIEW m RENAME TO n",
      "ALTER ROLE r SET search_path = app",
      "ALTER DATABASE d SET work_mem = '8MB'",
      "ALTER SYSTEM SET work_mem = '8MB'",
      "DROP TABLE IF EXISTS t CASCADE",
      "DROP INDEX i",
      "DROP FUNCTION f()",
      "DROP TYPE mood",
      "DROP SCHEMA app",
      "DROP TRIGGER tr ON t",
      "DROP OWNED BY r",
      "DROP ROLE r",
      "DROP DATABASE d",
  };
  for (const char* sql : accepted) {
    EXPECT_TRUE(isSchemaChange(classifyStatement(sql).node))
        << sql << " -> " << classifyStatement(sql).node;
  }
  const char* refused[] = {
      "SELECT 1",
      "SELECT 1 INTO newtable",
      "INSERT INTO t VALUES (1)",
      "UPDATE t SET a = 1",
      "DELETE FROM t",
      "TRUNCATE t",
      "COMMENT ON TABLE t IS 'x'",
      "GRANT SELECT ON t TO PUBLIC",
      "REVOKE SELECT ON t FROM PUBLIC",
      "REFRESH MATERIALIZED VIEW m",
      "IMPORT FOREIGN SCHEMA s FROM SERVER x INTO app",
      "SECURITY LABEL ON TABLE t IS 'x'",
      "REASSIGN OWNED BY a TO b",
      "SET search_path = app",
      "BEGIN",
      "COPY t FROM stdin",
      "DO $$ BEGIN CREATE TABLE x (); END $$",
      "EXPLAIN CREATE TABLE t2 AS SELECT 1",
      "WITH x AS (SELECT 1) SELECT * FROM x",
      "VACUUM t",
      "CALL p()",
  };
  for (const char* sql : refused) {
    EXPECT_FALSE(isSchemaChange(classifyStatement(sql).node))
        << sql << " -> " << classifyStatement(sql).node;
  }
}

// Every statement node of the installed libpg_query named Create*, Alter* or Drop* is in the
// list, and every listed node exists: a libpg_query upgrade cannot leave the list stale.
TEST(Classify, SchemaChangeListMatchesTheInstalledParser) {
  std::ifstream proto("/usr/include/pg_query/pg_query.proto");
  if (!proto) GTEST_SKIP() << "pg_query.proto is not installed";
  std::stringstream text;
  text << proto.rdbuf();
  const std::string all = text.str();
  const size_t begin = all.find("message Node {");
  ASSERT_NE(begin, std::string::npos);
  const std::string node_message = all.substr(begin, all.find("\n}", begin) - begin);
  std::set<std::string> statement_nodes;
  const std::regex field(R"(\n\s+(\w+Stmt)\s+\w+\s*=\s*\d+)");
  for (auto it = std::sregex_iterator(node_message.begin(), node_message.end(), field);
       it != std::sregex_iterator(); ++it) {
    statement_nodes.insert((*it)[1]);
  }
  ASSERT_GT(statement_nodes.size(), 100u);
  for (const std::string& node : statement_nodes) {
    const bool named =
        node.starts_with("Create") || node.starts_with("Alter") || node.starts_with("Drop");
    if (named) {
      EXPECT_TRUE(isSchemaChange(node)) << node;
    }
  }
  for (std::string_view node : schemaChangeNodes()) {
    EXPECT_TRUE(statement_nodes.count(std::string(node))) << node;
  }
}

// docs/openapi.yaml, POST /projects/{name}/import, rule 2.
TEST(Classify, ImportSkipsSetTransactionControlAndSetConfig) {
  const std::pair<const char*, SkipReason> cases[] = {
      {"SET statement_timeout = 0", SkipReason::SetStatement},
      {"SET client_encoding = 'UTF8'", SkipReason::SetStatement},
      {"set local search_path to app", SkipReason::SetStatement},
      {"SET SESSION AUTHORIZATION someone", SkipReason::SetStatement},
      {"SET ROLE someone", SkipReason::SetStatement},
      {"SET TIME ZONE 'UTC'", SkipReason::SetStatement},
      {"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", SkipReason::SetStatement},
      {"RESET ALL", SkipReason::SetStatement},
      {"RESET ROLE", SkipReason::SetStatement},
      {"SET CONSTRAINTS ALL DEFERRED", SkipReason::None},
      {"SELECT pg_catalog.set_config('search_path', '', false)", SkipReason::SetConfigCall},
      {"select set_config('x.y', 'z', false)", SkipReason::SetConfigCall},
      {"SELECT pg_catalog.setval('public.s_id_seq', 42, true)", SkipReason::None},
      {"SELECT 1", SkipReason::None},
      {"BEGIN", SkipReason::TransactionControl},
      {"BEGIN ISOLATION LEVEL SERIALIZABLE", SkipReason::TransactionControl},
      {"START TRANSACTION", SkipReason::TransactionControl},
      {"COMMIT", SkipReason::TransactionControl},
      {"END", SkipReason::TransactionControl},
      {"COMMIT AND CHAIN", SkipReason::TransactionControl},
      {"ROLLBACK", SkipReason::TransactionControl},
      {"ABORT", SkipReason::TransactionControl},
      {"SAVEPOINT a", SkipReason::None},
      {"RELEASE SAVEPOINT a", SkipReason::None},
      {"ROLLBACK TO SAVEPOINT a", SkipReason::None},
      {"PREPARE TRANSACTION 'x'", SkipReason::None},
      {"GRANT SELECT ON t TO PUBLIC", SkipReason::None},
      {"COMMENT ON TABLE t IS 'x'", SkipReason::None},
      {"ALTER TABLE t OWNER TO r", SkipReason::None},
      {"COPY t FROM stdin", SkipReason::None},
  };
  for (const auto& [sql, reason] : cases) {
    EXPECT_EQ(importSkip(classifyStatement(sql)), reason) << sql;
  }
  EXPECT_EQ(describe(SkipReason::MetaCommand), "psql meta-command");
  EXPECT_EQ(describe(SkipReason::SetStatement), "SET statement");
}

}  // namespace
}  // namespace berth::sqlconsole
