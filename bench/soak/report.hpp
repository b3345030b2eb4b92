// The soak's printout: requests and errors per route family with p50/p99, the wakes and
// schedule runs, each sample's first minute after warm-up next to its last minute as a ratio,
// the answers nobody expected (request and body), and the PASS/FAIL line.
#pragma once
#include <string>
#include <vector>

#include "soak/recorder.hpp"
#include "soak/sampler.hpp"

namespace berth::soak {

struct RunFacts {
  double seconds = 0, warmup_s = 0, window_s = 0;
  int clients = 0, think_ms = 0;
  long wakes = 0, wakes_from_stopped = 0;
  std::vector<std::string> schedule_runs;   // one line per permanent schedule
  long failed_schedule_runs = 0;            // runs answered 5xx or not at all
  std::vector<std::string> connections;     // the cluster's connections at the end
  std::vector<std::string> duplicate_apps;  // projects with two app processes at the end
};

// Prints everything; returns true when the goals were met (no unprovoked 5xx or missing
// answer, the gated samples under 10% growth).
bool printReport(const RunFacts& facts, const Recorder& recorder,
                 const std::vector<Sample>& samples);

}  // namespace berth::soak
