// The runtime_releases table (migrations/0001): every release of every project, its status,
// and how it starts. The releases part of the plugin writes it; the gateway reads the live
// release of a project from it.
#pragma once
#include <berth/plugin.hpp>
#include <berth/util/kept_answers.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "start_command.hpp"

namespace berth::runtime {

// A built release's folder packed into the blob space "builds" (key: the release id): its
// SHA-256 (hex) and size, and what it unpacks to (the exact limits of its unpacking).
struct PackedBuild {
  std::string sha256;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;  // files, folders and links
  std::uint64_t bytes = 0;    // file contents
};

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
  // releases part
  std::string account_id;
  std::string build_log;  // filled by find() only
  // The packed build (migration 0006; release_fetch): none for a release built before
  // releases were packed, whose folder is only on `build_node`.
  std::optional<PackedBuild> packed;
  std::string build_node;  // "<host name>:<data_dir>" of the berthd that built it
};

// releases part: what an upload records, and what a successful build adds.
struct NewRelease {
  std::string project_id;
  std::string project;
  std::string account_id;
  std::string region;
  std::string cmd;  // the x-berth-cmd header, else the project's cmd (replaced when built)
  std::string build_node;
  std::string build_boot;
};
struct BuiltRelease {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::string cmd;
  std::optional<std::string> runtime;
  StartKind kind = StartKind::Process;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> start_env;
  std::string build_log;
  PackedBuild packed;  // recorded with the rest, in the transaction that makes it live
};

// The Release schema of docs/openapi.yaml: id, project, status, created_at, files, bytes, cmd,
// runtime, region, error; written by <berth/services/runtime_releases.hpp>, so the routes and
// runtime.releases.v1 answer the same. With its build log: GET one release, the service's get
// and wait (the record must come from find()).
nlohmann::json releaseJson(const ReleaseRecord& release);
nlohmann::json releaseWithLogJson(const ReleaseRecord& release);

// Migration 0003's triggers notify it with the project's id when its release rows change.
inline constexpr const char* kLiveChannel = "berth_runtime_live";

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

  // ---- releases part: writes and listings (release_store.cpp) -------------------------------

  // A new `building` release. Throws Error 409 when one is building for the project already.
  ReleaseRecord insertBuilding(const NewRelease& release) const;
  // The build failed: status failed with its error and build log. False when the row is gone
  // (the project was deleted meanwhile).
  bool finishFailed(const std::string& release_id, const std::string& error,
                    const std::string& build_log) const;
  // A release whose upload was refused (a quota, a bad body): the `building` row goes, so
  // the refusal leaves nothing listed. False when the row is gone or no longer building.
  bool discardBuilding(const std::string& release_id) const;
  // The build succeeded: its start plan and packed build are stored and, in the same
  // transaction, it becomes the live release (the one live before becomes ready). False when
  // the row is gone.
  bool finishLive(const std::string& release_id, const BuiltRelease& built) const;
  // promote: makes a ready release live again (one transaction); the now-live record.
  // Throws 404 (unknown in this project), 409 (one is building), 410 (pruned or failed).
  ReleaseRecord promote(const std::string& project_id, const std::string& release_id) const;
  // Ready releases beyond the newest `keep` with files become pruned; their ids.
  std::vector<std::string> prune(const std::string& project_id, int keep) const;
  // One release of a project, with its build log.
  std::optional<ReleaseRecord> find(const std::string& project_id,
                                    const std::string& release_id) const;
  // Newest first.
  std::vector<ReleaseRecord> listProject(const std::string& project_id, int limit) const;
  std::vector<ReleaseRecord> listAccounts(const std::vector<std::string>& account_ids,
                                          int limit) const;
  // The live release of each project; projects without one are absent. Answers are kept in
  // memory (see live_kept_ below); the projects not kept are read in one query.
  std::map<std::string, ReleaseRecord> liveOf(const std::vector<std::string>& project_ids) const;
  // liveOf's kept answers: the plugin hooks the core's notifications to them
  // (KeptAnswers::listen in registerAll); stopKeepingLive() before the store goes.
  using LiveKept = berth::KeptAnswers<std::optional<ReleaseRecord>>;
  LiveKept& liveKept() const { return live_kept_; }
  void stopKeepingLive() { live_kept_.stop(); }
  // Building releases of this node left by an earlier berthd (another boot id), and those of
  // other nodes older than `stale_after` seconds (this node's own builds of this boot are
  // alive, even when queued long), become failed with `error`.
  // Returns {project_id, release_id} of each.
  std::vector<std::pair<std::string, std::string>> failInterrupted(const std::string& node,
                                                                   const std::string& boot,
                                                                   std::int64_t stale_after) const;
  // The status of each of `release_ids` that has a row (a release folder of this node whose
  // release was pruned, failed or removed by another node is swept: ReleaseFetch::sweep).
  std::map<std::string, std::string> statuses(const std::vector<std::string>& release_ids) const;
  // Removes every release row of a project; the ids removed.
  std::vector<std::string> removeProject(const std::string& project_id) const;

 protected:
  const berth::Services& services_;

 private:
  // The project's live release may have changed here: liveOf reads it again.
  void changed(const std::string& project_id) const { live_kept_.changed(project_id); }

  // liveOf's answers by project id (nullopt: no live release), as <berth/util/kept_answers.hpp>
  // keeps them: migration 0003's triggers send NOTIFY berth_runtime_live with the project's id
  // when its release rows change (any node, any SQL), and every write of this store calls
  // changed() after it commits, so this node's next read sees it at once.
  mutable LiveKept live_kept_{kLiveChannel};
};

}  // namespace berth::runtime
