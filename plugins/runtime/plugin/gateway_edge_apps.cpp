#include "gateway_edge_apps.hpp"

#include <algorithm>

namespace berth::runtime {

std::string edgeHostName(std::string host) {
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!host.empty() && host.back() == '.') host.pop_back();
  return host;
}

void EdgeApps::ready(const std::string& project_id, const std::vector<std::string>& hosts,
                     std::uint16_t port) {
  if (port == 0) return;
  {
    std::lock_guard lock(mutex_);
    AppRoute& route = projects_[project_id];
    bool changed = route.port != port || route.paused;
    route.port = port;
    route.paused = false;
    for (const auto& raw : hosts) {
      const std::string host = edgeHostName(raw);
      if (host.empty() || !route.hosts.insert(host).second) continue;
      changed = true;
      // A host that moved here from another project is this one's now.
      for (auto& [id, other] : projects_)
        if (id != project_id) other.hosts.erase(host);
    }
    if (!changed) return;  // the usual case: every request of a running app lands here
    std::erase_if(projects_, [](const auto& entry) { return entry.second.hosts.empty(); });
  }
  push();
}

bool EdgeApps::remove(const std::string& project_id) {
  {
    std::lock_guard lock(mutex_);
    if (projects_.erase(project_id) == 0) return false;
  }
  push();
  return true;
}

bool EdgeApps::pause(const std::string& project_id) {
  {
    std::lock_guard lock(mutex_);
    auto found = projects_.find(project_id);
    if (found == projects_.end() || found->second.paused) return false;
    found->second.paused = true;
  }
  push();
  return true;
}

void EdgeApps::resume(const std::string& project_id, std::uint16_t port) {
  {
    std::lock_guard lock(mutex_);
    auto found = projects_.find(project_id);
    if (found == projects_.end() || port == 0) return;
    found->second.paused = false;
    found->second.port = port;
  }
  push();
}

std::set<std::string> EdgeApps::published() const {
  std::set<std::string> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, route] : projects_)
    if (!route.paused) out.insert(id);
  return out;
}

void EdgeApps::follow(
    const std::function<std::uint16_t(const std::string& project_id)>& running_port) {
  std::map<std::string, std::uint16_t> ports;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, route] : projects_) ports[id] = route.port;
  }
  for (auto& [id, port] : ports) port = running_port(id);  // outside the lock
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, port] : ports) {
      auto found = projects_.find(id);
      if (found == projects_.end() || found->second.port == port) continue;
      if (port == 0)
        projects_.erase(found);
      else
        found->second.port = port;
      changed = true;
    }
  }
  if (changed) push();
}

void EdgeApps::keepHosts(const HostBelongs& belongs) {
  const std::vector<HostOfProject> gone = hostsGone(hosts(), belongs);  // outside the lock
  if (gone.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [host, id] : gone) {
      auto found = projects_.find(id);
      if (found == projects_.end()) continue;
      found->second.hosts.erase(host);
      if (found->second.hosts.empty()) projects_.erase(found);
    }
  }
  push();
}

std::vector<HostOfProject> EdgeApps::hosts() const {
  std::lock_guard lock(mutex_);
  return hostsOf(projects_);
}

std::vector<berth::EdgeAppRule> EdgeApps::rules() const {
  std::map<std::string, int> by_host;  // sorted, one rule per host
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, route] : projects_)
      if (!route.paused)
        for (const auto& host : route.hosts) by_host[host] = route.port;
  }
  std::vector<berth::EdgeAppRule> out;
  for (const auto& [host, port] : by_host) out.push_back(berth::EdgeAppRule{host, port});
  return out;
}

void EdgeApps::push() {
  std::lock_guard lock(push_mutex_);
  std::vector<berth::EdgeAppRule> now = rules();
  auto same = [](const berth::EdgeAppRule& a, const berth::EdgeAppRule& b) {
    return a.host == b.host && a.port == b.port;
  };
  if (pushed_once_ && std::equal(now.begin(), now.end(), pushed_.begin(), pushed_.end(), same))
    return;
  publish_(now);
  pushed_ = std::move(now);
  pushed_once_ = true;
}

}  // namespace berth::runtime
