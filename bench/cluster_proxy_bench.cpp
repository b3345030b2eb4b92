// bench/cluster_proxy: what a request pays when it reaches a node that does not run the
// project's app and is proxied to the owner's edge, next to the same request served by the
// owner directly, in the same run. Two berthds on one PostgreSQL (each its own data_dir and
// edge); a Node app answering a few bytes runs on node A (its owner). Requests alternate in
// blocks between A's edge (straight to the app: the edge's app rule) and B's edge (B's berthd
// decides, the owner's claim remembered for a second; B's nginx proxies to A's nginx, which
// sends it to the app). Prints per path the median, p90 and mean in ms and the ratio.
// Usage: build/bench/bench_cluster_proxy [requests per path, default 2000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "projects/api_support.hpp"
#include "runtime/host_requests.hpp"
#include "support/release_upload.hpp"

using namespace berth::testing;
using Clock = std::chrono::steady_clock;

namespace {

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::max(10, std::atoi(argv[1])) : 2000;
  BerthdOptions a;
  a.plugins = {"projects", "storage", "runtime"};
  a.extra_yaml = projects_api::secretsKeyYaml() + "  creation_burst: 100\n";
  BerthdProcess nodeA(a);
  nodeA.start();
  BerthdOptions b = a;
  b.set = {"database.url=" + nodeA.databaseUrl()};
  BerthdProcess nodeB(b);
  nodeB.start();
  auto api = nodeA.api(projects_api::makeAccount(nodeA, "bench").token);
  auto created = api.post("/projects", {{"name", "owned"}});
  if (created.status != 201) {
    std::fprintf(stderr, "create failed: %ld %s\n", created.status, created.body.c_str());
    return 1;
  }
  const std::string name = created.json()["name"];
  try {
    deployLive(api, name,
               nodeRelease("require('http').createServer((q, s) => s.end('ok\\n'))\n"
                           "  .listen(Number(process.env.PORT), '127.0.0.1');\n"),
               std::chrono::minutes(2));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  // Started on A (its owner); then B's first request finds A's claim.
  for (BerthdProcess* node : {&nodeA, &nodeB}) {
    auto r = runtime_api::onProjectHost(*node, name, "/warm");
    if (r.status != 200 || r.body != "ok\n") {
      std::fprintf(stderr, "warm-up answered %ld: %s\n", r.status, r.body.c_str());
      return 1;
    }
  }
  // A's edge loads the app rule within a second or so: warm both paths up past that.
  const auto warm_until = Clock::now() + std::chrono::seconds(3);
  while (Clock::now() < warm_until)
    for (BerthdProcess* node : {&nodeA, &nodeB}) runtime_api::onProjectHost(*node, name, "/warm");

  std::vector<double> direct, proxied;
  constexpr int kBlock = 100;
  for (int done = 0; done < requests; done += kBlock) {
    for (auto [node, out] : {std::pair{&nodeA, &direct}, std::pair{&nodeB, &proxied}}) {
      for (int i = 0; i < kBlock && done + i < requests; ++i) {
        const auto start = Clock::now();
        auto r = runtime_api::onProjectHost(*node, name, "/x?i=" + std::to_string(i));
        out->push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        if (r.status != 200 || r.body != "ok\n") {
          std::fprintf(stderr, "answered %ld: %s\n", r.status, r.body.c_str());
          return 1;
        }
      }
    }
  }
  std::printf("%d requests per path, one at a time, a new connection each (curl)\n", requests);
  std::printf("%-30s %8s %8s %8s\n", "path", "median", "p90", "mean");
  std::printf("%-30s %8.3f %8.3f %8.3f\n", "owner A directly", percentile(direct, 0.5),
              percentile(direct, 0.9), mean(direct));
  std::printf("%-30s %8.3f %8.3f %8.3f\n", "via B, proxied to A", percentile(proxied, 0.5),
              percentile(proxied, 0.9), mean(proxied));
  std::printf("proxied / direct (median): %.2fx, extra %.3f ms per request\n",
              percentile(proxied, 0.5) / percentile(direct, 0.5),
              percentile(proxied, 0.5) - percentile(direct, 0.5));
  return 0;
}
