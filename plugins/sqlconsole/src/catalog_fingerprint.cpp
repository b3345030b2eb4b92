#include "catalog_fingerprint.hpp"

#include <nlohmann/json.hpp>

#include "rest_sql.hpp"

namespace berth::sqlconsole {
namespace {

// $1: the relation names as a name[] literal; $2: the statement_timeout to restore. Index scans
// only; a fraction of a millisecond once prepared (planning it costs more than running it, hence
// the prepared statement). Each name is looked up on its own through pg_class's (relname,
// relnamespace) index (LATERAL, at most one row: the pair is unique), rather than by scanning
// pg_class for `relname = ANY ($1)`. The names are read through a sub-select so the planner
// cannot see how many there are: a plan made for the actual value would always look cheaper than
// the generic one, and PostgreSQL would plan the statement again on every run (a third of the
// database's time in bench/rows).
constexpr const char* kFingerprintQuery = R"SQL(
SELECT set_config('statement_timeout', $2, false), string_agg(
  c.oid::text || '.' || c.row_version::text
  || '.' || (SELECT count(*) || '.' || sum(a.xmin::text::bigint)
             FROM pg_attribute a WHERE a.attrelid = c.oid)
  || '.' || (SELECT count(*) || '.' || coalesce(sum(k.xmin::text::bigint), 0)
             FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype IN ('p', 'f')),
  ',' ORDER BY c.oid)
FROM (SELECT DISTINCT unnest((SELECT $1::name[])::name[]) AS relname) AS wanted
CROSS JOIN LATERAL (
  SELECT r.oid, r.xmin AS row_version FROM pg_class r
  WHERE r.relname = wanted.relname
    AND r.relnamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = 'public')
    AND r.relkind IN ('r', 'p', 'v', 'm')
  LIMIT 1) AS c
)SQL";

}  // namespace

SqlStatement fingerprintStatement(const std::vector<std::string>& tables,
                                  int statement_timeout_ms) {
  return SqlStatement{kFingerprintQuery,
                      {pgValueText(nlohmann::json(tables), "name[]").value_or("{}"),
                       std::to_string(statement_timeout_ms)}};
}

SqlStatement statementTimeoutReset(int statement_timeout_ms) {
  return SqlStatement{"SELECT set_config('statement_timeout', $1, false)",
                      {std::to_string(statement_timeout_ms)}};
}

SqlStatement withStatementTimeoutReset(const SqlStatement& read, int statement_timeout_ms) {
  SqlStatement out;
  out.params = read.params;
  out.params.push_back(std::to_string(statement_timeout_ms));
  out.text = "SELECT _read.*, set_config('statement_timeout', $" +
             std::to_string(out.params.size()) + ", false) FROM (" + read.text + ") AS _read";
  return out;
}

std::string fingerprintOf(const PgResult& result) {
  return std::string(PQgetvalue(result.get(), 0, 1),
                     static_cast<size_t>(PQgetlength(result.get(), 0, 1)));
}

std::string catalogFingerprint(PgSession& session, const std::vector<std::string>& tables,
                               int statement_timeout_ms) {
  SqlStatement statement = fingerprintStatement(tables, statement_timeout_ms);
  return fingerprintOf(session.execPrepared(statement.text, statement.params));
}

}  // namespace berth::sqlconsole
