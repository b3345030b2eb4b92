// What every part of the runtime plugin shares once it has started: its configuration, the
// release table, the apps running on this node, the log buffer, and the one notice that ties
// the parts together (a project's live release changed).
#pragma once
#include <berth/plugin.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "log_store.hpp"
#include "project_apps.hpp"
#include "project_identity.hpp"
#include "release_store.hpp"
#include "sandbox.hpp"

namespace berth::runtime {

// The release archive's limit (docs/openapi.yaml, POST /projects/{name}/deploys: 256 MB): the
// edge refuses larger uploads (413).
inline constexpr std::uint64_t kMaxArchiveBytes = 256ull * 1024 * 1024;

// The plugin's section of berth.yaml (runtime.*), read once at start.
struct RuntimeConfig {
  std::chrono::seconds idle_stop{900};           // idle_stop_seconds (plugins/runtime/README.md)
  int keep_releases = 3;                         // keep_releases: older ready ones are pruned
  std::uint64_t max_release_bytes = 1ull << 30;  // max_release_mb: unpacked size limit
  std::uint64_t max_release_files = 100000;      // max_release_files
  std::uint64_t max_unpack_ratio = 100;          // max_unpack_ratio: unpacked / compressed
  std::chrono::seconds build_timeout{600};       // build_timeout_seconds
  std::chrono::seconds start_timeout{30};        // start_timeout_seconds
  std::chrono::seconds stop_grace{5};            // stop_grace_seconds
  UidRange uid_range;                            // uid_range: one uid (= gid) per project
  std::optional<SandboxOptions> sandbox;         // bubblewrap around apps and builds, when usable
  // Set when the sandbox is wanted but cannot be used and unsafe_run_without_sandbox is not
  // set: apps and builds are refused with this text.
  std::optional<std::string> sandbox_refusal;
  bool unsafe_without_sandbox = false;  // apps and builds run unsandboxed (warned at each start)
  std::optional<std::string> readiness_path;  // readiness_path: "" = accepts connections
  int log_keep = 2000;                        // log_keep: entries kept per project
  std::string releases_dir;                   // <data_dir>/releases
  std::string shared_dir;  // shared_dir: folders shared by projects (absolute; <data_dir>/shared)
};

struct Context {
  const berth::Services* services = nullptr;
  std::string data_dir;
  RuntimeConfig config;
  LogBuffer logs;
  std::unique_ptr<ReleaseStore> releases;
  std::unique_ptr<ProjectApps> apps;
  std::unique_ptr<ProjectIdentities> identities;  // each project's uid and writable folder

  berth::Logger logger() const { return services->logger(); }

  // <releases_dir>/<project id>/<release id>: where a release is unpacked and served from.
  std::string releaseDir(const std::string& project_id, const std::string& release_id) const {
    return config.releases_dir + "/" + project_id + "/" + release_id;
  }

  // Called after a project's live release changed on this node (a build finished, a promote)
  // or was found changed by another node; listeners stop the old app, forget cached routing,
  // move the edge cache to a fresh key. Listeners are added during registerAll only.
  using LiveListener = std::function<void(const std::string& project_id)>;
  void onLiveChanged(LiveListener listener) { live_listeners_.push_back(std::move(listener)); }
  void liveChanged(const std::string& project_id) const {
    for (const auto& listener : live_listeners_) listener(project_id);
  }

  // gateway part
  // The gateway's state (routing memory, app specs, edge cache rules); made by
  // registerGateway, ended by stopGateway.
  std::shared_ptr<class Gateway> gateway;

  // releases part
  // The releases part's state (build workers, this node's name, the live ids last seen);
  // made by registerReleases, ended by stopReleases.
  std::shared_ptr<class ReleasesPart> releases_part;

  // work part
  // One-off commands and shared trees (runtime.commands.v1, runtime.shared_trees.v1); made by
  // registerWork, started by startWork, ended by stopWork.
  std::shared_ptr<class WorkPart> work_part;

 private:
  std::vector<LiveListener> live_listeners_;
};

}  // namespace berth::runtime
