// Runtime foundations, measured against what they compare with in the same run:
//  1. unpacking a release (safe unpacker) vs GNU tar extracting the same archive;
//  2. wake: AppProcess start() until ready vs the node app's own start-to-listening time
//     (performance.now() when listen() called back). Goal: <= that + 100 ms
//     (this measures the supervisor's part; the gateway's round trip comes on top).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process_supervisor.hpp"
#include "release_unpack.hpp"
#include "runtime/tar_builder.hpp"

namespace fs = std::filesystem;
using namespace berth::runtime;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void benchUnpack(const fs::path& base) {
  // Like a node_modules tree: 3000 files of 1-16 KB in 150 folders.
  testing::TarBuilder tar;
  std::string content;
  for (int i = 0; i < 3000; ++i) {
    content.assign(static_cast<size_t>(1024 + (i * 4099) % 15360), static_cast<char>('a' + i % 26));
    tar.file("node_modules/pkg" + std::to_string(i % 150) + "/lib/file" + std::to_string(i) + ".js",
             content);
  }
  const std::string archive = tar.finish();
  const fs::path archive_file = base / "release.tar.gz";
  std::ofstream(archive_file, std::ios::binary) << archive;

  std::vector<double> ours, gnu;
  for (int round = 0; round < 5; ++round) {
    const fs::path a = base / ("ours" + std::to_string(round));
    auto start = Clock::now();
    auto result = unpackRelease(archive_file, a, {});
    ours.push_back(msSince(start));
    if (!result.ok()) {
      std::printf("unpack failed: %s\n", result.error->c_str());
      std::exit(1);
    }
    const fs::path b = base / ("tar" + std::to_string(round));
    fs::create_directories(b);
    const std::string command =
        "tar --warning=no-unknown-keyword -xzf " + archive_file.string() + " -C " + b.string();
    start = Clock::now();
    if (std::system(command.c_str()) != 0) std::exit(1);
    gnu.push_back(msSince(start));
  }
  std::printf(
      "unpack 3000 files (%zu KB gzip): safe unpacker %.1f ms, GNU tar %.1f ms, "
      "ratio (tar/ours) %.2fx\n",
      archive.size() / 1024, median(ours), median(gnu), median(gnu) / median(ours));
}

void benchWake(const fs::path& base) {
  const fs::path app = base / "app";
  fs::create_directories(app);
  ::chmod(app.c_str(), 0755);
  ::chmod(base.c_str(), 0755);
  std::ofstream(app / "server.js")
      << "require('http').createServer((q, s) => s.end('hi'))"
         ".listen(Number(process.env.PORT), '127.0.0.1', () => "
         "console.log('listening after ' + performance.now().toFixed(1)));\n";
  ::chmod((app / "server.js").c_str(), 0644);
  AppSpec spec;
  spec.project = "bench";
  spec.argv = {"node", "server.js"};
  spec.release_dir = app.string();
  if (::geteuid() == 0) spec.run_as = RunAs{65534, 65534};  // nobody
  std::vector<double> wake, own;
  for (int round = 0; round < 10; ++round) {
    AppProcess process(spec);
    const auto start = Clock::now();
    auto outcome = process.startAndWait();
    const double took = msSince(start);
    if (!outcome.ready) {
      std::printf("wake failed: %s\n", outcome.error.c_str());
      std::exit(1);
    }
    // The line may arrive just after readiness is seen.
    std::vector<std::string> lines;
    for (int i = 0; i < 200 && lines.empty(); ++i) {
      lines = process.lastLines(1);
      if (lines.empty()) usleep(5000);
    }
    if (lines.empty() || !lines[0].starts_with("listening after ")) continue;
    wake.push_back(took);
    own.push_back(std::stod(lines[0].substr(16)));
    process.stop();
  }
  if (wake.empty()) {
    std::printf("wake: no measurement\n");
    return;
  }
  std::printf(
      "wake node hello: start->ready %.1f ms, app's own start->listening %.1f ms, "
      "overhead %.1f ms (goal <= 100 ms), ratio %.2fx\n",
      median(wake), median(own), median(wake) - median(own), median(wake) / median(own));
}

}  // namespace

int main() {
  std::string pattern = (fs::temp_directory_path() / "berth-bench-runtime-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return 1;
  const fs::path base = pattern;
  benchUnpack(base);
  benchWake(base);
  fs::remove_all(base);
  return 0;
}
