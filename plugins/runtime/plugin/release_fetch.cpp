#include "release_fetch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <berth/common/fd.hpp>
#include <berth/services/storage_blobs.hpp>
#include <berth/util/spooled_body.hpp>

#include <filesystem>
#include <future>
#include <system_error>

#include "random_hex.hpp"
#include "release_pack.hpp"
#include "release_part.hpp"
#include "release_unpack.hpp"

namespace berth::runtime {

namespace fs = std::filesystem;
using berth::Error;
using Clock = std::chrono::steady_clock;

namespace {

// How long a refusal is answered again without fetching again (a damaged pack, a store that
// is down): long enough to spare the store a request's worth of downloads, short enough that
// a repaired store is tried soon.
constexpr std::chrono::seconds kRefusalKept{5};
constexpr std::chrono::seconds kSweepEvery{60};

bool isFolder(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string stoppingText() {
  return "berthd is stopping; the release's files were not made on this node";
}

}  // namespace

PackedBuild storeBuild(const Context& context, const std::string& project_id,
                       const std::string& release_id, const std::string& dir) {
  const std::string body_dir =
      context.services->coreSetting(berth::kEdgeBodyDirSetting).value_or("");
  if (body_dir.empty())
    throw std::runtime_error(
        "the built release could not be packed: berthd has no edge body "
        "folder to pack it in");
  // Removed in every case: the blob store moved it away when it took it.
  struct Archive {
    std::string path;
    ~Archive() { ::unlink(path.c_str()); }
  } archive{body_dir + "/.berth-build-" + randomHex(12)};
  PackResult packed = packRelease(dir, archive.path);
  if (!packed.ok())
    throw std::runtime_error("the built release could not be packed: " + *packed.error);
  try {
    berth::StorageBlobs(*context.services)
        .put({{project_id, kBuildSpace, release_id}, archive.path, "application/gzip", true});
  } catch (const berth::Error& e) {
    throw std::runtime_error("the built release could not be kept in the blob store: " +
                             e.message());
  }
  return PackedBuild{packed.sha256, packed.size, packed.entries, packed.bytes};
}

ReleaseFetch::ReleaseFetch(Context& context, PlatformLog platform_log)
    : ctx_(context),
      platform_log_(std::move(platform_log)),
      // Two at once: each is mostly waiting for the store or the disk.
      pool_(common::PoolLimits{.threads = 2}, common::WorkerPool::Start::OnFirstPost) {}

bool ReleaseFetch::here(const std::string& project_id, const std::string& release_id) const {
  return isFolder(ctx_.releaseDir(project_id, release_id));
}

void ReleaseFetch::materialise(const std::string& project_id, const std::string& release_id,
                               Done done) {
  if (here(project_id, release_id)) return done(std::nullopt);
  std::optional<Error> refusal;
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      refusal = Error::unavailable(stoppingText());
    } else if (auto it = refused_.find(release_id);
               it != refused_.end() && Clock::now() - it->second.second < kRefusalKept) {
      refusal = it->second.first;
    } else {
      auto& waiting = flights_[release_id];
      first = waiting.empty();
      waiting.push_back(std::move(done));
    }
  }
  if (refusal) return done(refusal);
  if (!first) return;  // the unpack under way answers it too
  const auto posted = pool_.post([this, project_id, release_id] { run(project_id, release_id); });
  if (posted != common::WorkerPool::Posted::Queued) {
    std::vector<Done> waiting;
    {
      std::lock_guard lock(mutex_);
      waiting = std::move(flights_[release_id]);
      flights_.erase(release_id);
    }
    for (auto& caller : waiting) caller(Error::unavailable(stoppingText()));
  }
}

void ReleaseFetch::ensure(const std::string& project_id, const std::string& release_id) {
  auto answer = std::make_shared<std::promise<std::optional<Error>>>();
  std::future<std::optional<Error>> result = answer->get_future();
  materialise(project_id, release_id,
              [answer](const std::optional<Error>& refusal) { answer->set_value(refusal); });
  if (auto refusal = result.get()) throw *refusal;
}

