#include "project_hosts.hpp"

namespace berth::storage {

HostedProject ProjectHosts::find(const berth::Services& services, const std::string& host) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    auto found = entries_.find(host);
    if (found != entries_.end() && found->second.expires > now) return found->second.project;
  }
  nlohmann::json summary = services.call("projects.directory.v1", "by_host", {{"host", host}});
  HostedProject project{summary.at("id").get<std::string>(), summary.at("name").get<std::string>()};
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxEntries) entries_.clear();  // a flood of hosts: start over
  entries_[host] = Entry{project, now + kLifetime};
  return project;
}

void ProjectHosts::forgetAll() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

}  // namespace berth::storage
