// Five-field cron specs in UTC (docs/openapi.yaml, POST /projects/{name}/schedules): minute,
// hour, day of month, month, day of week. Each field is `*`, a number, a list `a,b`, a range
// `a-b`, a step `*/n` or `a-b/n`; Sunday is 0 or 7. No names, no `@` shorthands, no `L`, `W`,
// `#` or `?`.
//
// Day of month and day of week: when both are restricted, a day matches when either matches
// (Vixie cron's rule). A field counts as restricted when it leaves out at least one value of
// its range, so `1-31` is not restricted and `*/2` is (Vixie decides by whether the text
// starts with `*`; croniter, the reference the tests compare with, decides like this).
//
// A spec that could never run (day 30 or 31 of February only, day 31 of 30-day months only)
// is refused when parsed, so every accepted spec has a next run and nextAfter() never loops.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace berth::scheduler {

struct CronParse;

class CronSpec {
 public:
  static CronParse parse(std::string_view text);

  // The first minute strictly after `unix_seconds` (UTC) that the spec matches, in Unix
  // seconds (a multiple of 60). Jumps month, day, hour and minute with bit masks, so a spec
  // that runs once in eight years (29 February at a leap year's end of century) costs tens of
  // steps. std::nullopt only past 400 years, which no accepted spec reaches.
  std::optional<int64_t> nextAfter(int64_t unix_seconds) const;

  // Whether the minute holding `unix_seconds` matches.
  bool matches(int64_t unix_seconds) const;

  bool dayOfMonthRestricted() const { return dom_restricted_; }
  bool dayOfWeekRestricted() const { return dow_restricted_; }
  uint64_t minutes() const { return minutes_; }
  uint32_t hours() const { return hours_; }
  uint32_t daysOfMonth() const { return days_; }
  uint32_t months() const { return months_; }
  uint32_t daysOfWeek() const { return weekdays_; }

 private:
  CronSpec() = default;
  // Bits of the days 1..31 of that month that match.
  uint32_t matchingDays(int64_t year, int month) const;

  uint64_t minutes_ = 0;   // bits 0..59
  uint32_t hours_ = 0;     // bits 0..23
  uint32_t days_ = 0;      // bits 1..31
  uint32_t months_ = 0;    // bits 1..12
  uint32_t weekdays_ = 0;  // bits 0..6, Sunday 0
  bool dom_restricted_ = false;
  bool dow_restricted_ = false;
  // For a month whose first day is weekday w: bits of days 1..31 whose weekday matches.
  std::array<uint32_t, 7> weekday_days_{};
};

// The outcome of parsing: a spec, or a message naming the field and saying what is wrong.
struct CronParse {
  std::optional<CronSpec> spec;
  std::string error;
};

}  // namespace berth::scheduler
