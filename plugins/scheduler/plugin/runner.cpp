#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <unordered_map>

#include "run_outcome.hpp"

namespace berth::scheduler {

namespace {

constexpr int kClaimBatch = 500;
constexpr int kMaxClaimRounds = 200;  // 100,000 runs in one pass; the next pass takes the rest
constexpr size_t kFlushBatch = 500;   // finished runs written in one transaction
constexpr int64_t kFlushMs = 200;     // at the latest this long after a run finished
constexpr int64_t kRetryMs = 20;      // when a due row was locked by another node's claim
constexpr int64_t kLogEveryMs = 60000;

size_t discardBody(char*, size_t size, size_t count, void*) {
  return size * count;
}

int64_t realNow() {
  return SchedulerClock::realNowMs();
}

}  // namespace

struct Runner::Active {
  PendingRun run;
  int64_t started_real_ms = 0;
  int64_t started_at = 0;  // scheduler seconds
  curl_slist* headers = nullptr;
  char error[CURL_ERROR_SIZE] = {};
};

Runner::Runner(const Context& context)
    : c_(context),
      queue_(static_cast<size_t>(context.settings.concurrency),
             static_cast<size_t>(context.settings.project_concurrency)) {}

Runner::~Runner() {
  stop();
}

void Runner::start() {
  multi_ = curl_multi_init();
  if (multi_ == nullptr) throw berth::Error("scheduler: libcurl could not start");
  http_thread_ = std::thread([this] { httpLoop(); });
  claim_thread_ = std::thread([this] { claimLoop(); });
}

void Runner::stop() {
  // No new claims first (a run claimed now could not be made), then the requests in flight are
  // dropped, then the claim thread writes what finished and ends.
  {
    std::lock_guard lock(mutex_);
    stop_claiming_ = true;
  }
  claim_cv_.notify_all();
  {
    std::lock_guard lock(mutex_);
    stop_http_ = true;
  }
  if (multi_ != nullptr) curl_multi_wakeup(multi_);
  if (http_thread_.joinable()) http_thread_.join();
  {
    std::lock_guard lock(mutex_);
    stop_claims_ = true;
  }
  claim_cv_.notify_all();
  if (claim_thread_.joinable()) claim_thread_.join();
  if (multi_ != nullptr) {
    curl_multi_cleanup(multi_);
    multi_ = nullptr;
  }
}

void Runner::wake() {
  {
    std::lock_guard lock(mutex_);
    wake_claims_ = true;
  }
  claim_cv_.notify_all();
}

int64_t Runner::pollMs() const {
  return std::clamp<int64_t>(c_.settings.clock.minuteMs() / 4, 10, 1000);
}

// ---- the claim thread ------------------------------------------------------------------------

void Runner::claimLoop() {
  RunnerStore store(c_.db());
  int64_t next_claim = 0;
  std::unique_lock lock(mutex_);
  while (!stop_claims_) {
    int64_t now = realNow();
    bool claim_now = !stop_claiming_ && (wake_claims_ || now >= next_claim);
    bool flush_now = !finished_.empty() &&
                     (finished_.size() >= kFlushBatch || now - first_finished_ms_ >= kFlushMs);
    if (!claim_now && !flush_now) {
      int64_t until = stop_claiming_ ? now + 1000 : next_claim;
      if (!finished_.empty()) until = std::min(until, first_finished_ms_ + kFlushMs);
      claim_cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(1, until - now)));
      continue;
    }
    wake_claims_ = false;
    lock.unlock();
    if (claim_now) next_claim = claimAll(store);
    flushFinished(store);
    lock.lock();
  }
  lock.unlock();
  flushFinished(store);
}

int64_t Runner::claimAll(RunnerStore& store) {
  const SchedulerClock& clock = c_.settings.clock;
  try {
    for (int round = 0; round < kMaxClaimRounds; ++round) {
      size_t seen = 0;
      std::vector<ClaimedRun> runs = store.claimDue(clock.nowSeconds(), kClaimBatch, seen);
      if (!runs.empty()) {
        int64_t now = realNow();
        {
          std::lock_guard lock(mutex_);
          for (auto& run : runs)
            inbox_.push_back(PendingRun{std::move(run.schedule_id), std::move(run.project),
                                        std::move(run.path), run.due_at, now});
        }
        curl_multi_wakeup(multi_);
      }
      if (seen < static_cast<size_t>(kClaimBatch)) break;
    }
    int64_t now = realNow();
    int64_t next = now + pollMs();
    if (auto earliest = store.earliestNextRun())
      next = std::min(next, std::max(now + kRetryMs, clock.toRealMs(*earliest * 1000)));
    return next;
  } catch (const std::exception& e) {
    int64_t now = realNow();
    if (now - failures_logged_at_ >= kLogEveryMs) {
      failures_logged_at_ = now;
      c_.logger().warn(std::string("could not claim due schedule runs: ") + e.what());
    }
    return now + pollMs();
  }
}

void Runner::flushFinished(RunnerStore& store) {
  std::vector<FinishedRun> batch;
  {
    std::lock_guard lock(mutex_);
    batch.swap(finished_);
  }
  if (batch.empty()) return;
  for (int attempt = 1;; ++attempt) {
    try {
      store.record(batch);
      return;
    } catch (const std::exception& e) {
      if (attempt < 3) continue;  // a deadlock or a lost connection: try again
      c_.logger().warn("could not record " + std::to_string(batch.size()) +
                       " schedule runs: " + e.what());
      return;
    }
  }
}

