// limit and offset of the rows grammar (docs/openapi.yaml, the rows routes: limit defaults to
// 50 and is clamped to 1..200; offset defaults to 0).
#pragma once
#include <cstdint>
#include <string_view>

namespace berth::sqlconsole {

// min_limit <= default_limit <= max_limit is expected.
struct RestLimits {
  int default_limit = 50;  // when limit is not given
  int min_limit = 1;       // a smaller limit (0, or negative) becomes this
  int max_limit = 200;     // a larger limit becomes this
};

// limit=value: an optional "-" and decimal digits, nothing else (no spaces, no "+"), clamped
// into [min_limit, max_limit] however large. Throws RestSyntaxError
// `limit must be a whole number, got "<value>"`.
int parseLimit(std::string_view value, const RestLimits& limits);

// offset=value: decimal digits only. Throws RestSyntaxError
// `offset must be a whole number, got "<value>"`, `offset cannot be negative, got "<value>"`
// or `offset is too large, got "<value>"` (past 2^63 - 1).
std::int64_t parseOffset(std::string_view value);

}  // namespace berth::sqlconsole
