#include "project_routing.hpp"

namespace berth::runtime {

Project ProjectRouting::byHost(const std::string& host) {
  return hosts_.byHost(berth::ProjectsDirectory(*context_.services), host);
}

std::string ProjectRouting::nameOf(const std::string& project_id) {
  std::optional<Project> known = hosts_.lastKnown(project_id);
  return known ? known->name : project_id;
}

std::shared_ptr<const ReleaseRecord> ProjectRouting::live(const std::string& project_id) {
  std::uint64_t generation;
  {
    std::lock_guard lock(mutex_);
    auto found = live_.find(project_id);
    if (found != live_.end()) return found->second;
    generation = live_generation_;
  }
  std::optional<ReleaseRecord> record = context_.releases->live(project_id);
  std::shared_ptr<const ReleaseRecord> release =
      record ? std::make_shared<const ReleaseRecord>(std::move(*record)) : nullptr;
  std::lock_guard lock(mutex_);
  // A change noticed while we read may not be in what we read: answer it, keep nothing.
  if (generation != live_generation_) return release;
  if (live_.size() >= kMaxEntries) live_.clear();
  live_[project_id] = release;
  return release;
}

void ProjectRouting::forgetLive(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  live_.erase(project_id);
  ++live_generation_;
}

void ProjectRouting::forgetProject(const std::string& project_id) {
  {
    std::lock_guard lock(mutex_);
    live_.erase(project_id);
    ++live_generation_;
  }
  hosts_.forgetProject(project_id);
}

void ProjectRouting::forgetHost(const std::string& host) {
  hosts_.forgetHost(host);
}

}  // namespace berth::runtime
