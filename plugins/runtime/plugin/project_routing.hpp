// Which project a request on a project host is for, and what that project serves now: the
// host is asked of projects.directory.v1 (by_host) and kept in a berth::ProjectHostCache (every
// request needs it, a host rarely changes; see <berth/services/project_host_cache.hpp> for how
// long and what drops it); the live release is read from runtime_releases once and remembered
// until Context::liveChanged or a deletion drops it.
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/project_host_cache.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "context.hpp"

namespace berth::runtime {

// A project as the directory describes it (id, name, own host, cache_enabled, cache_ttl...).
using Project = berth::projects_directory::Project;

class ProjectRouting {
 public:
  static constexpr std::size_t kMaxEntries = 10000;

  // Reads context.services and context.releases at each call (they are set in start()).
  explicit ProjectRouting(const Context& context) : context_(context) {}

  // The project at `host`. @throw berth::Error 404 "no project at <host>" from the directory.
  Project byHost(const std::string& host);
  // Without asking the directory: the project at `host` if it was looked up lately.
  std::optional<Project> rememberedHost(const std::string& host) { return hosts_.kept(host); }

  // The project's name if a host of it was looked up, else its id (for log lines).
  std::string nameOf(const std::string& project_id);

  // The project's live release; null when it has none.
  std::shared_ptr<const ReleaseRecord> live(const std::string& project_id);

  void forgetLive(const std::string& project_id);     // a live release changed
  void forgetProject(const std::string& project_id);  // deleted or changed: its hosts, release
  void forgetHost(const std::string& host);           // a custom domain was verified or removed

 private:
  const Context& context_;
  berth::ProjectHostCache hosts_;
  std::mutex mutex_;
  // project id -> its live release (null: none); absent: not read yet.
  std::unordered_map<std::string, std::shared_ptr<const ReleaseRecord>> live_;
  std::uint64_t live_generation_ = 0;  // bumped by every forget: a read racing one is not kept
};

}  // namespace berth::runtime
