// The cron runner of one node: two threads of its own, joined in stop().
//
//  - The claim thread sleeps until the earliest next run (or at most a second, to see
//    schedules other nodes made), claims what is due in PostgreSQL (RunnerStore::claimDue:
//    each run goes to exactly one node), hands the runs to the HTTP thread, and writes the
//    finished runs back in batches.
//  - The HTTP thread makes the requests with libcurl's multi interface: GET <path> with
//    Host <project>.<apps_domain> on berthd's own listener, so a run passes through the edge
//    and the project gateway like any request (it wakes a stopped project and is logged). At
//    most `concurrency` run at once, `project_concurrency` per project (RunQueue), so a slow
//    project does not hold back the others; no request blocks the thread. A run is abandoned
//    after scheduler.run_timeout_seconds, a run still waiting for a slot by then too.
//
// Runs in flight when the node stops are dropped without a record.
#pragma once
#include <curl/curl.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "context.hpp"
#include "run_outcome.hpp"
#include "run_queue.hpp"
#include "runner_store.hpp"

namespace berth::scheduler {

class Runner {
 public:
  explicit Runner(const Context& context);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  void start();
  void stop();
  // A schedule may now be due sooner than the claim thread planned for.
  void wake();

 private:
  struct Active;  // a request in flight

  void claimLoop();
  void httpLoop();
  // Claims everything due now; returns when the claim thread should look again (wall ms).
  int64_t claimAll(RunnerStore& store);
  void flushFinished(RunnerStore& store);
  void startRun(const PendingRun& run);
  void finishRun(CURL* handle, CURLcode code);
  void addFinished(const PendingRun& run, int64_t started_at, int64_t ms,
                   const RunOutcome& outcome);
  int64_t pollMs() const;

  const Context& c_;
  CURLM* multi_ = nullptr;
  RunQueue queue_;                                             // HTTP thread only
  std::unordered_map<CURL*, std::unique_ptr<Active>> active_;  // HTTP thread only

  std::mutex mutex_;
  std::condition_variable claim_cv_;
  bool stop_claiming_ = false;
  bool stop_http_ = false;
  bool stop_claims_ = false;
  bool wake_claims_ = false;
  std::vector<PendingRun> inbox_;      // claim thread -> HTTP thread
  std::vector<FinishedRun> finished_;  // HTTP thread -> claim thread
  int64_t first_finished_ms_ = 0;      // when finished_ got its first run
  int64_t failures_logged_at_ = 0;

  std::thread claim_thread_;
  std::thread http_thread_;
};

}  // namespace berth::scheduler
