#include "blob_store.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "blob_names.hpp"

namespace berth::storage {

namespace {

using berth::Error;

constexpr const char* kColumns =
    "project_id, space, key, object, size, content_type, sha256, created_at, updated_at";

BlobRecord recordAt(const berth::DbResult& r, int64_t row) {
  BlobRecord b;
  b.project_id = r.get<std::string>(row, 0);
  b.space = r.get<std::string>(row, 1);
  b.key = r.get<std::string>(row, 2);
  b.object = r.get<std::string>(row, 3);
  b.size = r.get<int64_t>(row, 4);
  b.content_type = r.get<std::string>(row, 5);
  b.sha256 = r.get<std::string>(row, 6);
  b.created_at = r.get<int64_t>(row, 7);
  b.updated_at = r.get<int64_t>(row, 8);
  return b;
}

Error notStored(const BackendError& e, const LogTo& log, const std::string& object) {
  log.error("object " + object + " was not stored: " + e.what());
  return Error::badGateway("object storage did not store the file; try again");
}

}  // namespace

int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string BlobRecord::etag() const {
  char text[64];
  std::snprintf(text, sizeof text, "\"%llx-%llx\"", static_cast<unsigned long long>(updated_at),
                static_cast<unsigned long long>(size));
  return text;
}

BlobRecord BlobStore::putFile(const LogTo& log, const std::string& project_id,
                              const std::string& space, const std::string& key,
                              const std::string& source, bool move,
                              const std::string& content_type) {
  // Read before the write: it asks other plugins, which must not happen inside the
  // transaction that holds the account's lock.
  std::optional<PutLimits> limits = limitsFor(project_id, space);
  std::string object = newObjectName(project_id);
  StoredObject stored;
  try {
    stored = backend_.putFile(object, source, move);
  } catch (const BackendError& e) {
    throw notStored(e, log, object);
  }
  return publish(log, project_id, space, key, object, stored, content_type, limits);
}

BlobRecord BlobStore::putBytes(const LogTo& log, const std::string& project_id,
                               const std::string& space, const std::string& key,
                               std::string_view bytes, const std::string& content_type) {
  std::optional<PutLimits> limits = limitsFor(project_id, space);
  std::string object = newObjectName(project_id);
  StoredObject stored;
  try {
    stored = backend_.putBytes(object, bytes);
  } catch (const BackendError& e) {
    throw notStored(e, log, object);
  }
  return publish(log, project_id, space, key, object, stored, content_type, limits);
}

BlobRecord BlobStore::publish(const LogTo& log, const std::string& project_id,
                              const std::string& space, const std::string& key,
                              const std::string& object, const StoredObject& stored,
                              const std::string& content_type,
                              const std::optional<PutLimits>& limits) {
  BlobRecord record{project_id,   space,         key, object, static_cast<int64_t>(stored.size),
                    content_type, stored.sha256, 0,   0};
  std::optional<std::string> replaced;
  try {
    services_.db().transaction([&](berth::Transaction& tx) {
      // The quotas are checked under the account's lock, taken first by every put of the
      // account, and the row is written in the same transaction: what the check counted is
      // what is stored when the lock is released. A refusal (403) rolls back, and the catch
      // below removes the object written.
      if (limits) Quotas::lock(tx, *limits);
      // A concurrent first put of the same key makes our INSERT do nothing; the row is then
      // there to lock on the next round.
      for (int round = 0;; ++round) {
        int64_t now = unixNow();
        auto current = tx.exec(
            "SELECT object, created_at, updated_at, size FROM storage.blobs "
            "WHERE project_id = $1 AND space = $2 AND key = $3 FOR UPDATE",
            project_id, space, key);
        if (current.rows() > 0) {
          if (limits)
            Quotas::check(tx, *limits, project_id, space, record.size, current.get<int64_t>(0, 3));
          replaced = current.get<std::string>(0, 0);
          record.created_at = current.get<int64_t>(0, 1);
          record.updated_at = std::max(now, current.get<int64_t>(0, 2) + 1);
          tx.exec(
              "UPDATE storage.blobs SET object = $4, size = $5, content_type = $6, sha256 = $7, "
              "updated_at = $8 WHERE project_id = $1 AND space = $2 AND key = $3",
              project_id, space, key, object, record.size, content_type, record.sha256,
              record.updated_at);
          break;
        }
        if (limits) Quotas::check(tx, *limits, project_id, space, record.size, std::nullopt);
        record.created_at = record.updated_at = now;
        auto inserted = tx.exec(
            "INSERT INTO storage.blobs (project_id, space, key, object, size, content_type, "
            "sha256, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) "
            "ON CONFLICT (project_id, space, key) DO NOTHING RETURNING 1",
            project_id, space, key, object, record.size, content_type, record.sha256,
            record.created_at);
        if (inserted.rows() == 1) break;
        if (round >= 3) throw Error::unavailable("the blob is being written by others; try again");
      }
      // Dated before it is visible, so the first reader already sees the final ETag.
      backend_.setModified(object, record.updated_at);
    });
  } catch (const BackendError& e) {
    removeQuietly(log, object, "its publication failed");
    throw notStored(e, log, object);
  } catch (...) {
    removeQuietly(log, object, "its publication failed");
    throw;
  }
  served_.clear();  // before the old object goes, so nothing remembered points at it
  usage_.changed(project_id);
  if (replaced) removeQuietly(log, *replaced, "it was replaced");
  return record;
}

void BlobStore::removeQuietly(const LogTo& log, const std::string& object,
                              const std::string& why) const {
  try {
    backend_.remove(object);
  } catch (const std::exception& e) {
    // The sweep will find it: no row refers to it.
    log.warn("object " + object + " (" + why + ") was not removed: " + e.what());
  }
}

std::optional<BlobRecord> BlobStore::find(const std::string& project_id, const std::string& space,
                                          const std::string& key) const {
  auto r = services_.db().exec(std::string("SELECT ") + kColumns +
                                   " FROM storage.blobs WHERE project_id = $1 AND space = $2 "
                                   "AND key = $3",
                               project_id, space, key);
  if (r.rows() == 0) return std::nullopt;
  return recordAt(r, 0);
}

std::optional<BlobRecord> BlobStore::findServed(const std::string& project_id,
                                                const std::string& space, const std::string& key) {
  std::string cache_key = project_id + '\n' + space + '\n' + key;
  if (auto hit = served_.find(cache_key)) return *hit;
  auto ticket = served_.ticket();
  std::optional<BlobRecord> found = find(project_id, space, key);
  served_.store(cache_key, found, ticket);
  return found;
}

std::vector<BlobRecord> BlobStore::list(const std::string& project_id, const std::string& space,
                                        const std::string& prefix, const std::string& after,
                                        int64_t limit) const {
  // key is COLLATE "C": byte order, and `key >= prefix` starts the index scan at the prefix.
  auto r = services_.db().exec(
      std::string("SELECT ") + kColumns +
          " FROM storage.blobs WHERE project_id = $1 AND space = $2 AND key >= $3 "
          "AND starts_with(key, $3) AND key > $4 ORDER BY key LIMIT $5",
      project_id, space, prefix, after, limit);
  std::vector<BlobRecord> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int64_t i = 0; i < r.rows(); ++i) out.push_back(recordAt(r, i));
  return out;
}

