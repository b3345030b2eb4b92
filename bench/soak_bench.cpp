// bench/soak: a bounded mixed workload on loopback for a set time (default 10 minutes). A few
// client threads run a fixed random mix of every route family (accounts, projects, secrets,
// domains, stored files, rows and /_data, SQL, import, export, schedules, releases, logs) and
// the apps' own traffic through the edge to a static site, a Node app and a PHP app, while
// a waker visits a Node and a PHP app only after they went idle (runtime.idle_stop_seconds is
// short), so each visit is a wake. Schedules every minute fire meanwhile. Every few seconds it
// samples berthd's RSS, open file descriptors and threads, the PostgreSQL cluster's client
// connections, the edge's workers and the app processes.
//
// It prints the requests, errors by status per family (the 4xx of deliberate bad requests
// apart), p50/p99 per family, each sample's first minute after warm-up next to its last minute
// as a ratio, every answer nobody expected with its request and body, and PASS/FAIL for the
// goals: no unprovoked 5xx, memory, file descriptors and connections under 10% growth.
//
// Usage (as root, like the other benches that run apps):
//   build/bench/bench_soak [duration: minutes, or 90s / 2m; default 10] [clients, default 6]
// Environment: BERTH_SOAK_MINUTES (same forms as the argument), BERTH_SOAK_CLIENTS,
// BERTH_SOAK_THINK_MS (pause between one client's operations, default 20),
// BERTH_SOAK_SAMPLE_SECONDS (default 5), BERTH_SOAK_IDLE_SECONDS (idle stop, default 5).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "projects/api_support.hpp"
#include "soak/client.hpp"
#include "soak/ops.hpp"
#include "soak/recorder.hpp"
#include "soak/report.hpp"
#include "soak/requests.hpp"
#include "soak/sampler.hpp"
#include "soak/setup.hpp"
#include "support/berthd_process.hpp"
#include "support/pg_cluster.hpp"

using namespace berth::soak;
namespace bt = berth::testing;

