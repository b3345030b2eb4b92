// The releases part's state and the work behind its routes: building an upload on a worker
// thread, making it live, pruning, failing builds a stopped berthd left behind, noticing live
// releases another node changed, and removing a deleted project's releases.
#pragma once
#include <berth/plugin.hpp>

#include <berth/services/projects_directory.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "build_worker.hpp"
#include "context.hpp"
#include "release_fetch.hpp"

namespace berth::runtime {

// The blob space the uploads are kept in (storage.blobs.v1), keyed by release id.
inline constexpr const char* kReleaseSpace = "releases";

// The start command given with a release (the x-berth-cmd header, or runtime.releases.v1
// create's cmd): blank counts as none; one breaking the shell rule is refused with 400
// "<field>: <rule>".
std::optional<std::string> givenStartCommand(std::optional<std::string> given,
                                             std::string_view field);

class ReleasesPart {
 public:
  explicit ReleasesPart(Context& context);

  Context& context() { return ctx_; }
  // "<host name>:<data_dir>": which berthd builds a release; and this process's boot id.
  const std::string& node();
  const std::string& boot();

  // A new release of `project` from the gzip tar `archive`, a spooled body the blob store
  // takes over: the building row (409 while one builds), the archive stored, its build queued.
  // What POST /projects/{name}/deploys and runtime.releases.v1 create both do; throws
  // berth::Error as they answer. The building Release.
  ReleaseRecord deploy(const berth::projects_directory::Project& project,
                       const std::string& archive, const std::optional<std::string>& header);
  // Makes a ready release live again (404, 409, 410 as the promote route answers); logged and
  // announced when the live release changed. The route and runtime.releases.v1 promote.
  struct Promoted {
    ReleaseRecord live;
    bool changed = false;
  };
  Promoted promote(const berth::projects_directory::Project& project,
                   const std::string& release_id);
  // runtime.releases.v1 wait: asks `done` when a build ends and at least every 200 ms until it
  // says true or `deadline` passes; false when berthd began stopping first.
  bool waitUntil(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline);
  // The job release_waits: while someone waits, it notices berthd stopping (the core asks
  // jobs to stop before any plugin's stop(), and a template plugin stopping earlier than this
  // one joins its installs, which may be waiting here).
  void watchWaits(berth::JobContext& job);
  // One build, on a worker thread: never throws.
  void build(const BuildJob& job);
  // A release of this project became live here: remembered as seen, listeners told.
  void announceLive(const std::string& project_id, const std::string& release_id);
  // The periodic job: builds left unfinished by a stopped berthd become failed; live releases
  // changed by another node are announced.
  void watch();
  // project.deleting / project.deleted: rows, folders and blobs of the project's releases.
  void removeProject(const std::string& project_id, const std::string& name);
  // project.deleted: its uid is freed and its writable folder removed (its app is stopped).
  void forgetIdentity(const std::string& project_id);
  // Stops the workers: a running build step is stopped (its release fails), builds never
  // started become failed.
  void stop();

  void platformLog(const std::string& project_id, std::string message);

  // Makes the folders of releases this node did not build, from their packed builds.
  ReleaseFetch& fetch() { return fetch_; }

 private:
  void prune(const std::string& project_id, const std::string& project);
  // At start (the first watch): half-unpacked release folders an earlier berthd left.
  void sweep();
  void deleteBlob(const std::string& project_id, const std::string& release_id);
  void removeFolder(const std::string& project_id, const std::string& release_id);
  bool queueBuild(BuildJob job) { return worker_.post(std::move(job)); }  // false once stopping
  void buildEnded();                                                      // wakes the waits
  void endWaits();                                                        // berthd is stopping

  Context& ctx_;
  std::atomic<bool> stopping_{false};  // stops a running build step at shutdown
  BuildWorker worker_;
  std::once_flag identity_once_;
  std::once_flag swept_;
  std::string node_, boot_;
  std::mutex seen_mutex_;
  bool seen_loaded_ = false;
  std::map<std::string, std::string> seen_live_;  // project id -> live release id
  // runtime.releases.v1 wait
  std::mutex waits_mutex_;
  std::condition_variable waits_changed_;
  int waiting_ = 0;                 // waits in progress
  std::uint64_t builds_ended_ = 0;  // bumped by every build: the waits read their release again
  bool waits_ended_ = false;        // berthd is stopping
  ReleaseFetch fetch_;
};

// Writes what waits in ctx.logs to runtime_logs (log_routes.cpp): a transaction per project,
// insert then trim to ctx.config.log_keep.
void flushLogs(Context& ctx);

}  // namespace berth::runtime
