// Which project a request on a project host is for, and what that project serves now: the
// host is asked of projects.directory.v1 (by_host) and remembered for a few seconds (every
// request needs it, a host rarely changes); the live release is read from runtime_releases
// once and remembered until Context::liveChanged or a deletion drops it.
#pragma once
#include <berth/plugin.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "context.hpp"

namespace berth::runtime {

struct HostedProject {
  std::string id;
  std::string name;
  std::string host;  // <name>.<apps_domain>: the project's own host
  bool cache_enabled = true;
  std::uint32_t cache_ttl = 60;
};

HostedProject hostedProjectFrom(const nlohmann::json& summary);  // a directory summary

class ProjectRouting {
 public:
  static constexpr std::chrono::seconds kHostLifetime{5};
  static constexpr std::size_t kMaxEntries = 10000;

  // Reads context.services and context.releases at each call (they are set in start()).
  explicit ProjectRouting(const Context& context) : context_(context) {}

  // The project at `host`. @throw berth::Error 404 "no project at <host>" from the directory.
  HostedProject byHost(const std::string& host);
  // Without asking the directory: the project at `host` if it was looked up lately.
  std::optional<HostedProject> rememberedHost(const std::string& host);

  // The project's name if a host of it was looked up lately, else its id (for log lines).
  std::string nameOf(const std::string& project_id);

  // The project's live release; null when it has none.
  std::shared_ptr<const ReleaseRecord> live(const std::string& project_id);

  void forgetLive(const std::string& project_id);     // a live release changed
  void forgetProject(const std::string& project_id);  // deleted: its hosts and release
  void forgetHosts();                        // settings changed somewhere: ask the directory again
  void forgetHost(const std::string& host);  // a custom domain was verified or removed

 private:
  struct HostEntry {
    HostedProject project;
    std::chrono::steady_clock::time_point expires;
  };
  const Context& context_;
  std::mutex mutex_;
  std::unordered_map<std::string, HostEntry> hosts_;
  // project id -> its live release (null: none); absent: not read yet.
  std::unordered_map<std::string, std::shared_ptr<const ReleaseRecord>> live_;
  std::uint64_t live_generation_ = 0;  // bumped by every forget: a read racing one is not kept
};

}  // namespace berth::runtime
