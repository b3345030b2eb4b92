// bench/cluster: requests per second through a three-node cluster (tests/support/cluster.hpp:
// three berthds on one PostgreSQL and one s3rver, behind a round-robin front nginx) next to
// one node of the same cluster asked directly, in the same run, for three kinds of traffic:
// a static site's page, a Node app's answer (the node asked alone is the app's owner, so it
// serves it without a hop) and an API route (GET /projects/{name} with a token). Each
// measurement runs `threads` clients for `seconds`, a new connection per request (curl),
// cluster and single node alternating per traffic kind. Prints requests per second and the
// ratio cluster / one node.
// Usage: build/bench/bench_cluster [seconds per measurement, default 5] [threads, default 8]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "projects/api_support.hpp"
#include "support/cluster.hpp"
#include "support/release_upload.hpp"
#include "support/tar_gz.hpp"

using namespace berth::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct Rate {
  double rps = 0;
  long failures = 0;
};

// `threads` clients calling `one` (true: a good answer) for `seconds`.
Rate measure(int seconds, int threads, const std::function<bool()>& one) {
  std::atomic<long> good{0}, bad{0};
  const auto until = Clock::now() + std::chrono::seconds(seconds);
  const auto start = Clock::now();
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t)
    clients.emplace_back([&] {
      while (Clock::now() < until) (one() ? good : bad).fetch_add(1);
    });
  for (auto& c : clients) c.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  return {static_cast<double>(good.load()) / elapsed, bad.load()};
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const int threads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 8;
  try {
    Cluster cluster;
    const std::string token = projects_api::makeAccount(cluster.node(0), "bench").token;
    auto api = cluster.api(token);
    auto make = [&](const std::string& label) {
      auto r = api.post("/projects", {{"name", label}});
      if (r.status != 201) throw std::runtime_error("create: " + r.body);
      return r.json().at("name").get<std::string>();
    };
    const std::string site = make("site"), app = make("nodeapp");
    deployLive(api, site, TarGz().file("index.html", "<h1>bench</h1>").finish());
    deployLive(api, app,
               nodeRelease("require('http').createServer((q, s) => s.end('ok\\n'))\n"
                           "  .listen(Number(process.env.PORT), '127.0.0.1');\n"),
               std::chrono::minutes(2));
    // Started (by the first request), claimed, and every node's rules loaded.
    const auto warm_until = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < warm_until)
      for (size_t i = 0; i < cluster.size(); ++i) {
        cluster.onHostVia(i, app, "/warm");
        cluster.onHostVia(i, site, "/");
      }
    const int owner = cluster.ownerOf(app);
    const size_t single = owner >= 0 ? static_cast<size_t>(owner) : 0;

    struct Kind {
      const char* name;
      std::function<bool(bool)> one;  // true: through the balancer
    };
    const std::vector<Kind> kinds = {
        {"static page",
         [&](bool all) {
           auto r = all ? cluster.onHost(site, "/") : cluster.onHostVia(single, site, "/");
           return r.status == 200 && r.body == "<h1>bench</h1>";
         }},
        {"Node app",
         [&](bool all) {
           auto r = all ? cluster.onHost(app, "/x") : cluster.onHostVia(single, app, "/x");
           return r.status == 200 && r.body == "ok\n";
         }},
        {"API GET /projects/{name}",
         [&](bool all) {
           auto r =
               (all ? cluster.api(token) : cluster.apiVia(single, token)).get("/projects/" + site);
           return r.status == 200;
         }},
    };
    std::printf(
        "%d s per measurement, %d clients, a new connection per request (curl); "
        "one node = node %zu (the app's owner)\n",
        seconds, threads, single);
    std::printf("%-26s %12s %12s %8s %10s\n", "traffic", "cluster r/s", "1 node r/s", "ratio",
                "failures");
    for (const auto& kind : kinds) {
      Rate all = measure(seconds, threads, [&] { return kind.one(true); });
      Rate one = measure(seconds, threads, [&] { return kind.one(false); });
      std::printf("%-26s %12.1f %12.1f %7.2fx %5ld/%ld\n", kind.name, all.rps, one.rps,
                  one.rps > 0 ? all.rps / one.rps : 0.0, all.failures, one.failures);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
