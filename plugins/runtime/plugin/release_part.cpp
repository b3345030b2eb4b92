#include "release_part.hpp"

#include <berth/util/unix_time.hpp>

#include "random_hex.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <berth/services/projects_directory.hpp>
#include <berth/services/storage_blobs.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "release_build.hpp"

namespace berth::runtime {

namespace fs = std::filesystem;

namespace {

// A folder the apps' user can pass through (the release inside is theirs).
void makeFolder(const std::string& path) {
  fs::create_directories(path);
  ::chmod(path.c_str(), 0755);
}

bool blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isspace(c) != 0; });
}

}  // namespace

std::optional<std::string> givenStartCommand(std::optional<std::string> given,
                                             std::string_view field) {
  if (given && blank(*given)) given.reset();
  if (given) {
    if (auto problem = commandProblem(*given))
      throw berth::Error::badRequest(std::string(field) + ": " + *problem);
  }
  return given;
}

ReleasesPart::ReleasesPart(Context& context)
    : ctx_(context),
      worker_(
          [this](const BuildJob& job) {
            build(job);
            buildEnded();
          },
          2),
      fetch_(context, [this](const std::string& project_id, std::string message) {
        platformLog(project_id, std::move(message));
      }) {}

ReleaseRecord ReleasesPart::deploy(const berth::projects_directory::Project& project,
                                   const std::string& archive,
                                   const std::optional<std::string>& header) {
  NewRelease fresh{
      project.id, project.name, project.account_id, project.region, header ? *header : project.cmd,
      node(),     boot()};
  ReleaseRecord release = ctx_.releases->insertBuilding(fresh);  // 409 while one builds
  try {
    berth::StorageBlobs(*ctx_.services)
        .put({{project.id, kReleaseSpace, release.id}, archive, "application/gzip", true});
  } catch (const berth::Error& e) {
    // The store refused the upload itself (a quota): nothing of it is kept, not even a row.
    if (e.status() < 500) {
      ctx_.releases->discardBuilding(release.id);
    } else {
      ctx_.releases->finishFailed(release.id, "the upload could not be stored: " + e.message(), "");
    }
    throw;
  } catch (const std::exception& e) {
    ctx_.releases->finishFailed(release.id,
                                std::string("the upload could not be stored: ") + e.what(), "");
    throw;
  }
  BuildJob job{project.id, project.name, release.id, header, project.cmd};
  if (!queueBuild(job)) {
    ctx_.releases->finishFailed(release.id, "berthd is stopping; upload the release again", "");
    throw berth::Error::unavailable("berthd is stopping; upload the release again");
  }
  return release;
}

ReleasesPart::Promoted ReleasesPart::promote(const berth::projects_directory::Project& project,
                                             const std::string& release_id) {
  auto before = ctx_.releases->live(project.id);
  Promoted out{ctx_.releases->promote(project.id, release_id)};  // 404, 409, 410
  out.changed = !before || before->id != out.live.id;
  if (out.changed) {
    platformLog(project.id, "release " + release_id + " promoted: it is live again");
    announceLive(project.id, release_id);
    // Its folder may have been built on another node: made here now, not at the first request.
    fetch_.materialise(project.id, release_id, [](const std::optional<berth::Error>&) {});
  }
  return out;
}

void ReleasesPart::buildEnded() {
  {
    std::lock_guard lock(waits_mutex_);
    ++builds_ended_;
  }
  waits_changed_.notify_all();
}

void ReleasesPart::endWaits() {
  {
    std::lock_guard lock(waits_mutex_);
    waits_ended_ = true;
  }
  waits_changed_.notify_all();
}