void ReleaseFetch::run(const std::string& project_id, const std::string& release_id) {
  std::optional<Error> refusal;
  try {
    refusal = make(project_id, release_id);
  } catch (const std::exception& e) {
    refusal = Error::unavailable("the files of release " + release_id +
                                 " could not be made on this node: " + e.what());
  }
  std::vector<Done> waiting;
  {
    std::lock_guard lock(mutex_);
    waiting = std::move(flights_[release_id]);
    flights_.erase(release_id);
    if (refusal) {
      const auto now = Clock::now();
      std::erase_if(refused_,
                    [now](const auto& kept) { return now - kept.second.second >= kRefusalKept; });
      refused_.insert_or_assign(release_id, std::make_pair(*refusal, now));
    } else
      refused_.erase(release_id);
  }
  for (auto& caller : waiting) {
    try {
      caller(refusal);
    } catch (...) {
      // A caller answers its own request; nothing of it concerns the others.
    }
  }
}

std::optional<Error> ReleaseFetch::make(const std::string& project_id,
                                        const std::string& release_id) {
  const std::string dir = ctx_.releaseDir(project_id, release_id);
  if (here(project_id, release_id)) return std::nullopt;  // an unpack just before this one
  // The row as it is now (the gateway's copy may be older): its status and its pack's digest.
  const std::optional<ReleaseRecord> release = ctx_.releases->find(project_id, release_id);
  if (!release || (release->status != "live" && release->status != "ready"))
    return Error::unavailable("release " + release_id +
                              " is no longer live or ready, so its files are not made here");
  berth::Logger log = ctx_.logger().withProject(release->project);
  if (!release->packed)
    return Error::unavailable(
        "release " + release_id + " was built on " + release->build_node +
        " before built releases were kept in the blob store, so its files are only there; "
        "upload it again to serve it from this node");
  const PackedBuild& packed = *release->packed;

  const auto started = Clock::now();
  berth::storage_blobs::BlobSlice blob;
  try {
    blob = berth::StorageBlobs(*ctx_.services).get({project_id, kBuildSpace, release_id});
  } catch (const Error& e) {
    log.warn("release " + release_id + ": its packed files could not be fetched: " + e.message());
    return Error::unavailable("the files of release " + release_id +
                              " could not be fetched from the blob store: " + e.message());
  }
  if (!blob.path)
    return Error::unavailable("the files of release " + release_id +
                              " could not be fetched: the blob store gave no local path");
  const auto fetched = Clock::now();
  common::Fd file(::open(blob.path->c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!file.valid())
    return Error::unavailable("the files of release " + release_id +
                              " could not be read from the blob store's copy: " +
                              std::error_code(errno, std::generic_category()).message());
  // Checked on the descriptor that is then unpacked, so what is unpacked is what was checked.
  const FileDigest digest = digestOf(file.get());
  if (digest.sha256 != packed.sha256 || digest.size != packed.size) {
    const std::string why = "release " + release_id +
                            " was refused: its packed files in the blob store are not the ones "
                            "its build recorded (sha256 " +
                            digest.sha256 + ", " + std::to_string(digest.size) +
                            " bytes; expected sha256 " + packed.sha256 + ", " +
                            std::to_string(packed.size) + " bytes); nothing of it was unpacked";
    log.error(why);
    platform_log_(project_id, why);
    return Error::unavailable(why);
  }

  const auto checked = Clock::now();
  const std::string project_dir = ctx_.config.releases_dir + "/" + project_id;
  fs::create_directories(project_dir);
  ::chmod(project_dir.c_str(), 0755);  // the apps' user passes through (the release is theirs)
  UnpackLimits limits;
  limits.max_bytes = packed.bytes;  // exactly what was packed: the row says what to expect
  limits.max_entries = packed.entries;
  limits.max_ratio = 0;
  const UnpackResult unpacked =
      unpackRelease("/proc/self/fd/" + std::to_string(file.get()), dir, limits);
  if (!unpacked.ok()) {
    if (here(project_id, release_id)) return std::nullopt;
    const std::string why =
        "release " + release_id + " could not be unpacked on this node: " + *unpacked.error;
    log.error(why);
    platform_log_(project_id, why);
    return Error::unavailable(why);
  }
  auto ms = [](Clock::time_point from, Clock::time_point to) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count());
  };
  const auto now = Clock::now();
  const std::string what =
      "release " + release_id + " unpacked on this node from its packed build (" +
      std::to_string(packed.entries) + " entries, " + std::to_string(unpacked.bytes) + " bytes, " +
      ms(started, now) + " ms: fetch " + ms(started, fetched) + ", check " + ms(fetched, checked) +
      ", unpack " + ms(checked, now) + ")";
  log.info(what);
  platform_log_(project_id, what);
  return std::nullopt;
}

