// The runtime_releases table (migrations/0001): every release of every project, its status,
// and how it starts. The releases part of the plugin writes it; the gateway reads the live
// release of a project from it.
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "start_command.hpp"

namespace berth::runtime {

struct ReleaseRecord {
  std::string id;
  std::string project_id;
  std::string project;  // the project's name (the Release's `project`)
  std::string status;   // building, live, ready, failed, pruned
  std::int64_t created_at = 0;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::string cmd;
  std::optional<std::string> runtime;
  std::string region;
  std::optional<std::string> error;
  // How the release starts (set when its build succeeded).
  StartKind kind = StartKind::Process;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> start_env;
};

// The Release of contract.md: id, project, status, created_at, files, bytes, cmd, runtime,
// region, error.
nlohmann::json releaseJson(const ReleaseRecord& release);

class ReleaseStore {
 public:
  explicit ReleaseStore(const berth::Services& services) : services_(services) {}
  virtual ~ReleaseStore() = default;

  // The project's live release, if any. Reads the database (callers cache).
  std::optional<ReleaseRecord> live(const std::string& project_id) const;
  // Every project's live release id (for noticing changes made by another node).
  std::map<std::string, std::string> liveIds() const;

  // The rest (insert, finish, promote, prune, list) belongs to the releases part; see
  // release_store.cpp.

 protected:
  const berth::Services& services_;
};

}  // namespace berth::runtime
