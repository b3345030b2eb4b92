#include "soak/report.hpp"

#include <algorithm>
#include <cstdio>

namespace berth::soak {

namespace {

constexpr double kMaxGrowth = 1.10;

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t at = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(at, v.size() - 1)];
}

std::string statuses(const std::map<long, long>& m) {
  if (m.empty()) return "-";
  std::string out;
  for (auto [status, n] : m)
    out += (out.empty() ? "" : ", ") +
           (status == 0 ? std::string("no answer") : std::to_string(status)) + " x" +
           std::to_string(n);
  return out;
}

double average(const std::vector<Sample>& samples, double Sample::*field, double from, double to,
               int* n) {
  double sum = 0;
  *n = 0;
  for (const auto& s : samples)
    if (s.t >= from && s.t <= to) {
      sum += s.*field;
      ++*n;
    }
  return *n ? sum / *n : 0;
}

}  // namespace

bool printReport(const RunFacts& facts, const Recorder& recorder,
                 const std::vector<Sample>& samples) {
  const auto families = recorder.families();
  const long total = recorder.total();
  std::printf("\n## Requests: %ld in %.0f s (%.1f/s), %d clients, %d ms between operations\n\n",
              total, facts.seconds, total / std::max(1.0, facts.seconds), facts.clients,
              facts.think_ms);
  std::printf(
      "| family | requests | as the route answers | provoked on purpose | unexpected | p50 ms | "
      "p99 ms |\n|---|---|---|---|---|---|---|\n");
  long fivexx = 0, no_answer = 0, other = 0, wrong_body = 0;
  for (const auto& [family, f] : families) {
    std::printf("| %s | %zu | %s | %s | %s%s | %.1f | %.1f |\n", family.c_str(), f.ms.size(),
                statuses(f.ok).c_str(), statuses(f.expected).c_str(),
                statuses(f.unexpected).c_str(),
                f.wrong_body ? (" (+" + std::to_string(f.wrong_body) + " wrong body)").c_str() : "",
                percentile(f.ms, 0.5), percentile(f.ms, 0.99));
    for (auto [status, n] : f.unexpected) {
      if (status >= 500)
        fivexx += n;
      else if (status == 0)
        no_answer += n;
      else
        other += n;
    }
    wrong_body += f.wrong_body;
  }

  std::printf("\nWakes of an idle app: %ld visits, %ld of them to an app that read `stopped`\n",
              facts.wakes, facts.wakes_from_stopped);
  std::printf("Permanent schedules (* * * * *), runs seen at the end:\n");
  for (const auto& line : facts.schedule_runs) std::printf("  %s\n", line.c_str());

  std::printf(
      "\n## Samples: the first %.0f s after a %.0f s warm-up next to the last %.0f s "
      "(%zu samples)\n\n",
      facts.window_s, facts.warmup_s, facts.window_s, samples.size());
  std::printf(
      "| sample | first window (avg) | last window (avg) | last/first | goal |\n"
      "|---|---|---|---|---|\n");
  const double first_from = facts.warmup_s, first_to = facts.warmup_s + facts.window_s;
  const double last_from = facts.seconds - facts.window_s, last_to = facts.seconds + 1;
  bool flat = true;
  for (const auto& q : quantities()) {
    int n1 = 0, n2 = 0;
    const double a = average(samples, q.field, first_from, first_to, &n1);
    const double b = average(samples, q.field, last_from, last_to, &n2);
    std::string ratio = "n/a", goal = q.gated ? "< 1.10" : "(shown)";
    bool ok = true;
    if (n1 && n2) {
      if (a > 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", b / a);
        ratio = buf;
        ok = b / a < kMaxGrowth;
      } else {
        ok = b <= 0;
      }
    } else {
      ok = false;  // not enough samples to tell
    }
    if (q.gated) {
      goal += ok ? ", met" : ", NOT met";
      flat = flat && ok;
    }
    std::printf("| %s | %.1f | %.1f | %s | %s |\n", q.name, a, b, ratio.c_str(), goal.c_str());
  }
  if (!samples.empty()) {
    double peak_rss = 0, peak_fds = 0, peak_pg = 0;
    for (const auto& s : samples) {
      peak_rss = std::max(peak_rss, s.rss_mb);
      peak_fds = std::max(peak_fds, s.fds);
      peak_pg = std::max(peak_pg, s.pg_connections);
    }
    std::printf("Peaks: RSS %.1f MB, fds %.0f, PostgreSQL connections %.0f\n", peak_rss, peak_fds,
                peak_pg);
  }
  std::printf("\nPostgreSQL connections at the end (database / user / state: count):\n");
  for (const auto& line : facts.connections) std::printf("  %s\n", line.c_str());

  std::printf("\nProjects with more than one app process at the end: %zu\n",
              facts.duplicate_apps.size());
  for (const auto& line : facts.duplicate_apps) std::printf("  %s\n", line.c_str());

  const auto surprises = recorder.surprises();
  if (!surprises.empty()) {
    std::printf("\n## Answers nobody expected (%ld; the first %zu)\n\n", recorder.surpriseCount(),
                surprises.size());
    for (const auto& s : surprises)
      std::printf("- at %.1f s [%s] %s -> %ld: %s\n", s.at_s, s.family.c_str(), s.request.c_str(),
                  s.status, s.answer.c_str());
  }

  const bool pass = fivexx == 0 && no_answer == 0 && facts.failed_schedule_runs == 0 && flat;
  std::printf(
      "\n%s: unprovoked 5xx %ld, no answer %ld, failed schedule runs %ld, growth %s "
      "(also: %ld unexpected 4xx, %ld wrong bodies)\n",
      pass ? "PASS" : "FAIL", fivexx, no_answer, facts.failed_schedule_runs,
      flat ? "under 10%" : "OVER 10% (or too few samples)", other, wrong_body);
  return pass;
}

}  // namespace berth::soak
