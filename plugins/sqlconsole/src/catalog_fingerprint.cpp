#include "catalog_fingerprint.hpp"

#include <nlohmann/json.hpp>

#include "rest_sql.hpp"

namespace berth::sqlconsole {
namespace {

constexpr const char* kStatementName = "berth_catalog_fingerprint";

// $1: the relation names as a name[] literal; $2: the statement_timeout to restore. Index scans
// only; a fraction of a millisecond once prepared (planning it costs more than running it, hence
// the prepared statement).
constexpr const char* kFingerprintQuery = R"SQL(
SELECT set_config('statement_timeout', $2, false), string_agg(
  c.oid::text || '.' || c.xmin::text
  || '.' || (SELECT count(*) || '.' || sum(a.xmin::text::bigint)
             FROM pg_attribute a WHERE a.attrelid = c.oid)
  || '.' || (SELECT count(*) || '.' || coalesce(sum(k.xmin::text::bigint), 0)
             FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype IN ('p', 'f')),
  ',' ORDER BY c.oid)
FROM pg_class c
WHERE c.relname = ANY ($1::name[])
  AND c.relnamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = 'public')
  AND c.relkind IN ('r', 'p', 'v', 'm')
)SQL";

constexpr std::string_view kUndefinedPreparedStatement = "26000";

PgResult runPrepared(PgSession& session, const std::string& names, const std::string& timeout) {
  const char* values[] = {names.c_str(), timeout.c_str()};
  return checkResult(session.raw(),
                     PQexecPrepared(session.raw(), kStatementName, 2, values, nullptr, nullptr, 0));
}

}  // namespace

std::string catalogFingerprint(PgSession& session, const std::vector<std::string>& tables,
                               int statement_timeout_ms) {
  const std::string timeout = std::to_string(statement_timeout_ms);
  const std::string names = pgValueText(nlohmann::json(tables), "name[]").value_or("{}");
  PgResult result;
  try {
    result = runPrepared(session, names, timeout);
  } catch (const PgError& e) {
    // First use on this connection, or DISCARD ALL dropped it since: prepare and run again.
    if (e.sqlstate() != kUndefinedPreparedStatement) throw;
    checkResult(session.raw(),
                PQprepare(session.raw(), kStatementName, kFingerprintQuery, 2, nullptr));
    result = runPrepared(session, names, timeout);
  }
  return std::string(PQgetvalue(result.get(), 0, 1),
                     static_cast<size_t>(PQgetlength(result.get(), 0, 1)));
}

}  // namespace berth::sqlconsole
