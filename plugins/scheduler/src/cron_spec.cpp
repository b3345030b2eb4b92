#include "cron_spec.hpp"

#include <bit>
#include <cctype>
#include <vector>

#include "civil_time.hpp"

namespace berth::scheduler {

namespace {

struct FieldInfo {
  const char* name;
  int min;
  int max;  // day of week: 7, read as Sunday
};

constexpr std::array<FieldInfo, 5> kFields = {{{"minute", 0, 59},
                                               {"hour", 0, 23},
                                               {"day of month", 1, 31},
                                               {"month", 1, 12},
                                               {"day of week", 0, 7}}};
constexpr int kMonthField = 3;
constexpr int kWeekdayField = 4;

// Thrown inside the parser only; parse() turns it into CronParse::error.
struct FieldError {
  std::string message;
};

[[noreturn]] void refuse(const FieldInfo& field, const std::string& why) {
  throw FieldError{std::string(field.name) + " field: " + why};
}

bool isDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Letters, `?` and such get a message that says what is not accepted, rather than "not a
// number", because they are what people coming from other crons write.
[[noreturn]] void refuseText(const FieldInfo& field, int index, std::string_view item) {
  std::string text(item);
  if (text.find('?') != std::string::npos) refuse(field, "? is not accepted; use *");
  if (text.find('#') != std::string::npos) refuse(field, "# is not accepted");
  bool letters = false;
  for (char c : text) letters = letters || std::isalpha(static_cast<unsigned char>(c));
  if (letters) {
    if (index == kMonthField)
      refuse(field, "names such as JAN are not accepted; use the numbers 1-12");
    if (index == kWeekdayField)
      refuse(field, "names such as MON are not accepted; use the numbers 0-7 (Sunday is 0 or 7)");
    if (text == "L" || text == "l" || text.find('L') != std::string::npos ||
        text.find('W') != std::string::npos)
      refuse(field, "L and W are not accepted");
  }
  refuse(field, "\"" + text + "\" is not a number, a range (a-b) or a step (*/n or a-b/n)");
}

int number(const FieldInfo& field, int index, std::string_view text, std::string_view item) {
  if (!isDigits(text)) refuseText(field, index, item);
  // Leading zeros are fine; more than six digits is out of range whatever follows.
  size_t first = text.find_first_not_of('0');
  std::string_view significant = first == std::string_view::npos ? "0" : text.substr(first);
  if (significant.size() > 6)
    refuse(field, std::string(text) + " is out of range " + std::to_string(field.min) + "-" +
                      std::to_string(field.max));
  int value = std::stoi(std::string(significant));
  if (value < field.min || value > field.max)
    refuse(field, std::to_string(value) + " is out of range " + std::to_string(field.min) + "-" +
                      std::to_string(field.max));
  return value;
}

int step(const FieldInfo& field, int index, std::string_view text, std::string_view item) {
  if (text.empty()) refuse(field, "\"" + std::string(item) + "\" has no step after the /");
  if (!isDigits(text)) refuseText(field, index, item);
  size_t first = text.find_first_not_of('0');
  std::string_view significant = first == std::string_view::npos ? "0" : text.substr(first);
  int largest = field.max;
  if (significant.size() > 6 || std::stoi(std::string(significant)) < 1 ||
      std::stoi(std::string(significant)) > largest)
    refuse(field, "a step is 1 to " + std::to_string(largest) + ", not " + std::string(text));
  return std::stoi(std::string(significant));
}

// One field as a bit mask of its values (day of week: 7 folded onto 0).
uint64_t parseField(int index, std::string_view text) {
  const FieldInfo& field = kFields[static_cast<size_t>(index)];
  uint64_t mask = 0;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) refuse(field, "the list \"" + std::string(text) + "\" has an empty item");

    int low = field.min;
    int high = index == kWeekdayField ? 6 : field.max;  // `*` for weekdays: 0-6, 7 is Sunday again
    int every = 1;
    std::string_view range = item;
    size_t slash = item.find('/');
    if (slash != std::string_view::npos) {
      range = item.substr(0, slash);
      every = step(field, index, item.substr(slash + 1), item);
    }
    if (range == "*") {
      // low and high as set: the whole field
    } else {
      size_t dash = range.find('-');
      if (dash == std::string_view::npos) {
        if (slash != std::string_view::npos && isDigits(range))
          refuse(field, "a step goes after * or a range, as */" + std::to_string(every) + " or " +
                            std::string(range) + "-" + std::to_string(field.max) + "/" +
                            std::to_string(every) + ", not after a single number");
        low = high = number(field, index, range, item);
      } else {
        std::string_view from = range.substr(0, dash);
        std::string_view to = range.substr(dash + 1);
        if (from.empty() || to.empty()) {
          if (isDigits(from) || isDigits(to) || from.empty())
            refuse(field, "\"" + std::string(item) + "\" is not a range; a range is a-b");
          refuseText(field, index, item);
        }
        low = number(field, index, from, item);
        high = number(field, index, to, item);
        if (low > high)
          refuse(field, "the range " + std::string(range) +
                            " runs backwards; ranges do not wrap around, so write " +
                            std::to_string(high) + "-" + std::to_string(low) +
                            " or a list of two ranges");
      }
    }
    for (int v = low; v <= high; v += every)
      mask |= uint64_t{1} << (index == kWeekdayField ? v % 7 : v);

    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return mask;
}

uint64_t fullMask(int low, int high) {
  uint64_t mask = 0;
  for (int v = low; v <= high; ++v) mask |= uint64_t{1} << v;
  return mask;
}

// The longest each month can be (29 for February: leap years come).
constexpr std::array<int, 13> kLongestMonth = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

}  // namespace