bool BlobStore::remove(const LogTo& log, const std::string& project_id, const std::string& space,
                       const std::string& key) {
  auto r = services_.db().exec(
      "DELETE FROM storage.blobs WHERE project_id = $1 AND space = $2 AND key = $3 "
      "RETURNING object",
      project_id, space, key);
  if (r.rows() == 0) return false;
  served_.clear();
  usage_.changed(project_id);
  removeQuietly(log, r.get<std::string>(0, 0), "its blob was deleted");
  return true;
}

int64_t BlobStore::removePrefix(const LogTo& log, const std::string& project_id,
                                const std::string& space, const std::string& prefix) {
  auto r = services_.db().exec(
      "DELETE FROM storage.blobs WHERE project_id = $1 AND space = $2 AND key >= $3 "
      "AND starts_with(key, $3) RETURNING object",
      project_id, space, prefix);
  if (r.rows() > 0) {
    served_.clear();
    usage_.changed(project_id);
  }
  for (int64_t i = 0; i < r.rows(); ++i)
    removeQuietly(log, r.get<std::string>(i, 0), "its blob was deleted");
  return r.rows();
}

void BlobStore::removeProject(const std::string& project_id, const std::string& project_name) {
  auto log = services_.logger().withProject(project_name);
  served_.clear();  // its objects go now, whatever the backend answers
  try {
    backend_.removeGroup(project_id);
  } catch (const BackendError& e) {
    log.error(std::string("blobs not removed: ") + e.what());
    throw Error::badGateway("object storage did not confirm removal; try again");
  }
  auto removed = services_.db().exec("DELETE FROM storage.blobs WHERE project_id = $1 RETURNING 1",
                                     project_id);
  served_.clear();  // and what a reader remembered meanwhile
  usage_.changed(project_id);
  if (removed.rows() > 0)
    log.info("removed the project's " + std::to_string(removed.rows()) + " blobs");
}

