// What the fault cases of tests/faults share on top of tests/support/fault_injection.hpp: a
// case's plan of kill points, berthd (a BerthdProcess) killed or stopped and started again on
// the same data_dir and database, a Node release made with tar and deployed, requests to a
// project's host, and the harness's checks waited for.
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
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "projects/api_support.hpp"
#include "support/berthd_process.hpp"
#include "support/fault_injection.hpp"
#include "support/http_client.hpp"
#include "support/release_upload.hpp"
#include "util/process.hpp"

namespace berth::testing::faults {

using Mode = FaultMode;

// A case's rounds and random kill points, drawn from the harness's seed (printed once) mixed
// with the case's name and mode.
class FaultPlan {
 public:
  FaultPlan(const std::string& case_name, Mode mode) : random_(case_name, mode) {}
  int rounds() const { return faultRounds(); }
  // A kill point: a delay in [0, max_ms] milliseconds after the operation began.
  std::chrono::milliseconds delay(int max_ms) {
    return random_.pointWithin(std::chrono::milliseconds(max_ms));
  }

 private:
  FaultRandom random_;
};

// Records one kill point in the tally: inconsistent when `wrong` (one finding a line) is not
// empty.
inline void recordPoint(FaultTally& tally, const std::string& wrong, const std::string& point) {
  Findings findings;
  if (!wrong.empty()) findings.add(wrong);
  tally.record(findings, point);
}

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

// Kill or stop berthd at this point: kill -9 and start again, or SIGSTOP for `stopped` (longer
// than the client's timeouts) and SIGCONT.
inline void strikeBerthd(BerthdProcess& server, Mode mode,
                         std::chrono::milliseconds stopped = stopDuration()) {
  if (mode == Mode::Kill) {
    killBerthd(server);
    restartBerthd(server);
  } else {
    stopProcessFor(server.pid(), stopped);
  }
}

inline HttpResult onHost(const BerthdProcess& server, const std::string& project,
                         const std::string& path, long timeout_ms = 10000) {
  return sendToHost(server.baseUrl(), project + ".localhost", "GET", path, {}, "", timeout_ms);
}

// Every GET route of the reference answers without a 5xx (the harness's checkRoutesAnswer)
// within `limit` (the edge and the pools may need a moment after a fault): empty when so, else
// what failed.
inline std::string routesAnswer(const BerthdProcess& server, const std::string& token,
                                const std::vector<std::string>& projects,
                                std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  std::string failed;
  projects_api::eventually(
      [&] {
        Findings findings;
        checkRoutesAnswer(server.api(token), projects, findings);
        failed = findings.ok() ? "" : findings.text();
        return findings.ok();
      },
      limit);
  return failed;
}

// No temporary, spool or staging file left under data_dir (the harness's leftoverFiles),
// waited for while the sweeps run: empty when none, else one line each.
inline std::string leftovers(const std::string& data_dir) {
  Findings findings;
  checkNoLeftoverFiles(data_dir, findings);
  return findings.ok() ? "" : findings.text();
}

}  // namespace berth::testing::faults
