// The blob store: metadata in storage.blobs, bytes in the backend. Every caller (the file
// routes, storage.blobs.v1, the project hooks) goes through here, so the rules hold once:
//
// - a put writes a new object first (durably, see BlobBackend::putFile) and only then
//   publishes it in one transaction; the object it replaced is removed after the commit.
//   A crash at any point leaves the old blob listed, or the new one whole: never a part.
// - objects no row refers to (a crash between the write and the commit, a removal that
//   failed) are removed by sweep().
// - updated_at moves forward by at least a second on every replace and is the object's
//   modification time, so the edge's Last-Modified and ETag change with every version.
#pragma once
#include <berth/plugin.hpp>
#include <berth/util/kept_answers.hpp>
#include <berth/util/lookup_cache.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blob_backend.hpp"
#include "quotas.hpp"

namespace berth::storage {

// Where the store's log lines go: a logger naming the project (withProject) and the request
// being served, when there is one.
struct LogTo {
  berth::Logger logger;
  std::string request_id;

  void warn(std::string_view message) const {
    logger.write(berth::LogLevel::Warn, request_id, message);
  }
  void error(std::string_view message) const {
    logger.write(berth::LogLevel::Error, request_id, message);
  }
};

struct BlobRecord {
  std::string project_id;
  std::string space;
  std::string key;
  std::string object;
  int64_t size = 0;
  std::string content_type;
  std::string sha256;
  int64_t created_at = 0;
  int64_t updated_at = 0;

  // The ETag the edge sends for the object ("<hex mtime>-<hex size>", as nginx makes it).
  std::string etag() const;
};

// Bytes and count of the stored files of one project.
struct FileUsage {
  int64_t count = 0;
  int64_t bytes = 0;
};

// Migration 0002's triggers notify it with the project's id when its blob rows change.
inline constexpr const char* kUsageChannel = "berth_storage_usage";

class BlobStore {
 public:
  BlobStore(const berth::Services& services, BlobBackend& backend)
      : services_(services), backend_(backend) {}

  // Stores the file at `source` (moved when `move` and the backend can) under the key.
  // @throw berth::Error 502 when the backend did not store it; 403 when it would pass a quota
  // (see setQuotas), and nothing is stored then.
  BlobRecord putFile(const LogTo& log, const std::string& project_id, const std::string& space,
                     const std::string& key, const std::string& source, bool move,
                     const std::string& content_type);
  BlobRecord putBytes(const LogTo& log, const std::string& project_id, const std::string& space,
                      const std::string& key, std::string_view bytes,
                      const std::string& content_type);

  // The quotas every put is checked against from now on (none before); `quotas` must outlive
  // the store.
  void setQuotas(const Quotas* quotas) { quotas_ = quotas; }

  std::optional<BlobRecord> find(const std::string& project_id, const std::string& space,
                                 const std::string& key) const;
  // find() for the hot path of GET /_files: answers (found or not) are remembered for a
  // couple of seconds and forgotten on every change this store makes and on every change
  // another node makes (forgetServed(), on its NOTIFY).
  std::optional<BlobRecord> findServed(const std::string& project_id, const std::string& space,
                                       const std::string& key);
  // Keys in byte order, starting with `prefix`, after `after`; at most `limit`.
  std::vector<BlobRecord> list(const std::string& project_id, const std::string& space,
                               const std::string& prefix, const std::string& after,
                               int64_t limit) const;

  // Unpublishes a blob and removes its object; false when there was none. An object the
  // backend would not remove is left to sweep(): the blob is gone either way.
  bool remove(const LogTo& log, const std::string& project_id, const std::string& space,
              const std::string& key);
  int64_t removePrefix(const LogTo& log, const std::string& project_id, const std::string& space,
                       const std::string& prefix);

  // Removes every blob of a project, in every space: the objects first, then the rows.
  // @throw berth::Error 502 "object storage did not confirm removal; try again" when the
  // backend did not confirm; nothing else changes then, so the call can be repeated.
  void removeProject(const std::string& project_id, const std::string& project_name);

  // Stored-file usage (space "files") of each project id; ids without files are absent.
  // Answers are kept in memory (see usage_ below); the ids not kept are read in one query.
  std::map<std::string, FileUsage> fileUsage(const std::vector<std::string>& project_ids) const;
  // fileUsage's kept answers: the plugin hooks the core's notifications to them
  // (KeptAnswers::listen in registerAll); stopKeepingUsage() before the store goes.
  berth::KeptAnswers<FileUsage>& usage() const { return usage_; }
  void stopKeepingUsage() { usage_.stop(); }
  // Forgets every findServed() answer: another node changed a blob (heard by NOTIFY).
  void forgetServed() { served_.clear(); }

  // Where the blob's bytes are (or would be) on this machine, without fetching them: the
  // edge tree's links are checked against it. Nothing when the backend keeps none here.
  std::optional<std::string> copyPlace(const BlobRecord& record) const {
    try {
      return backend_.copyPlace(record.object);
    } catch (const BackendError&) {
      return std::nullopt;
    }
  }

  // Removes objects no row refers to that were last modified before `cutoff`; returns how
  // many. `stop` is asked between projects.
  size_t sweep(int64_t cutoff, const std::function<bool()>& stop);

  // The absolute path of a file with the blob's bytes for the edge and `get`: the object for
  // the local backend, a verified local copy for S3. @throw berth::Error 502 when the store
  // did not return it.
  std::optional<std::string> localPath(const BlobRecord& record) const {
    try {
      return backend_.localCopy(record.object, {static_cast<uint64_t>(record.size), record.sha256},
                                record.updated_at);
    } catch (const BackendError& e) {
      services_.logger()
          .withProject(record.project_id)
          .error("object " + record.object + " could not be copied here: " + e.what());
      throw berth::Error::badGateway("object storage did not return the blob; try again");
    }
  }
  std::string read(const LogTo& log, const BlobRecord& record, uint64_t offset,
                   uint64_t length) const;

 private:
  BlobRecord publish(const LogTo& log, const std::string& project_id, const std::string& space,
                     const std::string& key, const std::string& object, const StoredObject& stored,
                     const std::string& content_type, const std::optional<PutLimits>& limits);
  std::optional<PutLimits> limitsFor(const std::string& project_id,
                                     const std::string& space) const {
    if (!quotas_) return std::nullopt;
    return quotas_->limitsFor(project_id, space);
  }
  void removeQuietly(const LogTo& log, const std::string& object, const std::string& why) const;

  const berth::Services& services_;
  BlobBackend& backend_;
  const Quotas* quotas_ = nullptr;
  // The blob behind a public path (or its absence), kept 2 s; emptied by every change this
  // store makes.
  berth::LookupCache<std::optional<BlobRecord>> served_{std::chrono::seconds(2), 100000};
  // fileUsage's answers by project id, as <berth/util/kept_answers.hpp> keeps them: migration
  // 0002's triggers send NOTIFY berth_storage_usage with the project's id when its blob rows
  // change (any node, any SQL), and every write of this store calls usage_.changed() after
  // it commits, so this node's next read sees it at once.
  mutable berth::KeptAnswers<FileUsage> usage_{kUsageChannel};
};

int64_t unixNow();

}  // namespace berth::storage