std::map<std::string, FileUsage> BlobStore::fileUsage(
    const std::vector<std::string>& project_ids) const {
  if (project_ids.empty()) return {};
  // A project without files is kept too, as FileUsage{} (getMany gives it to what load left out).
  std::map<std::string, FileUsage> usage =
      usage_.getMany(project_ids, [this](const std::vector<std::string>& missing) {
        auto r = services_.db().exec(
            "SELECT project_id, count(*), coalesce(sum(size), 0) FROM storage.blobs "
            "WHERE space = $2 AND project_id IN (SELECT jsonb_array_elements_text($1::jsonb)) "
            "GROUP BY project_id",
            nlohmann::json(missing), std::string(kFilesSpace));
        std::map<std::string, FileUsage> read;
        for (int64_t i = 0; i < r.rows(); ++i)
          read[r.get<std::string>(i, 0)] = FileUsage{r.get<int64_t>(i, 1), r.get<int64_t>(i, 2)};
        return read;
      });
  std::erase_if(usage, [](const auto& entry) { return entry.second.count == 0; });
  return usage;
}

size_t BlobStore::sweep(int64_t cutoff, const std::function<bool()>& stop) {
  constexpr size_t kBatch = 500;
  size_t removed = 0;
  for (const auto& group : backend_.groups()) {
    if (stop()) break;
    std::vector<ListedObject> old;
    for (auto& listed : backend_.list(group))
      if (listed.modified < cutoff) old.push_back(std::move(listed));
    for (size_t start = 0; start < old.size(); start += kBatch) {
      nlohmann::json names = nlohmann::json::array();
      for (size_t i = start; i < std::min(old.size(), start + kBatch); ++i)
        names.push_back(old[i].object);
      auto known = services_.db().exec(
          "SELECT object FROM storage.blobs "
          "WHERE object IN (SELECT jsonb_array_elements_text($1::jsonb))",
          names);
      std::set<std::string> referenced;
      for (int64_t i = 0; i < known.rows(); ++i) referenced.insert(known.get<std::string>(i, 0));
      for (const auto& name : names) {
        std::string object = name.get<std::string>();
        if (referenced.count(object) > 0) continue;
        try {
          backend_.remove(object);
          ++removed;
        } catch (const std::exception& e) {
          services_.logger().withProject(group).warn("sweep: object " + object +
                                                     " was not removed: " + e.what());
        }
      }
    }
  }
  return removed;
}

std::string BlobStore::read(const LogTo& log, const BlobRecord& record, uint64_t offset,
                            uint64_t length) const {
  try {
    return backend_.read(record.object, offset, length);
  } catch (const BackendError& e) {
    log.error("object " + record.object + " could not be read: " + e.what());
    throw Error::badGateway("object storage did not return the blob; try again");
  }
}

}  // namespace berth::storage
