// fuzz-link: berth_scheduler_logic
// fuzz-sources: tests/fuzz/support/reference_process.cpp
//
// The scheduler's cron parser and next-run computation, against python3-croniter (the
// reference tests/scheduler/cron_test.cpp compares with), asked through one long-lived
// /usr/bin/python3 child.
//
// Input: the spec, optionally followed by a newline and the text the start time is taken from
// (digits: that many seconds into the window; anything else: its hash). The start lies in
// 1970..2200, where both sides' calendars are exact.
//
// - Accepted by us: croniter accepts the same spec and gives the same next 5 runs, each
//   strictly later than the one before, and each matches() by our own test of a minute.
// - Refused by us: the refusal is CronParse::error, a sentence that starts the way the
//   parser's refusals do (the field's name, or the five-fields or shorthand sentence). Refusing
//   is not compared with croniter, which accepts far more than the documented syntax (seconds,
//   names, @shorthands, L, W, #, ?, a step after a single number, wrapping ranges); only a
//   refusal as "would never run" is, and croniter must find no next run for it either.
//
// Two croniter 1.3.5 defects are left out of the comparison:
// - With both day fields restricted, when the day of month alone never falls in the chosen
//   months (0 0 31 2 1) croniter raises instead of answering the day-of-week dates. There only
//   the day of week can match, so croniter is asked the same spec with day of month *, as
//   cron_test.cpp does.
// - In February croniter moves to the next chosen day by adding the difference in days, so a
//   chosen 30 or 31 lands on 2 or 3 March and 1 (and 2) March are skipped: "0 6 1,30 * *" from
//   15 February 2023 answers 30 March, not 1 March (found by this target). Runs are compared
//   up to the first of ours on 1 or 2 March of a spec whose days include 30 or 31 and whose
//   months include February; the runs before it must still agree.
#include <cstdint>
#include <string>
#include <vector>

#include "civil_time.hpp"
#include "cron_spec.hpp"
#include "support/fuzz_check.hpp"
#include "support/reference_process.hpp"

namespace {

using berth::scheduler::CronParse;
using berth::scheduler::CronSpec;

constexpr int kRuns = 5;

// Answers "<spec>\n<start unix seconds>\n<count>" with "ok t1 ... tN" (Unix seconds, UTC) or
// "error <exception type> <message>".
const char* kCroniterServer = R"PY(
import datetime, struct, sys
from croniter import croniter
utc = datetime.timezone.utc
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = stdin.read(4)
    if len(head) < 4:
        break
    spec, start, count = stdin.read(struct.unpack(">I", head)[0]).decode("latin-1").split("\n")
    try:
        it = croniter(spec, datetime.datetime.fromtimestamp(int(start), tz=utc))
        answer = "ok " + " ".join(str(int(it.get_next(float))) for _ in range(int(count)))
    except Exception as e:
        answer = "error " + type(e).__name__ + " " + str(e)
    data = answer.encode()
    stdout.write(struct.pack(">I", len(data)) + data)
    stdout.flush()
)PY";

berth::fuzz::ReferenceProcess& croniter() {
  static berth::fuzz::ReferenceProcess process({"/usr/bin/python3", "-c", kCroniterServer});
  return process;
}

std::vector<std::string> fieldsOf(std::string_view spec) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (i < spec.size()) {
    while (i < spec.size() && (spec[i] == ' ' || spec[i] == '\t')) ++i;
    size_t end = i;
    while (end < spec.size() && spec[end] != ' ' && spec[end] != '\t') ++end;
    if (end > i) fields.emplace_back(spec.substr(i, end - i));
    i = end;
  }
  return fields;
}

// What croniter is asked for a spec we accept (see the workaround above).
std::string referenceSpec(std::string_view spec, const CronSpec& ours) {
  std::vector<std::string> f = fieldsOf(spec);
  if (ours.dayOfMonthRestricted() && ours.dayOfWeekRestricted() &&
      !CronSpec::parse(f[0] + " " + f[1] + " " + f[2] + " " + f[3] + " *").spec)
    return f[0] + " " + f[1] + " * " + f[3] + " " + f[4];
  return std::string(spec);
}