bool ReleasesPart::waitUntil(const std::function<bool()>& done,
                             std::chrono::steady_clock::time_point deadline) {
  // Polled as well as woken: a build finished by another node ends no build here.
  constexpr std::chrono::steady_clock::duration kPoll = std::chrono::milliseconds(200);
  {
    std::lock_guard lock(waits_mutex_);
    if (waits_ended_) return false;
    ++waiting_;
  }
  struct Leave {
    ReleasesPart& part;
    ~Leave() {
      std::lock_guard lock(part.waits_mutex_);
      --part.waiting_;
    }
  } leave{*this};
  for (;;) {
    std::uint64_t seen = 0;
    {
      std::lock_guard lock(waits_mutex_);
      if (waits_ended_) return false;
      seen = builds_ended_;  // read before asking: a build ending meanwhile still wakes
    }
    if (done()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return true;
    std::unique_lock lock(waits_mutex_);
    waits_changed_.wait_for(lock, std::min(kPoll, deadline - now),
                            [&] { return waits_ended_ || builds_ended_ != seen; });
  }
}

void ReleasesPart::watchWaits(berth::JobContext& job) {
  // Holds a job thread only while a wait is in progress.
  for (;;) {
    {
      std::lock_guard lock(waits_mutex_);
      if (waiting_ == 0 || waits_ended_) return;
    }
    if (job.stopRequested()) {
      endWaits();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

const std::string& ReleasesPart::node() {
  std::call_once(identity_once_, [this] {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    node_ = std::string(host) + ":" + ctx_.data_dir;
    boot_ = randomHex(12);
  });
  return node_;
}

const std::string& ReleasesPart::boot() {
  node();
  return boot_;
}

void ReleasesPart::platformLog(const std::string& project_id, std::string message) {
  LogEntry entry;
  entry.at = berth::unixSeconds();
  entry.kind = "platform";
  entry.message = std::move(message);
  ctx_.logs.add(project_id, std::move(entry));
}

void ReleasesPart::build(const BuildJob& job) {
  berth::Logger log = ctx_.logger().withProject(job.project);
  const std::string dir = ctx_.releaseDir(job.project_id, job.release_id);
  try {
    platformLog(job.project_id, "build of release " + job.release_id + " started");
    PreparedRelease prepared;
    PackedBuild packed;
    // Never built unprotected: the release fails saying why.
    if (ctx_.config.sandbox_refusal)
      prepared.error = *ctx_.config.sandbox_refusal;
    else
      try {
        berth::storage_blobs::BlobSlice blob =
            berth::StorageBlobs(*ctx_.services)
                .get({job.project_id, kReleaseSpace, job.release_id});
        if (!blob.path) throw berth::Error("the blob store gave no local path for the archive");
        makeFolder(ctx_.config.releases_dir + "/" + job.project_id);
        ReleaseInput input;
        input.archive = *blob.path;
        input.release_dir = dir;
        input.header = job.header;
        input.project_cmd = job.project_cmd;
        input.unpack.max_bytes = ctx_.config.max_release_bytes;
        input.unpack.max_entries = ctx_.config.max_release_files;
        input.unpack.max_ratio = ctx_.config.max_unpack_ratio;
        input.build.timeout = ctx_.config.build_timeout;
        input.build.cancel = &stopping_;
        const ProjectIdentity identity = ctx_.identities->of(job.project_id);
        input.run_as = identity.ids;
        input.home = identity.home;
        input.sandbox = ctx_.config.sandbox;
        if (ctx_.config.unsafe_without_sandbox && !input.sandbox)
          platformLog(job.project_id,
                      "WARNING: the build runs outside the sandbox "
                      "(runtime.unsafe_run_without_sandbox)");
        input.build_secrets = berth::ProjectsDirectory(*ctx_.services)
                                  .secrets(job.project_id, berth::projects_directory::kBuildScope);
        prepared = prepareRelease(input);
        // What the build made (not the upload: npm's node_modules are in it) goes to the blob
        // store, so that other nodes can serve the release (release_fetch).
        if (prepared.ok()) packed = storeBuild(ctx_, job.project_id, job.release_id, dir);
      } catch (const std::exception& e) {
        std::error_code ignored;
        fs::remove_all(dir, ignored);  // the id is new: any folder of that name is this build's
        prepared.error = std::string("the release could not be built: ") + e.what();
      }

    if (!prepared.ok()) {
      bool recorded =
          ctx_.releases->finishFailed(job.release_id, *prepared.error, prepared.build_log);
      deleteBlob(job.project_id, job.release_id);  // a failed release never becomes live
      if (!recorded) return;                       // the project was deleted meanwhile
      log.info("release " + job.release_id + " failed to build: " + *prepared.error);
      platformLog(job.project_id,
                  "release " + job.release_id + " failed to build: " + *prepared.error);
      return;
    }

    BuiltRelease built;
    built.files = prepared.files;
    built.bytes = prepared.bytes;
    built.cmd = prepared.plan->cmd;
    built.runtime = prepared.plan->runtime;
    built.kind = prepared.plan->kind;
    built.argv = prepared.plan->argv;
    built.start_env = prepared.plan->env;
    built.build_log = std::move(prepared.build_log);
    built.packed = packed;
    if (!ctx_.releases->finishLive(job.release_id, built)) {
      // The project was deleted (or the build declared interrupted) meanwhile.
      removeFolder(job.project_id, job.release_id);
      deleteBlob(job.project_id, job.release_id);
      return;
    }
    std::string what = "release " + job.release_id + " is live (" + std::to_string(built.files) +
                       " files, " + std::to_string(built.bytes) + " bytes" +
                       (built.cmd.empty() ? std::string(", static") : ", cmd " + built.cmd) + ")";
    log.info(what);
    platformLog(job.project_id, what);
    announceLive(job.project_id, job.release_id);
    prune(job.project_id, job.project);
  } catch (const std::exception& e) {
    // The database went away mid-way, say: the row stays building until the watch job of a
    // later berthd (or the time limit) fails it.
    log.error("release " + job.release_id + ": the build could not be recorded: " + e.what());
  }
}

void ReleasesPart::prune(const std::string& project_id, const std::string& project) {
  for (const auto& id : ctx_.releases->prune(project_id, ctx_.config.keep_releases)) {
    removeFolder(project_id, id);
    deleteBlob(project_id, id);
    platformLog(project_id, "release " + id + " pruned (only the newest " +
                                std::to_string(ctx_.config.keep_releases) + " keep their files)");
    ctx_.logger().withProject(project).info("release " + id + " pruned");
  }
}

void ReleasesPart::announceLive(const std::string& project_id, const std::string& release_id) {
  {
    std::lock_guard lock(seen_mutex_);
    seen_live_[project_id] = release_id;
  }
  ctx_.liveChanged(project_id);
}

void ReleasesPart::sweep() {
  // Half-unpacked folders (".<release>.unpacking-<random>") an earlier berthd left beside the
  // releases; half-built releases are failed and removed by watch() (failInterrupted).
  std::error_code ec;
  for (auto project = fs::directory_iterator(ctx_.config.releases_dir, ec);
       !ec && project != fs::directory_iterator(); project.increment(ec)) {
    if (!project->is_directory() || project->is_symlink()) continue;
    std::error_code inner;
    std::vector<fs::path> leftovers;
    for (auto entry = fs::directory_iterator(project->path(), inner);
         !inner && entry != fs::directory_iterator(); entry.increment(inner)) {
      const std::string name = entry->path().filename().string();
      if (name.starts_with(".") && name.find(".unpacking-") != std::string::npos)
        leftovers.push_back(entry->path());
    }
    for (const auto& path : leftovers) {
      std::error_code ignored;
      fs::remove_all(path, ignored);
      ctx_.logger().info("removed a half-unpacked release folder: " + path.string());
    }
  }
  if (!ctx_.identities) return;
  try {
    const berth::ProjectsDirectory directory(*ctx_.services);
    for (const auto& id : ctx_.identities->removeOrphans([&](const std::string& project_id) {
           return directory.tryGetById(project_id).has_value();
         }))
      ctx_.logger().info("removed the home folder of a deleted project: " + id);
  } catch (const std::exception& e) {
    ctx_.logger().warn(std::string("home folders of deleted projects not swept: ") + e.what());
  }
}

void ReleasesPart::forgetIdentity(const std::string& project_id) {
  if (ctx_.identities) ctx_.identities->remove(project_id);
}

void ReleasesPart::watch() {
  std::call_once(swept_, [this] { sweep(); });
  fetch_.sweep();  // folders of releases other nodes pruned or removed (once a minute)
  // Builds are at most build_timeout long (plus unpacking): a building row older than that
  // with a margin belongs to a berthd that stopped, on whatever node.
  const std::int64_t stale_after = ctx_.config.build_timeout.count() + 600;
  for (const auto& [project_id, release_id] :
       ctx_.releases->failInterrupted(node(), boot(), stale_after)) {
    platformLog(project_id,
                "release " + release_id + " failed: its build was interrupted (berthd stopped)");
    removeFolder(project_id, release_id);
    deleteBlob(project_id, release_id);
  }

  std::map<std::string, std::string> now = ctx_.releases->liveIds();
  std::vector<std::string> changed;
  {
    std::lock_guard lock(seen_mutex_);
    if (seen_loaded_) {
      for (const auto& [project_id, id] : now) {
        auto it = seen_live_.find(project_id);
        if (it == seen_live_.end() || it->second != id) changed.push_back(project_id);
      }
      for (const auto& [project_id, id] : seen_live_)
        if (!now.count(project_id)) changed.push_back(project_id);
    }
    seen_live_ = now;
    seen_loaded_ = true;
  }
  for (const auto& project_id : changed) ctx_.liveChanged(project_id);
}

void ReleasesPart::removeProject(const std::string& project_id, const std::string& name) {
  auto removed = ctx_.releases->removeProject(project_id);
  std::error_code ignored;
  fs::remove_all(ctx_.config.releases_dir + "/" + project_id, ignored);
  try {
    // The storage plugin removes a deleted project's blobs itself; this covers a storage that
    // kept them (it answers {deleted: 0} when they are gone already).
    berth::StorageBlobs(*ctx_.services).removePrefix({project_id, kReleaseSpace, ""});
    berth::StorageBlobs(*ctx_.services).removePrefix({project_id, kBuildSpace, ""});
  } catch (const std::exception& e) {
    ctx_.logger().withProject(name).warn(std::string("release blobs not removed: ") + e.what());
  }
  bool was_live = false;
  {
    std::lock_guard lock(seen_mutex_);
    was_live = seen_live_.erase(project_id) > 0;
  }
  if (!removed.empty())
    ctx_.logger().withProject(name).info("removed " + std::to_string(removed.size()) +
                                         " releases of the deleted project");
  if (was_live || !removed.empty()) ctx_.liveChanged(project_id);
}

void ReleasesPart::stop() {
  stopping_ = true;
  endWaits();
  fetch_.stop();  // requests waiting for a release's files are answered 503
  for (const auto& job : worker_.stop()) {
    try {
      ctx_.releases->finishFailed(
          job.release_id, "berthd stopped before this release was built; upload it again", "");
      deleteBlob(job.project_id, job.release_id);
    } catch (const std::exception&) {
      // The watch job of the next start fails it.
    }
  }
}

void ReleasesPart::deleteBlob(const std::string& project_id, const std::string& release_id) {
  // The upload and the packed build (none for a release that failed or was built before
  // builds were packed: the store answers {deleted: false}).
  for (const char* space : {kReleaseSpace, kBuildSpace}) {
    try {
      berth::StorageBlobs(*ctx_.services).remove({project_id, space, release_id});
    } catch (const std::exception& e) {
      ctx_.logger().warn("project " + project_id + ", release " + release_id + ": " + space +
                         " blob not removed: " + e.what());
    }
  }
}

void ReleasesPart::removeFolder(const std::string& project_id, const std::string& release_id) {
  std::error_code ignored;
  fs::remove_all(ctx_.releaseDir(project_id, release_id), ignored);
  // The project's folder goes too when that was its last release (fails while not empty).
  fs::remove(ctx_.config.releases_dir + "/" + project_id, ignored);
}

}  // namespace berth::runtime
