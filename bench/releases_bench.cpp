// bench/releases: a 20 MB static release from upload to live through berthd (edge spool, blob
// store, safe unpack on a build thread, the live switch in PostgreSQL), polled every 5 ms,
// next to `tar xzf` of the same archive in the same run: the ratio is what the platform adds
// over merely extracting the files.
// Usage: build/bench/bench_releases [rounds, default 5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "projects/api_support.hpp"
#include "runtime/tar_builder.hpp"
#include "support/berthd_process.hpp"

using namespace berth::testing;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// 200 files of 100 KB of random bytes (gzip cannot shrink them: the archive is ~20 MB too),
// and an index.html so the release is a static site.
std::string twentyMegabytes() {
  std::mt19937_64 random(42);
  berth::runtime::testing::TarBuilder tar;
  tar.file("index.html", "<h1>bench</h1>");
  std::string chunk(100 * 1024, '\0');
  for (int i = 0; i < 200; ++i) {
    for (size_t j = 0; j + 8 <= chunk.size(); j += 8) {
      std::uint64_t word = random();
      std::memcpy(chunk.data() + j, &word, 8);
    }
    tar.file("assets/blob" + std::to_string(i) + ".bin", chunk);
  }
  return tar.finish();
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  BerthdOptions options;
  options.plugins = {"projects", "storage", "runtime"};
  options.extra_yaml = "runtime:\n  keep_releases: 2\n";
  BerthdProcess server(options);
  server.start();
  auto api = server.api(projects_api::makeAccount(server, "bench").token);
  auto created = api.post("/projects", {{"name", "rel"}});
  if (created.status != 201) {
    std::fprintf(stderr, "create failed: %ld %s\n", created.status, created.body.c_str());
    return 1;
  }
  std::string name = created.json()["name"];

  const std::string archive = twentyMegabytes();
  const std::string base = makeTempDir("bench-releases");
  const std::string archive_file = base + "/release.tar.gz";
  std::ofstream(archive_file, std::ios::binary) << archive;

  std::vector<double> ours, gnu;
  for (int round = 0; round < rounds; ++round) {
    auto start = Clock::now();
    auto r = api.raw("POST", "/projects/" + name + "/deploys", archive,
                     {"Content-Type: application/gzip"});
    if (r.status != 202) {
      std::fprintf(stderr, "upload failed: %ld %s\n", r.status, r.body.c_str());
      return 1;
    }
    std::string id = r.json()["id"];
    while (true) {
      auto one = api.get("/projects/" + name + "/deploys/" + id);
      std::string status = one.json().value("status", "");
      if (status == "live") break;
      if (status != "building") {
        std::fprintf(stderr, "build ended %s: %s\n", status.c_str(), one.body.c_str());
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ours.push_back(msSince(start));

    const std::string into = base + "/tar" + std::to_string(round);
    fs::create_directories(into);
    std::string cmd = "tar --warning=no-unknown-keyword -xzf " + archive_file + " -C " + into;
    start = Clock::now();
    if (std::system(cmd.c_str()) != 0) return 1;
    gnu.push_back(msSince(start));
  }
  removeTree(base);
  double a = median(ours), b = median(gnu);
  std::printf(
      "release of %.1f MB (gzip), median of %d: upload to live %.1f ms, tar xzf %.1f ms, "
      "ratio (ours/tar) %.2fx\n",
      static_cast<double>(archive.size()) / (1024 * 1024), rounds, a, b, a / b);
  return 0;
}
