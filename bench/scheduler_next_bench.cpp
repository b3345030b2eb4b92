// Next-run computation of the scheduler's cron specs: nanoseconds per call over a mixed set of
// specs (every minute ... once in four or eight years), against two comparisons from the same
// run: a minute-by-minute scan with the same matcher (what "no scan over years" avoids), and
// python3-croniter (the reference the tests compare answers with), per call.
//
//   bench/bench_scheduler_next [calls per spec, default 200000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "civil_time.hpp"
#include "cron_spec.hpp"

using namespace berth::scheduler;
using Clock = std::chrono::steady_clock;

namespace {

const std::vector<std::string> kSpecs = {
    "* * * * *",   "*/5 * * * *",        "0 * * * *",      "0 0 * * *",
    "0 3 * * 1-5", "15,45 9-17 * * 1-5", "0 0 1 * *",      "0 0 * * 0",
    "30 2 1 1 *",  "0 0 29 2 *",         "0 0 13 * 5",     "*/15 0-6 1,15 */2 *",
    "0 12 31 * *", "5 4 * * 7",          "0 22 * * 1-5/2", "0 0 28-31 * *"};

std::vector<int64_t> startTimes(size_t n) {
  std::mt19937_64 random(42);
  std::vector<int64_t> out;
  const int64_t from = daysFromCivil(2020, 1, 1) * 86400;
  for (size_t i = 0; i < n; ++i)
    out.push_back(from + static_cast<int64_t>(random() % (86400ull * 365 * 30)));
  return out;
}

// The same answer by looking at every minute (bounded to nine years so it ends).
int64_t scan(const CronSpec& spec, int64_t after) {
  int64_t t = (floorDiv(after, 60) + 1) * 60;
  for (int64_t end = t + int64_t{9} * 366 * 86400; t < end; t += 60)
    if (spec.matches(t)) return t;
  return -1;
}

double croniterNsPerCall(size_t calls) {
  std::string script =
      "import datetime, random, time\n"
      "from croniter import croniter\n"
      "specs = [";
  for (const auto& s : kSpecs) script += "'" + s + "',";
  script +=
      "]\nutc = datetime.timezone.utc\nrandom.seed(42)\n"
      "starts = [1577836800 + random.randrange(86400 * 365 * 30) for _ in range(" +
      std::to_string(calls) +
      ")]\n"
      "t = time.perf_counter()\n"
      "for i, s in enumerate(starts):\n"
      "    croniter(specs[i % len(specs)], datetime.datetime.fromtimestamp(s, "
      "tz=utc)).get_next(float)\n"
      "print((time.perf_counter() - t) / len(starts) * 1e9)\n";
  std::string path = "/tmp/bench_scheduler_croniter.py";
  FILE* f = fopen(path.c_str(), "w");
  if (!f) return -1;
  fputs(script.c_str(), f);
  fclose(f);
  FILE* p = popen(("/usr/bin/python3 " + path + " 2>/dev/null").c_str(), "r");
  if (!p) return -1;
  double ns = -1;
  if (fscanf(p, "%lf", &ns) != 1) ns = -1;
  pclose(p);
  std::remove(path.c_str());
  return ns;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t calls = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 200000;
  std::vector<CronSpec> specs;
  for (const auto& text : kSpecs) specs.push_back(*CronSpec::parse(text).spec);
  const std::vector<int64_t> starts = startTimes(4096);

  // Jumping, per spec and over the mix.
  std::printf("next run after a random time in 2020-2050, %zu calls per spec\n", calls);
  std::printf("%-22s %12s\n", "spec", "ns/call");
  int64_t sink = 0;
  double total_ns = 0;
  for (size_t s = 0; s < specs.size(); ++s) {
    auto t0 = Clock::now();
    for (size_t i = 0; i < calls; ++i) sink += *specs[s].nextAfter(starts[i & 4095]);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / calls;
    total_ns += ns;
    std::printf("%-22s %12.1f\n", kSpecs[s].c_str(), ns);
  }
  const double mixed_ns = total_ns / specs.size();

  // The scan: fewer calls (it is slow), same specs and start times, answers checked equal.
  const size_t scan_calls = 64;
  double scan_total = 0;
  size_t disagreements = 0;
  for (size_t s = 0; s < specs.size(); ++s) {
    auto t0 = Clock::now();
    for (size_t i = 0; i < scan_calls; ++i) {
      int64_t scanned = scan(specs[s], starts[i]);
      sink += scanned;
      if (scanned != *specs[s].nextAfter(starts[i])) ++disagreements;
    }
    scan_total += std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / scan_calls;
  }
  const double scan_ns = scan_total / specs.size();
  const double croniter_ns = croniterNsPerCall(2000);

  std::printf("\nmixed set of %zu specs (mean of per-spec means):\n", specs.size());
  std::printf("  jump (this plugin)        %12.1f ns/call\n", mixed_ns);
  std::printf(
      "  minute-by-minute scan     %12.1f ns/call   jump is %.0fx faster (%zu disagreements)\n",
      scan_ns, scan_ns / mixed_ns, disagreements);
  if (croniter_ns > 0)
    std::printf("  python3-croniter          %12.1f ns/call   jump is %.0fx faster\n", croniter_ns,
                croniter_ns / mixed_ns);
  else
    std::printf("  python3-croniter          not installed\n");
  std::printf("  at 10,000 schedules due in one minute: %.2f ms of next-run work\n",
              mixed_ns * 10000 / 1e6);
  return sink == 42 ? 1 : 0;  // keeps the loops
}
