// Which project a project host (<name>.<apps_domain> or a verified custom domain) belongs to,
// asked of projects.directory.v1 (by_host) and remembered for a few seconds: every request
// for /_files/ needs it, and a project's host rarely changes. A project being deleted clears
// the memory at once on this node; other nodes notice within the lifetime.
#pragma once
#include <berth/plugin.hpp>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace berth::storage {

struct HostedProject {
  std::string id;
  std::string name;
};

class ProjectHosts {
 public:
  static constexpr std::chrono::seconds kLifetime{5};
  static constexpr size_t kMaxEntries = 10000;

  // The project at `host`. @throw berth::Error 404 from the directory for an unknown host.
  HostedProject find(const berth::Services& services, const std::string& host);
  void forgetAll();

 private:
  struct Entry {
    HostedProject project;
    std::chrono::steady_clock::time_point expires;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace berth::storage
