// bench/release_fetch: a typical Node release (an app whose dependency npm unpacks from a
// tarball into node_modules: 2,000 files, about 16 MB) built on node A, then served by node B
// (one PostgreSQL, one S3-compatible store: s3rver), which makes the release's folder from the
// packed build at its first request. Prints, per round and as medians, A's upload-to-live
// (unpack, npm install, pack, store) next to B's materialise time (fetch, SHA-256, unpack; from
// B's log line) and B's first answer (materialise plus the app's start): the ratio is what a
// second node pays for a release next to what building it cost.
// Usage: build/bench/bench_release_fetch [rounds, default 3]
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "projects/api_support.hpp"
#include "runtime/host_requests.hpp"
#include "runtime/tar_builder.hpp"
#include "support/release_upload.hpp"
#include "support/s3rver_process.hpp"

using namespace berth::testing;
using berth::runtime::testing::TarBuilder;
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

// npm's package tarball (package/...): 2,000 modules of JavaScript-like text, 8 KB each.
std::string dependencyTarball(int round) {
  std::mt19937 random(static_cast<unsigned>(round) + 7);
  TarBuilder tar;
  tar.file("package/package.json", R"({"name": "biglib", "version": "1.0.0", "main": "index.js"})");
  tar.file("package/index.js", "module.exports = 'biglib " + std::to_string(round) + "';\n");
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    while (text.size() < 8192)
      text += "function f" + std::to_string(random() % 100000) + "(a, b) { return a * " +
              std::to_string(random() % 1000) + " + b; }\n";
    tar.file("package/lib/m" + std::to_string(i / 100) + "/x" + std::to_string(i) + ".js", text);
  }
  return tar.finish();
}

std::string typicalRelease(int round) {
  nlohmann::json package = {{"name", "typical"},
                            {"version", "1.0.0"},
                            {"main", "server.js"},
                            {"dependencies", {{"biglib", "file:./deps/biglib-1.0.0.tgz"}}}};
  return TarBuilder()
      .file("package.json", package.dump())
      .file("server.js",
            "const lib = require('biglib');\n"
            "require('http').createServer((q, s) => s.end(lib + '\\n'))\n"
            "  .listen(Number(process.env.PORT), '127.0.0.1');\n")
      .file("deps/biglib-1.0.0.tgz", dependencyTarball(round))
      .finish();
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  S3rverProcess store;
  store.start();
  const std::string scratch = makeTempDir("bench-release-fetch");
  const std::string credentials = scratch + "/s3-credentials";
  std::ofstream(credentials) << "[default]\naws_access_key_id = " << S3rverProcess::kAccessKey
                             << "\naws_secret_access_key = " << S3rverProcess::kSecret << "\n";
  ::chmod(credentials.c_str(), 0600);
  BerthdOptions a;
  a.plugins = {"projects", "storage", "runtime"};
  a.extra_yaml =
      projects_api::secretsKeyYaml() +
      "  creation_burst: 100\nstorage:\n  backend: s3\n  s3_endpoint: " + store.endpoint() +
      "\n  s3_bucket: " + store.bucket() + "\n  s3_credentials_file: " + credentials +
      "\nruntime:\n  keep_releases: 1\n  start_timeout_seconds: 60\n";
  BerthdProcess nodeA(a);
  nodeA.start();
  BerthdOptions b = a;
  b.set = {"database.url=" + nodeA.databaseUrl()};
  BerthdProcess nodeB(b);
  nodeB.start();
  auto api = nodeA.api(projects_api::makeAccount(nodeA, "bench").token);

  std::vector<double> builds, materialised, first_answers, gnu_tar;
  std::string size_note;
  for (int round = 0; round < rounds; ++round) {
    auto created = api.post("/projects", {{"name", "typical" + std::to_string(round)}});
    if (created.status != 201) {
      std::fprintf(stderr, "create failed: %ld %s\n", created.status, created.body.c_str());
      return 1;
    }
    const std::string name = created.json()["name"];
    const std::string archive = typicalRelease(round);
    auto start = Clock::now();
    std::string id;
    try {
      id = deployLive(api, name, archive, std::chrono::minutes(5));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    const double build = msSince(start);

    start = Clock::now();
    auto first = runtime_api::onProjectHost(nodeB, name, "/");
    const double answer = msSince(start);
    if (first.status != 200) {
      std::fprintf(stderr, "B answered %ld: %s\n", first.status, first.body.c_str());
      return 1;
    }
    std::smatch m;
    const std::string out = nodeB.output();
    const std::regex line("release " + id +
                          " unpacked on this node from its packed build \\(([0-9]+) entries, "
                          "([0-9]+) bytes, ([0-9]+) ms: fetch ([0-9]+), check ([0-9]+), "
                          "unpack ([0-9]+)\\)");
    if (!std::regex_search(out, m, line)) {
      std::fprintf(stderr, "B did not log its unpack of %s\n", id.c_str());
      return 1;
    }
    const double unpack = std::stod(m[3].str());
    berth::core::Pool db(nodeA.databaseUrl(), 1, std::chrono::seconds(10));
    const std::string pack_size =
        projects_api::column(db,
                             "SELECT build_size::text FROM runtime.runtime_releases "
                             "WHERE id = $1",
                             {id})[0];
    // GNU tar on the same pack (B's local copy of it), for the unpack's share.
    const std::string object = projects_api::column(
        db, "SELECT object FROM storage.blobs WHERE space = 'builds' AND key = $1", {id})[0];
    const std::string copy =
        nodeB.dataDir() + "/blobs/cache/" + object.substr(0, object.find('/')) + "/" +
        object.substr(object.find('/') + 1, 2) + "/" + object.substr(object.find('/') + 1);
    const std::string into = scratch + "/tar" + std::to_string(round);
    fs::create_directories(into);
    start = Clock::now();
    const std::string tar = "tar --warning=no-unknown-keyword -xzf " + copy + " -C " + into;
    if (std::system(tar.c_str()) != 0) {
      std::fprintf(stderr, "%s failed\n", tar.c_str());
      return 1;
    }
    gnu_tar.push_back(msSince(start));
    size_note = m[1].str() + " entries, " + std::to_string(std::stoll(m[2].str()) / (1024 * 1024)) +
                " MB unpacked, pack " + std::to_string(std::stoll(pack_size) / 1024) +
                " KB; upload " + std::to_string(archive.size() / 1024) + " KB";
    std::printf(
        "round %d: A upload to live %.0f ms, B materialise %.0f ms (fetch %s, check %s, unpack "
        "%s; tar xzf of the pack %.0f), B first answer %.0f ms\n",
        round + 1, build, unpack, m[4].str().c_str(), m[5].str().c_str(), m[6].str().c_str(),
        gnu_tar.back(), answer);
    builds.push_back(build);
    materialised.push_back(unpack);
    first_answers.push_back(answer);
  }
  removeTree(scratch);
  const double build = median(builds), unpack = median(materialised),
               answer = median(first_answers), tar = median(gnu_tar);
  std::printf(
      "typical Node release (%s), median of %d: build on A (upload to live) %.0f ms, "
      "materialise on B %.0f ms (ratio %.2fx of the build; tar xzf of the pack %.0f ms), B's "
      "first answer (materialise + app start) %.0f ms\n",
      size_note.c_str(), rounds, build, unpack, unpack / build, tar, answer);
  return 0;
}
