// bench/projects: the cost of a project's lifecycle and of listing many.
//  1. Create a project (with its database and role) and delete it: median over 50, next to a
//     bare CREATE ROLE + CREATE DATABASE (and DROP DATABASE + DROP ROLE) over libpq on the same
//     cluster in the same run. Goal: <= 1.5x that floor.
//  2. GET /projects for an account with 1,000 projects: p50/p99 over 200 requests.
//     Goal: p99 < 20 ms. Then GET /projects/{name} of one of them: p50/p99 over 1,000.
// Usage: build/bench/bench_projects [projects for step 2, default 1000] [plugins, default
//        "projects"; "projects,storage,runtime" adds the plugins that fill in files_count,
//        files_bytes, state and live through the projects.view.v1 hook]
// BERTH_BENCH_BERTHD and BERTH_BENCH_PLUGIN_DIR run another build's berthd and plugins (one kept
// from before a change, to compare in the same conditions).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db/pool.hpp"
#include "projects/api_support.hpp"
#include "support/berthd_process.hpp"
#include "support/pg_cluster.hpp"

using namespace berth::testing;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  int many = argc > 1 ? std::atoi(argv[1]) : 1000;
  BerthdOptions options;
  options.plugins.clear();
  std::istringstream plugins(argc > 2 ? argv[2] : "projects");
  for (std::string id; std::getline(plugins, id, ',');) options.plugins.push_back(id);
  if (const char* berthd = std::getenv("BERTH_BENCH_BERTHD")) options.berthd = berthd;
  if (const char* dir = std::getenv("BERTH_BENCH_PLUGIN_DIR")) options.plugin_dir = dir;
  options.extra_yaml = "projects:\n  creation_burst: 1000\n  creation_refill_seconds: 1\n";
  BerthdProcess server(options);
  server.start();
  auto api = server.api(projects_api::makeAccount(server, "bench").token);

  // 1. Lifecycle through berthd.
  std::vector<double> create_ms, delete_ms;
  for (int i = 0; i < 50; ++i) {
    auto t0 = Clock::now();
    auto r = api.post("/projects", {{"name", "life" + std::to_string(i)}});
    auto t1 = Clock::now();
    if (r.status != 201) {
      std::fprintf(stderr, "create failed: %ld %s\n", r.status, r.body.c_str());
      return 1;
    }
    auto d = api.del("/projects/" + r.json()["name"].get<std::string>());
    auto t2 = Clock::now();
    if (d.status != 204) {
      std::fprintf(stderr, "delete failed: %ld %s\n", d.status, d.body.c_str());
      return 1;
    }
    create_ms.push_back(ms(t1 - t0));
    delete_ms.push_back(ms(t2 - t1));
  }
  // The floor: the same statements straight over libpq, as a superuser, on the same cluster.
  berth::core::Pool pg(sharedCluster().url("postgres"), 1, std::chrono::seconds(10));
  std::vector<double> bare_create_ms, bare_delete_ms;
  for (int i = 0; i < 50; ++i) {
    std::string n = "bare_" + std::to_string(i);
    auto t0 = Clock::now();
    pg.exec("CREATE ROLE " + n + " LOGIN PASSWORD 'x'");
    pg.exec("CREATE DATABASE " + n + " OWNER " + n);
    auto t1 = Clock::now();
    pg.exec("DROP DATABASE " + n);
    pg.exec("DROP ROLE " + n);
    auto t2 = Clock::now();
    bare_create_ms.push_back(ms(t1 - t0));
    bare_delete_ms.push_back(ms(t2 - t1));
  }
  double c = percentile(create_ms, 0.5), bc = percentile(bare_create_ms, 0.5);
  double d = percentile(delete_ms, 0.5), bd = percentile(bare_delete_ms, 0.5);
  std::printf("bench/projects (median of 50)\n");
  std::printf("  %-46s %8.1f ms\n", "POST /projects (database + role)", c);
  std::printf("  %-46s %8.1f ms   ratio %.2f (goal <= 1.5)\n",
              "bare CREATE ROLE + CREATE DATABASE (libpq)", bc, c / bc);
  std::printf("  %-46s %8.1f ms\n", "DELETE /projects/{name}", d);
  std::printf("  %-46s %8.1f ms   ratio %.2f (goal <= 1.5)\n",
              "bare DROP DATABASE + DROP ROLE (libpq)", bd, d / bd);

  // 2. Listing many projects.
  auto t0 = Clock::now();
  for (int i = 0; i < many; ++i) {
    auto r = api.post("/projects", {{"name", "many" + std::to_string(i)}});
    if (r.status == 429) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      --i;
      continue;
    }
    if (r.status != 201) {
      std::fprintf(stderr, "create %d failed: %ld %s\n", i, r.status, r.body.c_str());
      return 1;
    }
  }
  double made_s = ms(Clock::now() - t0) / 1000;
  std::vector<double> list_ms;
  size_t bytes = 0;
  for (int i = 0; i < 200; ++i) {
    auto t = Clock::now();
    auto r = api.get("/projects");
    list_ms.push_back(ms(Clock::now() - t));
    bytes = r.body.size();
    if (r.status != 200) return 1;
  }
  std::printf(
      "GET /projects with %d projects (%zu bytes), 200 requests: p50 %.1f ms, p99 %.1f ms "
      "(goal p99 < 20 ms); %d projects made in %.1f s\n",
      many, bytes, percentile(list_ms, 0.5), percentile(list_ms, 0.99), many, made_s);

  std::vector<double> get_ms;
  const std::string one = "/projects/many0-bench";
  for (int i = 0; i < 1000; ++i) {
    auto t = Clock::now();
    auto r = api.get(one);
    get_ms.push_back(ms(Clock::now() - t));
    if (r.status != 200) {
      std::fprintf(stderr, "GET %s failed: %ld %s\n", one.c_str(), r.status, r.body.c_str());
      return 1;
    }
  }
  std::printf("GET /projects/{name}, 1000 requests: p50 %.3f ms, p99 %.3f ms (plugins %s)\n",
              percentile(get_ms, 0.5), percentile(get_ms, 0.99), argc > 2 ? argv[2] : "projects");
  return 0;
}