namespace {

// "10" and "10m" are minutes, "90s" seconds.
double parseDuration(const std::string& text) {
  if (text.empty()) return 600;
  const double n = std::atof(text.c_str());
  if (text.back() == 's') return n;
  return n * 60;
}

std::string env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::vector<std::string> scheduleRuns(const Client& c, const World& world, long* failed) {
  std::vector<std::string> lines;
  for (const auto& [project, id] : permanentSchedules(c, world)) {
    auto answer = c.call(get("report", "/projects/" + project + "/schedules/" + id + "/runs"));
    auto body = answer.json();
    std::map<std::string, long> by_status;
    long n = 0;
    std::string first_error;
    if (body.is_object() && body["runs"].is_array()) {
      const auto runs = body["runs"];  // kept: the loop reads it
      for (const auto& run : runs) {
        ++n;
        const std::string status =
            run["status"].is_number() ? std::to_string(run["status"].get<long>()) : "none";
        ++by_status[status];
        const long code = run["status"].is_number() ? run["status"].get<long>() : 0;
        if (code < 200 || code > 399) {  // a run counts as successful for 200 to 399
          ++*failed;
          if (first_error.empty() && run["error"].is_string()) first_error = run["error"];
        }
      }
    }
    std::string line = project + ": " + std::to_string(n) + " runs (";
    bool first = true;
    for (const auto& [status, k] : by_status) {
      line += (first ? "" : ", ") + status + " x" + std::to_string(k);
      first = false;
    }
    line += ")";
    if (!first_error.empty()) line += ", first error: " + first_error;
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the report as it is printed, also into a file
  const double seconds = parseDuration(argc > 1 ? argv[1] : env("BERTH_SOAK_MINUTES", "10"));
  const int clients =
      std::max(1, std::atoi(argc > 2 ? argv[2] : env("BERTH_SOAK_CLIENTS", "6").c_str()));
  const int think_ms = std::atoi(env("BERTH_SOAK_THINK_MS", "20").c_str());
  const double sample_every = std::atof(env("BERTH_SOAK_SAMPLE_SECONDS", "5").c_str());
  const int idle_s = std::max(1, std::atoi(env("BERTH_SOAK_IDLE_SECONDS", "5").c_str()));

  bt::BerthdOptions options;
  options.plugins = {"projects", "storage", "runtime", "scheduler", "sqlconsole", "templates"};
  options.extra_yaml = bt::projects_api::secretsKeyYaml() +
                       "  creation_burst: 1000\n  creation_refill_seconds: 1\n"
                       "runtime:\n  idle_stop_seconds: " +
                       std::to_string(idle_s) + "\n  stop_grace_seconds: 2\n  keep_releases: 3\n";
  // The production defaults the tests' configuration lowers, and no debug log.
  options.set = {"log.level=info", "edge.worker_processes=2", "database.pool_size=8"};
  bt::BerthdProcess server(options);
  server.start();
  const auto account = bt::projects_api::makeAccount(server, "soak");

  World world;
  world.slug = account.slug;
  world.idle_stop_seconds = idle_s;
  Recorder setup_recorder(nowSeconds());
  try {
    setUp(Client(setup_recorder, server.baseUrl(), account.token), world);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_soak: set-up failed: %s\n", e.what());
    return 2;
  }
  const std::string cluster = bt::sharedCluster().url("postgres");
  std::printf(
      "bench_soak: %.0f s, %d clients, %d ms between operations, idle stop %d s, "
      "berthd pid %d on %s\n",
      seconds, clients, think_ms, idle_s, server.pid(), server.baseUrl().c_str());
  std::fflush(stdout);

  const double started = nowSeconds();
  const double deadline = started + seconds;
  Recorder recorder(started);
  Sampler sampler(server.pid(), cluster, started, sample_every);
  const Client client(recorder, server.baseUrl(), account.token);

  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i)
    threads.emplace_back([&, i] {
      ClientState state;
      state.id = i;
      state.random.seed(1000 + i);  // a fixed mix: the same run gives the same operations
      while (nowSeconds() < deadline) {
        try {
          runOne(client, world, state);
        } catch (const std::exception& e) {
          // An answer of a shape nobody expected (its request is already recorded).
          std::fprintf(stderr, "client %d: %s\n", i, e.what());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(think_ms));
      }
    });
  // The waker: each cold app is visited once it has been idle long enough to be stopped
  // (idle_stop_seconds, then about 2 s until the process is gone).
  threads.emplace_back([&] {
    const double period = idle_s + 5;
    double next = nowSeconds() + period;
    while (nowSeconds() < deadline) {
      if (nowSeconds() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      wake(client, world, world.node_cold);
      wake(client, world, world.php_cold);
      next = nowSeconds() + period;
    }
  });
  // Progress, once a minute, on stderr.
  threads.emplace_back([&] {
    double next = started + 60;
    while (nowSeconds() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (nowSeconds() < next) continue;
      next += 60;
      auto samples = sampler.samples();
      const Sample last = samples.empty() ? Sample{} : samples.back();
      std::fprintf(stderr,
                   "[%3.0f s] %ld requests, %ld unexpected; RSS %.1f MB, fds %.0f, threads %.0f, "
                   "pg %.0f, edge workers %.0f, apps %.0f\n",
                   nowSeconds() - started, recorder.total(), recorder.surpriseCount(), last.rss_mb,
                   last.fds, last.threads, last.pg_connections, last.edge_workers, last.apps);
    }
  });
  for (auto& t : threads) t.join();
  const double ran = nowSeconds() - started;
  sampler.stop();

  RunFacts facts;
  facts.seconds = ran;
  // Two-minute windows (24 samples) for a 10-minute run: the connection count includes those
  // in flight at the sample's instant (an export's pg_dump, an import, a project being made),
  // and one-minute means of it swung by about 10% between runs with no trend; a leak grows
  // through the run, so it shows in wide windows as in narrow ones. The warm-up lets the
  // projects' pools reach their working size.
  facts.warmup_s = std::min(120.0, seconds / 5);
  facts.window_s = std::min(120.0, seconds / 4);
  facts.clients = clients;
  facts.think_ms = think_ms;
  facts.wakes = world.wakes;
  facts.wakes_from_stopped = world.wakes_from_stopped;
  Recorder after(nowSeconds());  // what the report asks is not part of the soak
  facts.schedule_runs = scheduleRuns(Client(after, server.baseUrl(), account.token), world,
                                     &facts.failed_schedule_runs);
  facts.connections = connectionBreakdown(cluster);
  facts.duplicate_apps = duplicateApps(server.pid());
  const bool pass = printReport(facts, recorder, sampler.samples());

  // berthd's own log, kept for what the report shows (the server's folder goes with it).
  const std::string log_copy = env("BERTH_SOAK_LOG", "/tmp/bench-soak-berthd.log");
  std::ofstream(log_copy) << server.output();
  std::printf("berthd's log: %s\n", log_copy.c_str());
  // The edge's error log says why nginx answered a 502 itself (refused, reset, closed early).
  const std::string edge_copy = env("BERTH_SOAK_EDGE_LOG", "/tmp/bench-soak-edge-error.log");
  std::error_code copy_error;
  std::filesystem::copy_file(server.dataDir() + "/edge/error.log", edge_copy,
                             std::filesystem::copy_options::overwrite_existing, copy_error);
  if (!copy_error) std::printf("the edge's error log: %s\n", edge_copy.c_str());
  if (!server.running()) {
    std::printf("berthd is no longer running:\n%s\n", server.output().c_str());
    return 1;
  }
  return pass ? 0 : 1;
}
