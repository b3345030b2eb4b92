#include "project_routing.hpp"

namespace berth::runtime {

HostedProject hostedProjectFrom(const nlohmann::json& summary) {
  HostedProject project;
  project.id = summary.at("id").get<std::string>();
  project.name = summary.at("name").get<std::string>();
  project.host = summary.value("host", "");
  project.cache_enabled = summary.value("cache_enabled", true);
  const std::int64_t ttl = summary.value("cache_ttl", std::int64_t{60});
  project.cache_ttl = static_cast<std::uint32_t>(std::max<std::int64_t>(0, ttl));
  return project;
}

HostedProject ProjectRouting::byHost(const std::string& host) {
  if (auto known = rememberedHost(host)) return *known;
  nlohmann::json summary =
      context_.services->call("projects.directory.v1", "by_host", {{"host", host}});
  HostedProject project = hostedProjectFrom(summary);
  std::lock_guard lock(mutex_);
  if (hosts_.size() >= kMaxEntries) hosts_.clear();  // a flood of hosts: start over
  hosts_[host] = HostEntry{project, std::chrono::steady_clock::now() + kHostLifetime};
  return project;
}

std::optional<HostedProject> ProjectRouting::rememberedHost(const std::string& host) {
  std::lock_guard lock(mutex_);
  auto found = hosts_.find(host);
  if (found == hosts_.end() || found->second.expires <= std::chrono::steady_clock::now())
    return std::nullopt;
  return found->second.project;
}

std::string ProjectRouting::nameOf(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  for (const auto& [host, entry] : hosts_)
    if (entry.project.id == project_id) return entry.project.name;
  return project_id;
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
  std::lock_guard lock(mutex_);
  live_.erase(project_id);
  ++live_generation_;
  for (auto it = hosts_.begin(); it != hosts_.end();)
    it = it->second.project.id == project_id ? hosts_.erase(it) : std::next(it);
}

void ProjectRouting::forgetHost(const std::string& host) {
  std::lock_guard lock(mutex_);
  hosts_.erase(host);
}

void ProjectRouting::forgetHosts() {
  std::lock_guard lock(mutex_);
  hosts_.clear();
}

}  // namespace berth::runtime
