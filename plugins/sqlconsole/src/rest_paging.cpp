#include "rest_paging.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "rest_error.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {

using rest_text::quotedSnippet;
namespace {

bool allDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The value of digits, or limit + 1 when it is above limit: callers only need to know "too
// large", and stopping early keeps a thousand-digit value cheap and free of overflow.
std::uint64_t saturatingValue(std::string_view digits, std::uint64_t limit) {
  std::uint64_t value = 0;
  for (char c : digits) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (limit < digit || value > (limit - digit) / 10) return limit + 1;
    value = value * 10 + digit;
  }
  return value;
}

[[noreturn]] void fail(std::string_view problem, std::string_view value) {
  throw RestSyntaxError(std::string(problem) + ", got " + quotedSnippet(value));
}

}  // namespace

int parseLimit(std::string_view value, const RestLimits& limits) {
  const bool negative = !value.empty() && value.front() == '-';
  const std::string_view digits = negative ? value.substr(1) : value;
  if (!allDigits(digits)) fail("limit must be a whole number", value);
  if (negative) return limits.min_limit;
  const auto max = static_cast<std::uint64_t>(std::max(limits.max_limit, 0));
  const std::uint64_t wanted = saturatingValue(digits, max);
  return std::clamp(static_cast<int>(std::min(wanted, max)), limits.min_limit, limits.max_limit);
}

std::int64_t parseOffset(std::string_view value) {
  if (!value.empty() && value.front() == '-' && allDigits(value.substr(1))) {
    fail("offset cannot be negative", value);
  }
  if (!allDigits(value)) fail("offset must be a whole number", value);
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::uint64_t offset = saturatingValue(value, kMax);
  if (offset > kMax) fail("offset is too large", value);
  return static_cast<std::int64_t>(offset);
}

}  // namespace berth::sqlconsole