CronParse CronSpec::parse(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i == text.size()) break;
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    fields.push_back(text.substr(i, end - i));
    i = end;
  }
  CronParse result;
  if (!fields.empty() && fields[0].front() == '@') {
    result.error =
        "shorthands such as " + std::string(fields[0]) +
        " are not accepted; write the five fields (minute hour day-of-month month day-of-week), "
        "for example 0 0 * * * for every day at midnight UTC";
    return result;
  }
  if (fields.size() != 5) {
    result.error =
        "a cron spec has five fields separated by spaces: minute hour day-of-month month "
        "day-of-week; this one has " +
        std::to_string(fields.size());
    return result;
  }
  try {
    for (size_t f = 0; f < 5; ++f)
      for (char c : fields[f])
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
          refuse(kFields[f], "only digits, *, -, / and , are accepted");
    CronSpec spec;
    spec.minutes_ = parseField(0, fields[0]);
    spec.hours_ = static_cast<uint32_t>(parseField(1, fields[1]));
    spec.days_ = static_cast<uint32_t>(parseField(2, fields[2]));
    spec.months_ = static_cast<uint32_t>(parseField(3, fields[3]));
    spec.weekdays_ = static_cast<uint32_t>(parseField(4, fields[4]));
    spec.dom_restricted_ = spec.days_ != fullMask(1, 31);
    spec.dow_restricted_ = spec.weekdays_ != fullMask(0, 6);
    for (int first = 0; first < 7; ++first) {
      uint32_t days = 0;
      for (int day = 1; day <= 31; ++day)
        if (spec.weekdays_ >> ((first + day - 1) % 7) & 1u) days |= uint32_t{1} << day;
      spec.weekday_days_[static_cast<size_t>(first)] = days;
    }
    // Only the day of month restricts the days: some chosen month must hold a chosen day.
    if (spec.dom_restricted_ && !spec.dow_restricted_) {
      bool possible = false;
      for (int month = 1; month <= 12; ++month)
        if (spec.months_ >> month & 1u)
          possible =
              possible || (spec.days_ & static_cast<uint32_t>(fullMask(
                                            1, kLongestMonth[static_cast<size_t>(month)]))) != 0;
      if (!possible)
        refuse(kFields[2], std::string(fields[2]) +
                               " never falls in the chosen months, so the spec would never run");
    }
    result.spec = spec;
  } catch (const FieldError& e) {
    result.error = e.message;
  }
  return result;
}

uint32_t CronSpec::matchingDays(int64_t year, int month) const {
  const int length = daysInMonth(year, month);
  const uint32_t valid = static_cast<uint32_t>(fullMask(1, length));
  const uint32_t by_weekday =
      weekday_days_[static_cast<size_t>(weekdayFromDays(daysFromCivil(year, month, 1)))];
  // An unrestricted field holds every value, so `and` leaves the other field deciding.
  const uint32_t days =
      dom_restricted_ && dow_restricted_ ? (days_ | by_weekday) : (days_ & by_weekday);
  return days & valid;
}

std::optional<int64_t> CronSpec::nextAfter(int64_t unix_seconds) const {
  const int64_t start = (floorDiv(unix_seconds, 60) + 1) * 60;
  const int64_t start_days = floorDiv(start, 86400);
  const int64_t second_of_day = start - start_days * 86400;
  int hour = static_cast<int>(second_of_day / 3600);
  int minute = static_cast<int>(second_of_day % 3600 / 60);
  CivilDate date = civilFromDays(start_days);
  int64_t year = date.year;
  int month = date.month;
  int day = date.day;
  const int64_t last_year = year + 400;

  auto nextMonth = [&] {
    if (++month > 12) {
      month = 1;
      ++year;
    }
    day = 1;
    hour = 0;
    minute = 0;
  };

  while (year <= last_year) {
    if (!(months_ >> month & 1u)) {
      uint32_t later = months_ >> (month + 1) << (month + 1);
      if (later != 0) {
        month = std::countr_zero(later);
      } else {
        ++year;
        month = std::countr_zero(months_);
      }
      day = 1;
      hour = 0;
      minute = 0;
    }
    uint64_t days_left = uint64_t{matchingDays(year, month)} >> day << day;
    if (days_left == 0) {
      nextMonth();
      continue;
    }
    int found_day = std::countr_zero(days_left);
    if (found_day != day) {
      day = found_day;
      hour = 0;
      minute = 0;
    }
    uint64_t hours_left = uint64_t{hours_} >> hour << hour;
    if (hours_left == 0) {
      // The next day may be past the month's end; matchingDays() then finds nothing left.
      ++day;
      hour = 0;
      minute = 0;
      continue;
    }
    int found_hour = std::countr_zero(hours_left);
    if (found_hour != hour) {
      hour = found_hour;
      minute = 0;
    }
    uint64_t minutes_left = minutes_ >> minute << minute;
    if (minutes_left == 0) {
      minute = 0;
      if (++hour == 24) {
        hour = 0;
        ++day;
      }
      continue;
    }
    minute = std::countr_zero(minutes_left);
    return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60;
  }
  return std::nullopt;
}

bool CronSpec::matches(int64_t unix_seconds) const {
  const int64_t days = floorDiv(unix_seconds, 86400);
  const int64_t second_of_day = unix_seconds - days * 86400;
  const CivilDate date = civilFromDays(days);
  return (minutes_ >> (second_of_day % 3600 / 60) & 1u) &&
         (hours_ >> (second_of_day / 3600) & 1u) && (months_ >> date.month & 1u) &&
         (matchingDays(date.year, date.month) >> date.day & 1u);
}

}  // namespace berth::scheduler