// ---- the HTTP thread -------------------------------------------------------------------------

void Runner::httpLoop() {
  while (true) {
    std::vector<PendingRun> incoming;
    {
      std::lock_guard lock(mutex_);
      if (stop_http_) break;
      incoming.swap(inbox_);
    }
    for (auto& run : incoming) queue_.push(std::move(run));

    int64_t now = realNow();
    for (const auto& run : queue_.expire(now, c_.settings.run_timeout_ms)) {
      c_.logger()
          .withProject(run.project)
          .warn("schedule " + run.schedule_id +
                " abandoned: it waited for a free slot until "
                "the run time limit");
      addFinished(run, c_.settings.clock.nowSeconds(), now - run.queued_real_ms,
                  abandonedOutcome());
    }

    int running = 0;
    curl_multi_perform(multi_, &running);
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &left))
      if (message->msg == CURLMSG_DONE) finishRun(message->easy_handle, message->data.result);

    while (auto run = queue_.startNext()) startRun(*run);

    // Wake at the latest once a second (100 ms while runs wait, to give up on time); a new
    // claim or stop() wakes the poll at once.
    int timeout = queue_.waiting() > 0 ? 100 : 1000;
    curl_multi_poll(multi_, nullptr, 0, timeout, nullptr);
  }
  for (auto& [handle, run] : active_) {
    curl_multi_remove_handle(multi_, handle);
    curl_easy_cleanup(handle);
    curl_slist_free_all(run->headers);
  }
  active_.clear();
}

void Runner::startRun(const PendingRun& run) {
  auto state = std::make_unique<Active>();
  state->run = run;
  state->started_real_ms = realNow();
  state->started_at = c_.settings.clock.nowSeconds();
  CURL* handle = curl_easy_init();
  if (handle == nullptr) {
    addFinished(run, state->started_at, 0, connectionOutcome("could not start a request"));
    queue_.finished(run.project);
    return;
  }
  const std::string url = c_.settings.edge.baseUrl() + run.path;
  state->headers = curl_slist_append(state->headers, ("Host: " + c_.hostOf(run.project)).c_str());
  state->headers =
      curl_slist_append(state->headers, ("x-berth-schedule: " + run.schedule_id).c_str());
  // Without berthd's node proof the gateway takes x-berth-schedule for an ordinary header.
  const std::string node_proof = c_.services->coreSetting("server.node_proof").value_or("");
  state->headers = curl_slist_append(state->headers, ("x-berth-node-proof: " + node_proof).c_str());
  const long timeout = static_cast<long>(c_.settings.run_timeout_ms);
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, state->headers);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "berth-scheduler");
  curl_easy_setopt(handle, CURLOPT_PATH_AS_IS, 1L);  // the path as the user wrote it
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout, 10000L));
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &discardBody);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, state->error);
  curl_easy_setopt(handle, CURLOPT_PRIVATE, state.get());
  if (curl_multi_add_handle(multi_, handle) != CURLM_OK) {
    curl_easy_cleanup(handle);
    curl_slist_free_all(state->headers);
    addFinished(run, state->started_at, 0, connectionOutcome("could not start a request"));
    queue_.finished(run.project);
    return;
  }
  active_.emplace(handle, std::move(state));
}

void Runner::finishRun(CURL* handle, CURLcode code) {
  auto it = active_.find(handle);
  if (it == active_.end()) return;
  Active& state = *it->second;
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  const int64_t ms = realNow() - state.started_real_ms;
  RunOutcome outcome;
  if (code == CURLE_OK) {
    outcome = answeredOutcome(static_cast<int>(status));
  } else if (code == CURLE_OPERATION_TIMEDOUT && ms + 100 >= c_.settings.run_timeout_ms) {
    outcome =
        abandonedOutcome(status > 0 ? std::optional<int>(static_cast<int>(status)) : std::nullopt);
  } else {
    outcome = connectionOutcome(state.error[0] != '\0' ? std::string(state.error)
                                                       : std::string(curl_easy_strerror(code)));
    if (status > 0) outcome.status = static_cast<int>(status);
  }
  berth::Logger log = c_.logger().withProject(state.run.project);
  std::string what = "schedule " + state.run.schedule_id + " GET " + state.run.path;
  if (outcome.error)
    log.info(what + " failed after " + std::to_string(ms) + " ms: " + *outcome.error);
  else
    log.debug(what + " answered " + std::to_string(status) + " in " + std::to_string(ms) + " ms");
  addFinished(state.run, state.started_at, ms, outcome);

  curl_multi_remove_handle(multi_, handle);
  curl_easy_cleanup(handle);
  curl_slist_free_all(state.headers);
  queue_.finished(state.run.project);
  active_.erase(it);
}

void Runner::addFinished(const PendingRun& run, int64_t started_at, int64_t ms,
                         const RunOutcome& outcome) {
  bool notify = false;
  {
    std::lock_guard lock(mutex_);
    if (finished_.empty()) first_finished_ms_ = realNow();
    finished_.push_back(
        FinishedRun{run.schedule_id, run.due_at, started_at, outcome.status, ms, outcome.error});
    notify = finished_.size() == 1 || finished_.size() >= kFlushBatch;
  }
  if (notify) claim_cv_.notify_all();
}

}  // namespace berth::scheduler
