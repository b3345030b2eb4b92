#include "creation_throttle.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

namespace berth::projects {
namespace {

// One statement, so the read-refill-take is atomic under concurrency: ON CONFLICT DO UPDATE
// locks the account's row and evaluates SET against its newest committed version, so
// concurrent callers (on any node) queue on the row instead of reading the same tokens.
//
// The clock is the database's, so nodes with skewed clocks agree. clock_timestamp() is read
// before the row lock is granted; greatest() keeps the bucket's time from going backwards
// when a caller that read the clock earlier commits later (no refill is credited twice).
//
// The bucket's level at time t is min(burst, tokens + (t - updated_at) / refill). Both
// outcomes store tokens = level - 1:
//   allowed (level >= 1): level - 1 tokens now;
//   refused (level < 1):  level - 1 (< 0) tokens one refill period ago, which is exactly
//                         level tokens now, so nothing is taken.
// RETURNING can only see the new row, and this makes its sign the decision: tokens >= 0
// means allowed, and for a refusal -tokens is what is missing before the next token.
constexpr const char* kTakeToken = R"sql(
INSERT INTO projects.creation_throttle AS bucket (account_id, tokens, updated_at)
VALUES ($1, $2::float8 - 1, extract(epoch FROM clock_timestamp()))
ON CONFLICT (account_id) DO UPDATE SET (tokens, updated_at) = (
  SELECT level - 1, CASE WHEN level >= 1 THEN now ELSE now - $3::float8 END
  FROM (SELECT now, least($2::float8, bucket.tokens + (now - bucket.updated_at) / $3::float8)
                 AS level
        FROM (SELECT greatest(bucket.updated_at, excluded.updated_at) AS now) AS clock) AS refill)
RETURNING tokens)sql";

}  // namespace

ThrottleDecision takeCreationToken(berth::Db& db, const std::string& account_id, int burst,
                                   double refill_seconds) {
  if (burst < 1 || !(refill_seconds > 0) || !std::isfinite(refill_seconds))
    throw std::invalid_argument("creation throttle: burst must be >= 1 and refill_seconds > 0");
  berth::DbResult result = db.exec(kTakeToken, account_id, burst, refill_seconds);
  const double tokens = result.get<double>(0, 0);
  if (tokens >= 0) return ThrottleDecision{true, 0};
  // -tokens is in (0, 1]: the part of a token still missing.
  const double wait = std::ceil(-tokens * refill_seconds);
  return ThrottleDecision{false, static_cast<int>(std::clamp(wait, 1.0, double(INT_MAX)))};
}

}  // namespace berth::projects
