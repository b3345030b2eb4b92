#include "run_queue.hpp"

#include <algorithm>

namespace berth::scheduler {

RunQueue::RunQueue(size_t max_running, size_t max_running_per_project)
    : max_running_(std::max<size_t>(1, max_running)),
      max_per_project_(std::max<size_t>(1, max_running_per_project)) {}

void RunQueue::markReady(const std::string& project, Lane& lane) {
  if (lane.ready || lane.waiting.empty() || lane.running >= max_per_project_) return;
  lane.ready = true;
  ready_.push_back(project);
}

void RunQueue::dropIfIdle(const std::string& project) {
  auto it = lanes_.find(project);
  if (it != lanes_.end() && it->second.waiting.empty() && it->second.running == 0 &&
      !it->second.ready)
    lanes_.erase(it);
}

void RunQueue::push(PendingRun run) {
  std::string project = run.project;
  Lane& lane = lanes_[project];
  lane.waiting.push_back(std::move(run));
  ++waiting_;
  markReady(project, lane);
}

std::optional<PendingRun> RunQueue::startNext() {
  while (running_ < max_running_ && !ready_.empty()) {
    std::string project = std::move(ready_.front());
    ready_.pop_front();
    auto it = lanes_.find(project);
    if (it == lanes_.end()) continue;
    Lane& lane = it->second;
    lane.ready = false;
    if (lane.waiting.empty() || lane.running >= max_per_project_) {
      dropIfIdle(project);  // expired meanwhile: a stale entry
      continue;
    }
    PendingRun run = std::move(lane.waiting.front());
    lane.waiting.pop_front();
    --waiting_;
    ++lane.running;
    ++running_;
    markReady(project, lane);  // to the back: the other projects go first
    return run;
  }
  return std::nullopt;
}

void RunQueue::finished(const std::string& project) {
  auto it = lanes_.find(project);
  if (it == lanes_.end() || it->second.running == 0) return;
  --it->second.running;
  --running_;
  markReady(project, it->second);
  dropIfIdle(project);
}

std::vector<PendingRun> RunQueue::expire(int64_t now_real_ms, int64_t limit_ms) {
  std::vector<PendingRun> expired;
  std::vector<std::string> emptied;
  for (auto& [project, lane] : lanes_) {
    while (!lane.waiting.empty() && now_real_ms - lane.waiting.front().queued_real_ms >= limit_ms) {
      expired.push_back(std::move(lane.waiting.front()));
      lane.waiting.pop_front();
      --waiting_;
    }
    if (lane.waiting.empty() && lane.running == 0 && !lane.ready) emptied.push_back(project);
  }
  for (const auto& project : emptied) lanes_.erase(project);
  return expired;
}

}  // namespace berth::scheduler
