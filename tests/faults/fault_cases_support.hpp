// What the fault cases of tests/faults share beyond tests/support/fault_injection.hpp: the
// seeded plan of kill points (seed printed, BERTH_FAULT_SEED to repeat one, BERTH_FAULT_ROUNDS
// rounds), the tally line, berthd killed or stopped and started again on the same data_dir and
// database, nginx's master found, a Node release made with tar, and "every route answers".
// Header-only: a tests/<part>/*.cpp file other than a *_test.cpp is not built.
#pragma once
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "projects/api_support.hpp"
#include "support/berthd_process.hpp"
#include "support/http_client.hpp"
#include "support/process_pause.hpp"
#include "util/process.hpp"

namespace berth::testing::faults {

enum class Mode { Kill, Stop };

inline const char* modeName(Mode mode) {
  return mode == Mode::Kill ? "kill" : "stop";
}

// Rounds and random kill points of one case. The seed is printed first, so that a failing run
// can be repeated with BERTH_FAULT_SEED=<seed>.
class FaultPlan {
 public:
  explicit FaultPlan(const std::string& case_name) : case_(case_name) {
    const char* seed = std::getenv("BERTH_FAULT_SEED");
    seed_ = seed && *seed ? std::strtoull(seed, nullptr, 10) : std::random_device{}();
    const char* rounds = std::getenv("BERTH_FAULT_ROUNDS");
    rounds_ = rounds && *rounds ? std::max(1, std::atoi(rounds)) : 3;
    rng_.seed(seed_);
    std::printf("fault-seed: case=%s seed=%llu rounds=%d\n", case_.c_str(),
                static_cast<unsigned long long>(seed_), rounds_);
    std::fflush(stdout);
  }
  int rounds() const { return rounds_; }
  uint64_t seed() const { return seed_; }
  // A kill point: a delay in [0, max_ms] milliseconds after the operation began.
  std::chrono::milliseconds delay(int max_ms) {
    return std::chrono::milliseconds(std::uniform_int_distribution<int>(0, max_ms)(rng_));
  }
  int pick(int below) { return std::uniform_int_distribution<int>(0, below - 1)(rng_); }

 private:
  std::string case_;
  uint64_t seed_ = 0;
  int rounds_ = 3;
  std::mt19937_64 rng_;
};

// Kill points tried and inconsistencies found, printed as the shared harness prints them.
struct Tally {
  std::string name;
  Mode mode;
  uint64_t seed;
  int tried = 0, inconsistent = 0;
  void print() const {
    std::printf("fault-summary: case=%s mode=%s tried=%d inconsistent=%d seed=%llu\n", name.c_str(),
                modeName(mode), tried, inconsistent, static_cast<unsigned long long>(seed));
    std::fflush(stdout);
  }
};

// The folder BerthdProcess keeps its configuration and output in.
inline std::string serverRoot(const BerthdProcess& server) {
  return std::filesystem::path(server.configFile()).parent_path().string();
}

// SIGKILL, and wait until it is reaped (its edge and apps go with it: parent-death signals).
inline void killBerthd(BerthdProcess& server) {
  ::kill(server.pid(), SIGKILL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (server.running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (server.running()) throw std::runtime_error("berthd survived SIGKILL");
}

// Starts berthd again on the same configuration, data_dir and database. Its earlier output is
// kept beside (berthd.out.<n>): start() waits for "berthd ready on" in a fresh one.
inline void restartBerthd(BerthdProcess& server) {
  static int generation = 0;
  const std::string out = serverRoot(server) + "/berthd.out";
  std::error_code ignored;
  std::filesystem::rename(out, out + "." + std::to_string(++generation), ignored);
  server.start();
}

// Stops a process (every thread, SIGSTOP) for `how_long`, then continues it.
inline void pauseFor(pid_t pid, std::chrono::milliseconds how_long) {
  ProcessPause pause(pid);
  std::this_thread::sleep_for(how_long);
}

// Kill or stop berthd at this point: kill -9 and start again, or SIGSTOP for `stopped` (longer
// than the client's timeouts) and SIGCONT.
inline void strikeBerthd(BerthdProcess& server, Mode mode,
                         std::chrono::milliseconds stopped = std::chrono::seconds(4)) {
  if (mode == Mode::Kill) {
    killBerthd(server);
    restartBerthd(server);
  } else {
    pauseFor(server.pid(), stopped);
  }
}

// The pid of berthd's nginx master (0 when there is none).
inline pid_t nginxMaster(const BerthdProcess& server) {
  std::ifstream in(server.dataDir() + "/edge/nginx.pid");
  pid_t pid = 0;
  return in >> pid ? pid : 0;
}

// A gzip tar of a Node app (package.json + server.js), as an upload's body.
inline std::string nodeRelease(const std::string& server_js) {
  const std::string dir = makeTempDir("fault-release");
  std::ofstream(dir + "/package.json") << R"({"name": "fault-case", "main": "server.js"})";
  std::ofstream(dir + "/server.js") << server_js;
  const std::string archive = dir + ".tgz";
  auto r = core::runCommand({"tar", "czf", archive, "-C", dir, "."});
  if (!r.status.ok()) throw std::runtime_error("tar: " + r.output);
  std::string body = readFile(archive);
  removeTree(dir);
  std::filesystem::remove(archive);
  return body;
}

// Uploads a release and waits until it is live; returns its id.
inline std::string deployLive(const ApiClient& api, const std::string& project,
                              const std::string& archive) {
  auto r = api.raw("POST", "/projects/" + project + "/deploys", archive,
                   {"Content-Type: application/gzip"});
  if (r.status != 202) throw std::runtime_error("upload: " + std::to_string(r.status) + r.body);
  const std::string id = r.json().at("id").get<std::string>();
  nlohmann::json release;
  projects_api::eventually(
      [&] {
        release = api.get("/projects/" + project + "/deploys/" + id).json();
        return release.value("status", "") != "building";
      },
      std::chrono::seconds(90));
  if (release.value("status", "") != "live")
    throw std::runtime_error("the release is not live: " + release.dump());
  return id;
}

inline HttpResult onHost(const BerthdProcess& server, const std::string& project,
                         const std::string& path, long timeout_ms = 10000) {
  return sendToHost(server.baseUrl(), project + ".localhost", "GET", path, {}, "", timeout_ms);
}

// Every read route of the API answers, and none with a 5xx: empty when so, else what failed.
inline std::string routesThatFail(const BerthdProcess& server, const std::string& token,
                                  const std::vector<std::string>& projects) {
  std::vector<std::string> paths = {"/regions", "/projects",  "/projects/suggest",
                                    "/deploys", "/schedules", "/app-templates"};
  for (const auto& p : projects)
    for (const char* tail : {"", "/secrets", "/deploys", "/schedules", "/logs?limit=5", "/domains"})
      paths.push_back("/projects/" + p + tail);
  ApiClient api = server.api(token);
  std::string failed;
  for (const auto& path : paths) {
    auto r = api.get(path);
    if (r.status == 0 || r.status >= 500)
      failed += "GET " + path + ": " + std::to_string(r.status) + " " + r.body + r.error + "\n";
  }
  return failed;
}

// Every route answers within `limit` (the edge and the pool may need a moment after a fault).
inline std::string routesAnswer(const BerthdProcess& server, const std::string& token,
                                const std::vector<std::string>& projects,
                                std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  std::string failed;
  projects_api::eventually(
      [&] {
        failed = routesThatFail(server, token, projects);
        return failed.empty();
      },
      limit);
  return failed;
}

}  // namespace berth::testing::faults
