// Calendar arithmetic in UTC on day numbers (days since 1970-01-01), after Howard Hinnant's
// public-domain algorithms: exact for every year an int64_t day count can hold, no time zone
// database and no libc calls, so the next-run computation is fast and the same everywhere.
#pragma once
#include <cstdint>

namespace berth::scheduler {

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Rounds towards minus infinity (C++ division rounds towards zero).
inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t daysFromCivil(int64_t year, int month, int day);
CivilDate civilFromDays(int64_t days);
// 0 = Sunday ... 6 = Saturday.
int weekdayFromDays(int64_t days);
bool isLeapYear(int64_t year);
int daysInMonth(int64_t year, int month);

}  // namespace berth::scheduler