int64_t startFrom(std::string_view text) {
  const int64_t first = berth::scheduler::daysFromCivil(1970, 1, 1) * 86400;
  const int64_t window = berth::scheduler::daysFromCivil(2200, 1, 1) * 86400 - first;
  uint64_t value = 0;
  bool digits = !text.empty() && text.size() <= 18;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  if (digits) {
    value = std::stoull(std::string(text));
  } else {
    value = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : text) value = (value ^ c) * 1099511628211ull;
  }
  return first + static_cast<int64_t>(value % static_cast<uint64_t>(window));
}

// Whether croniter's February defect (above) may make it skip this run of ours.
bool croniterMaySkip(const CronSpec& spec, int64_t run) {
  const auto date = berth::scheduler::civilFromDays(berth::scheduler::floorDiv(run, 86400));
  return date.month == 3 && date.day <= 2 && (spec.months() >> 2 & 1u) &&
         spec.dayOfMonthRestricted() && (spec.daysOfMonth() >> 30) != 0;
}

bool startsWith(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

void checkRefusal(std::string_view spec, const std::string& error, int64_t start) {
  const std::string detail = "spec \"" + std::string(spec) + "\": " + error;
  bool known = startsWith(error, "a cron spec has five fields separated by spaces: ") ||
               startsWith(error, "shorthands such as ");
  for (const char* field : {"minute", "hour", "day of month", "month", "day of week"})
    known = known || startsWith(error, std::string(field) + " field: ");
  berth::fuzz::check(known, "a refusal that is not one of the parser's sentences", detail);
  if (error.find("so the spec would never run") == std::string::npos) return;
  const std::string answer =
      croniter().ask(std::string(spec) + "\n" + std::to_string(start) + "\n1");
  berth::fuzz::check(startsWith(answer, "error CroniterBadDateError"),
                     "refused as never running, but croniter finds a run",
                     detail + "\ncroniter: " + answer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 512) return 0;
  const std::string_view input = berth::fuzz::asText(data, size);
  const size_t newline = input.find('\n');
  const std::string_view spec = input.substr(0, newline);
  const int64_t start =
      startFrom(newline == std::string_view::npos ? spec : input.substr(newline + 1));

  const CronParse parsed = CronSpec::parse(spec);
  if (!parsed.spec) {
    checkRefusal(spec, parsed.error, start);
    return 0;
  }
  berth::fuzz::check(parsed.error.empty(), "accepted with an error text", parsed.error);

  std::vector<int64_t> runs;
  int64_t after = start;
  for (int i = 0; i < kRuns; ++i) {
    const auto next = parsed.spec->nextAfter(after);
    const std::string where = "spec \"" + std::string(spec) + "\" after " + std::to_string(after);
    berth::fuzz::check(next.has_value(), "an accepted spec has no next run", where);
    berth::fuzz::check(*next > after && *next % 60 == 0, "a next run not on a later minute",
                       where + ": " + std::to_string(*next));
    berth::fuzz::check(parsed.spec->matches(*next), "a next run that does not match",
                       where + ": " + std::to_string(*next));
    runs.push_back(*next);
    after = *next;
  }
  const std::string asked = referenceSpec(spec, *parsed.spec);
  const std::string answer =
      croniter().ask(asked + "\n" + std::to_string(start) + "\n" + std::to_string(kRuns));
  std::string ours = "ok", theirs = "ok";
  std::vector<std::string> words = fieldsOf(answer);
  for (size_t i = 0; i < runs.size() && !croniterMaySkip(*parsed.spec, runs[i]); ++i) {
    ours += " " + std::to_string(runs[i]);
    theirs += " " + (i + 1 < words.size() ? words[i + 1] : std::string("-"));
  }
  if (words.empty() || words[0] != "ok") theirs = answer;
  berth::fuzz::check(ours == theirs, "croniter disagrees",
                     "spec \"" + std::string(spec) + "\" (croniter asked \"" + asked +
                         "\") after " + std::to_string(start) + "\nours:     " + ours +
                         "\ncroniter: " + theirs + "\n(croniter's whole answer: " + answer + ")");
  return 0;
}
