// The releases part's state and the work behind its routes: building an upload on a worker
// thread, making it live, pruning, failing builds a stopped berthd left behind, noticing live
// releases another node changed, and removing a deleted project's releases.
#pragma once
#include <berth/plugin.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "build_worker.hpp"
#include "context.hpp"

namespace berth::runtime {

// The blob space the uploads are kept in (storage.blobs.v1), keyed by release id.
inline constexpr const char* kReleaseSpace = "releases";

class ReleasesPart {
 public:
  explicit ReleasesPart(Context& context);

  Context& context() { return ctx_; }
  // "<host name>:<data_dir>": which berthd builds a release; and this process's boot id.
  const std::string& node();
  const std::string& boot();

  // Queues the build of a release just recorded as building; false once stopping.
  bool queueBuild(BuildJob job) { return worker_.post(std::move(job)); }
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

 private:
  void prune(const std::string& project_id, const std::string& project);
  // At start (the first watch): half-unpacked release folders an earlier berthd left.
  void sweep();
  void deleteBlob(const std::string& project_id, const std::string& release_id);
  void removeFolder(const std::string& project_id, const std::string& release_id);

  Context& ctx_;
  std::atomic<bool> stopping_{false};  // stops a running build step at shutdown
  BuildWorker worker_;
  std::once_flag identity_once_;
  std::once_flag swept_;
  std::string node_, boot_;
  std::mutex seen_mutex_;
  bool seen_loaded_ = false;
  std::map<std::string, std::string> seen_live_;  // project id -> live release id
};

// Writes what waits in ctx.logs to runtime_logs (log_routes.cpp): a transaction per project,
// insert then trim to ctx.config.log_keep.
void flushLogs(Context& ctx);

}  // namespace berth::runtime
