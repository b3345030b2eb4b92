// The scheduler's runner at scale, on the wall clock: 10,000 enabled schedules (100 projects of
// 100) all due on the same minute, requesting a local app through berthd's edge (the
// schedtarget test plugin proxies project hosts to it). Measured next to its goals:
//   - seconds after the minute until the last of the 10,000 requests reached the app (goal:
//     all within 5 s), for two minutes in a row;
//   - berthd's CPU per idle minute with 10,000 enabled schedules none of which is due (goal:
//     under 1% of one core), next to its CPU in a minute when all 10,000 run.
//
//   bench/bench_scheduler_fire [schedules, default 10000]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "scheduler/test_app.hpp"
#include "support/berthd_process.hpp"
#include "support/pg_cluster.hpp"

using namespace berth::testing;
using berth::testing::scheduler::TestApp;

namespace {

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// utime + stime of a process, in seconds.
double cpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string f;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stol(f);
    if (i == 15) stime = std::stol(f);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string lastLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

void sleepUntilMs(int64_t t) {
  int64_t d = t - nowMs();
  if (d > 0) std::this_thread::sleep_for(std::chrono::milliseconds(d));
}

}  // namespace

int main(int argc, char** argv) {
  const int total = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int projects = std::max(1, total / 100);
  const int per_project = total / projects;

  TestApp app(64);
  BerthdOptions options;
  options.plugins = {"projects", "scheduler", "schedtarget"};
  options.extra_yaml =
      "projects:\n  creation_burst: 1000\nschedtarget:\n  port: " + std::to_string(app.port()) +
      "\n";
  options.set = {"log.level=info"};
  BerthdProcess server(options);
  server.start();
  auto admin = [&](std::vector<std::string> args) {
    auto r = server.admin(args);
    if (!r.status.ok()) {
      std::fprintf(stderr, "%s\n", r.output.c_str());
      std::exit(1);
    }
    return r.output;
  };
  admin({"account", "create", "--email", "bench@example.com", "--plan", "pro", "--slug", "bench"});
  std::string token = lastLine(admin({"token", "create", "--email", "bench@example.com"}));
  ApiClient api = server.api(token);

  std::vector<std::string> names;
  for (int p = 0; p < projects; ++p) {
    auto r = api.post("/projects", {{"name", "p" + std::to_string(p)}});
    if (r.status != 201) {
      std::fprintf(stderr, "POST /projects: %ld %s\n", r.status, r.body.c_str());
      return 1;
    }
    names.push_back(r.json()["name"]);
  }
  std::printf("%d projects of %d schedules: creating %d schedules * * * * * over the API...\n",
              projects, per_project, projects * per_project);
  std::fflush(stdout);
  int64_t t0 = nowMs();
  std::atomic<int> next{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i; (i = next++) < projects * per_project;) {
        auto r =
            api.post("/projects/" + names[i % projects] + "/schedules",
                     {{"name", "s" + std::to_string(i)}, {"spec", "* * * * *"}, {"path", "/ok"}});
        if (r.status != 201) ++failed;
      }
    });
  for (auto& t : threads) t.join();
  int64_t created = nowMs();
  std::printf("created in %.1f s (%.0f per second), %d refused\n", (created - t0) / 1000.0,
              projects * per_project * 1000.0 / std::max<int64_t>(1, created - t0), failed.load());
  const int expected = projects * per_project - failed.load();

  // Every schedule's next run is the first minute after it was made: measure from the minute
  // after the last was made.
  int64_t minute = (created / 60000 + 1) * 60000;
  std::printf("\n%-8s %10s %14s %14s %14s\n", "minute", "fired", "median s", "last s", "goal s");
  double busy_cpu = 0;
  bool met = true;
  for (int round = 0; round < 2; ++round, minute += 60000) {
    sleepUntilMs(minute - 1500);
    app.clearHits();
    double cpu_before = cpuSeconds(server.pid());
    std::vector<int64_t> delays;
    while (nowMs() < minute + 55000) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      delays.clear();
      for (const auto& h : app.hits())
        if (h.at_ms >= minute && h.at_ms < minute + 60000) delays.push_back(h.at_ms - minute);
      if (static_cast<int>(delays.size()) >= expected) break;
    }
    std::set<std::string> distinct;
    for (const auto& h : app.hits())
      if (h.at_ms >= minute && h.at_ms < minute + 60000) distinct.insert(h.schedule);
    sleepUntilMs(minute + 58000);
    if (round == 0) busy_cpu = cpuSeconds(server.pid()) - cpu_before;
    std::sort(delays.begin(), delays.end());
    double median = delays.empty() ? -1 : delays[delays.size() / 2] / 1000.0;
    double last = delays.empty() ? -1 : delays.back() / 1000.0;
    met = met && static_cast<int>(distinct.size()) == expected && last <= 5.0;
    std::printf("%-8d %5zu/%-5d %14.2f %14.2f %14.1f  %s\n", round + 1, distinct.size(), expected,
                median, last, 5.0, last <= 5.0 ? "(met)" : "(NOT met)");
    std::fflush(stdout);
  }

  // Idle: the same 10,000 schedules stay enabled but fall due only on the first of January.
  {
    berth::core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(10));
    db.exec(
        "UPDATE scheduler.schedules SET spec = '0 0 1 1 *', next_run_at = "
        "extract(epoch FROM date_trunc('year', now() AT TIME ZONE 'UTC') + interval '1 "
        "year')::bigint");
  }
  std::this_thread::sleep_for(std::chrono::seconds(5));  // runs in flight finish
  double idle_before = cpuSeconds(server.pid());
  std::this_thread::sleep_for(std::chrono::seconds(60));
  double idle = cpuSeconds(server.pid()) - idle_before;
  std::printf("\nberthd CPU per minute with %d enabled schedules:\n", expected);
  std::printf("  all due (first minute)   %8.2f s  (%.1f%% of one core)\n", busy_cpu,
              busy_cpu / 60 * 100);
  std::printf("  none due (idle)          %8.3f s  (%.2f%% of one core; goal < 1%%)  %s\n", idle,
              idle / 60 * 100, idle / 60 * 100 < 1.0 ? "(met)" : "(NOT met)");
  std::printf("  idle / busy              %8.3f\n", busy_cpu > 0 ? idle / busy_cpu : 0.0);
  return met ? 0 : 2;
}
