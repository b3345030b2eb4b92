#include "build_worker.hpp"

namespace berth::runtime {

bool BuildWorker::post(BuildJob job) {
  return pool_.post(Queued{&run_, std::move(job)}) == common::WorkerPool::Posted::Queued;
}

std::vector<BuildJob> BuildWorker::stop() {
  std::vector<BuildJob> never_started;
  for (auto& task : pool_.stop(common::WorkerPool::Leftovers::Drop))
    if (auto* queued = task.target<Queued>()) never_started.push_back(std::move(queued->job));
  return never_started;
}

}  // namespace berth::runtime