void ReleaseFetch::sweep() {
  {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    if (stopping_ || now - last_sweep_ < kSweepEvery) return;
    last_sweep_ = now;
  }
  struct Folder {
    fs::path path;
    std::string project_id;
  };
  std::map<std::string, Folder> folders;  // by release id
  std::error_code ec;
  for (auto project = fs::directory_iterator(ctx_.config.releases_dir, ec);
       !ec && project != fs::directory_iterator(); project.increment(ec)) {
    if (!project->is_directory() || project->is_symlink()) continue;
    std::error_code inner;
    for (auto entry = fs::directory_iterator(project->path(), inner);
         !inner && entry != fs::directory_iterator(); entry.increment(inner)) {
      const std::string name = entry->path().filename().string();
      if (name.starts_with(".")) continue;  // an unpack or a build in progress
      folders[name] = {entry->path(), project->path().filename().string()};
    }
  }
  if (folders.empty()) return;
  std::vector<std::string> ids;
  for (const auto& [id, folder] : folders) ids.push_back(id);
  const std::map<std::string, std::string> statuses = ctx_.releases->statuses(ids);
  for (const auto& [id, folder] : folders) {
    auto status = statuses.find(id);
    if (status != statuses.end() && status->second != "pruned" && status->second != "failed")
      continue;
    {
      std::lock_guard lock(mutex_);
      if (flights_.count(id)) continue;
    }
    std::error_code ignored;
    fs::remove_all(folder.path, ignored);
    fs::remove(folder.path.parent_path(), ignored);  // fails while the project has others
    ctx_.logger().info("release " + id + " of project " + folder.project_id +
                       ": its folder on this node was removed (" +
                       (status == statuses.end() ? std::string("the release is gone")
                                                 : "the release is " + status->second) +
                       ")");
  }
}

void ReleaseFetch::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  pool_.stop(common::WorkerPool::Leftovers::Drop);  // a running unpack ends first
  std::map<std::string, std::vector<Done>> left;
  {
    std::lock_guard lock(mutex_);
    left.swap(flights_);
  }
  for (auto& [id, waiting] : left)
    for (auto& caller : waiting) {
      try {
        caller(Error::unavailable(stoppingText()));
      } catch (...) {
      }
    }
}

bool releaseFolderReady(Context& context, const ReleaseRecord& release,
                        const berth::Request& request, berth::Responder& responder,
                        AnswerAgain again) {
  if (!context.releases_part) return true;
  ReleaseFetch& fetch = context.releases_part->fetch();
  if (fetch.here(release.project_id, release.id)) return true;
  auto exchange = berth::Exchange::make(request, responder);
  fetch.materialise(release.project_id, release.id,
                    [exchange, again = std::move(again)](const std::optional<Error>& refusal) {
                      try {
                        if (refusal) {
                          exchange->responder.error(refusal->status(), refusal->message());
                          return;
                        }
                        again(exchange->request, exchange->responder);
                      } catch (const Error& e) {
                        exchange->responder.error(e.status(), e.message());
                      } catch (...) {
                        // Responder's last copy answers 500 when it goes.
                      }
                    });
  return false;
}

}  // namespace berth::runtime
