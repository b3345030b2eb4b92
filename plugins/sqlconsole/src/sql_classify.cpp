#include "sql_classify.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "sql_parse.hpp"
#include "sql_script.hpp"

namespace berth::sqlconsole {
namespace {

// Parse nodes of statements that start with CREATE, ALTER or DROP (libpg_query 15, PostgreSQL
// 15 grammar), sorted for binary search. The test checks the Create*/Alter*/Drop* part against
// the node list in pg_query.proto, so a new node is not missed silently.
constexpr std::string_view kSchemaChangeNodes[] = {
    "AlterCollationStmt",
    "AlterDatabaseRefreshCollStmt",
    "AlterDatabaseSetStmt",
    "AlterDatabaseStmt",
    "AlterDefaultPrivilegesStmt",
    "AlterDomainStmt",
    "AlterEnumStmt",
    "AlterEventTrigStmt",
    "AlterExtensionContentsStmt",
    "AlterExtensionStmt",
    "AlterFdwStmt",
    "AlterForeignServerStmt",
    "AlterFunctionStmt",
    "AlterObjectDependsStmt",
    "AlterObjectSchemaStmt",
    "AlterOpFamilyStmt",
    "AlterOperatorStmt",
    "AlterOwnerStmt",
    "AlterPolicyStmt",
    "AlterPublicationStmt",
    "AlterRoleSetStmt",
    "AlterRoleStmt",
    "AlterSeqStmt",
    "AlterStatsStmt",
    "AlterSubscriptionStmt",
    "AlterSystemStmt",
    "AlterTSConfigurationStmt",
    "AlterTSDictionaryStmt",
    "AlterTableMoveAllStmt",
    "AlterTableSpaceOptionsStmt",
    "AlterTableStmt",
    "AlterTypeStmt",
    "AlterUserMappingStmt",
    "CompositeTypeStmt",
    "CreateAmStmt",
    "CreateCastStmt",
    "CreateConversionStmt",
    "CreateDomainStmt",
    "CreateEnumStmt",
    "CreateEventTrigStmt",
    "CreateExtensionStmt",
    "CreateFdwStmt",
    "CreateForeignServerStmt",
    "CreateForeignTableStmt",
    "CreateFunctionStmt",
    "CreateOpClassStmt",
    "CreateOpFamilyStmt",
    "CreatePLangStmt",
    "CreatePolicyStmt",
    "CreatePublicationStmt",
    "CreateRangeStmt",
    "CreateRoleStmt",
    "CreateSchemaStmt",
    "CreateSeqStmt",
    "CreateStatsStmt",
    "CreateStmt",
    "CreateSubscriptionStmt",
    "CreateTableAsStmt",
    "CreateTableSpaceStmt",
    "CreateTransformStmt",
    "CreateTrigStmt",
    "CreateUserMappingStmt",
    "CreatedbStmt",
    "DefineStmt",
    "DropOwnedStmt",
    "DropRoleStmt",
    "DropStmt",
    "DropSubscriptionStmt",
    "DropTableSpaceStmt",
    "DropUserMappingStmt",
    "DropdbStmt",
    "IndexStmt",
    "RenameStmt",
    "RuleStmt",
    "ViewStmt",
};
static_assert(std::is_sorted(std::begin(kSchemaChangeNodes), std::end(kSchemaChangeNodes)));

// Nodes whose details matter; any other node is classified by its name alone, without turning
// its JSON into a DOM (most of an import is InsertStmt).
bool needsDetails(std::string_view node) {
  return node == "TransactionStmt" || node == "CopyStmt" || node == "SelectStmt";
}

std::string stringOr(const nlohmann::json& object, const char* key, std::string fallback = {}) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool flag(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

// SELECT set_config(...) or SELECT pg_catalog.set_config(...), and nothing else: no FROM,
// WHERE, other targets, set operations, ... (any such key makes it an ordinary SELECT).
bool isSetConfigCall(const nlohmann::json& select) {
  for (const auto& [key, value] : select.items()) {
    if (key == "targetList") continue;
    if (key == "limitOption" && value == "LIMIT_OPTION_DEFAULT") continue;
    if (key == "op" && value == "SETOP_NONE") continue;
    return false;
  }
  const auto targets = select.find("targetList");
  if (targets == select.end() || !targets->is_array() || targets->size() != 1) return false;
  const auto* call = (*targets)[0].contains("ResTarget") ? &(*targets)[0]["ResTarget"] : nullptr;
  if (!call || !call->contains("val") || !(*call)["val"].contains("FuncCall")) return false;
  const auto& name = (*call)["val"]["FuncCall"].value("funcname", nlohmann::json::array());
  std::vector<std::string> parts;
  for (const auto& part : name)
    parts.push_back(stringOr(part.value("String", nlohmann::json::object()), "sval"));
  return parts == std::vector<std::string>{"set_config"} ||
         parts == std::vector<std::string>{"pg_catalog", "set_config"};
}

}  // namespace

Classification classifyNode(const nlohmann::json& node) {
  Classification out;
  if (!node.is_object() || node.empty()) throw std::invalid_argument("not a parse node");
  const auto first = node.begin();
  out.node = first.key();
  const nlohmann::json& body = first.value();
  if (out.node == "TransactionStmt") {
    out.transactionKind = stringOr(body, "kind");
  } else if (out.node == "CopyStmt") {
    // No filename: the data comes from / goes to the client (PROGRAM always has a filename).
    const bool client = !body.contains("filename");
    out.copyFromStdin = client && flag(body, "is_from");
    out.copyToStdout = client && !flag(body, "is_from");
  } else if (out.node == "SelectStmt") {
    out.setConfigCall = isSetConfigCall(body);
  }
  return out;
}

Classification classifyNode(std::string_view node_json) {
  const std::string_view name = firstJsonKey(node_json);
  if (needsDetails(name)) return classifyNode(nlohmann::json::parse(node_json));
  Classification out;
  out.node = std::string(name);
  return out;
}

Classification classifyStatement(std::string_view sql) {
  std::vector<Statement> statements = splitStatements(sql);
  if (statements.size() != 1) {
    throw std::invalid_argument("expected one statement, found " +
                                std::to_string(statements.size()));
  }
  return std::move(statements.front().kind);
}

bool isSchemaChange(std::string_view node) {
  return std::binary_search(std::begin(kSchemaChangeNodes), std::end(kSchemaChangeNodes), node);
}

std::span<const std::string_view> schemaChangeNodes() {
  return kSchemaChangeNodes;
}

SkipReason importSkip(const Classification& statement) {
  if (statement.node == "VariableSetStmt") return SkipReason::SetStatement;
  if (statement.node == "SelectStmt" && statement.setConfigCall) return SkipReason::SetConfigCall;
  if (statement.node == "TransactionStmt") {
    const std::string& kind = statement.transactionKind;
    if (kind == "TRANS_STMT_BEGIN" || kind == "TRANS_STMT_START" || kind == "TRANS_STMT_COMMIT" ||
        kind == "TRANS_STMT_ROLLBACK") {
      return SkipReason::TransactionControl;
    }
  }
  return SkipReason::None;
}

std::string_view describe(SkipReason reason) {
  switch (reason) {
    case SkipReason::None:
      return "not skipped";
    case SkipReason::MetaCommand:
      return "psql meta-command";
    case SkipReason::SetStatement:
      return "SET statement";
    case SkipReason::SetConfigCall:
      return "set_config call";
    case SkipReason::TransactionControl:
      return "transaction control";
  }
  return "unknown";
}

}  // namespace berth::sqlconsole
