// What the edge rules of the gateway (EdgeApps, EdgeFiles) share: each keeps a set of hosts per
// project, and drops the hosts that left their project.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace berth::runtime {

using HostOfProject = std::pair<std::string, std::string>;  // (host, project id)
using HostBelongs = std::function<bool(const std::string& host, const std::string& project_id)>;

// Every (host, project id) of a map from project id to an entry with `hosts`.
template <class ByProject>
std::vector<HostOfProject> hostsOf(const ByProject& by_project) {
  std::vector<HostOfProject> out;
  for (const auto& [id, entry] : by_project)
    for (const auto& host : entry.hosts) out.emplace_back(host, id);
  return out;
}

// The pairs whose host no longer belongs to its project (`belongs` may ask the directory:
// call it without holding a lock).
inline std::vector<HostOfProject> hostsGone(const std::vector<HostOfProject>& hosts,
                                            const HostBelongs& belongs) {
  std::vector<HostOfProject> gone;
  for (const auto& [host, id] : hosts)
    if (!belongs(host, id)) gone.emplace_back(host, id);
  return gone;
}

}  // namespace berth::runtime
