// The S3-compatible backend: objects in a bucket (MinIO, Garage, Ceph RGW, AWS S3, R2...),
// named "<project id>/<32 hex>" as the plugin gives them, plus a read-only cache of objects
// under <root> (inside data_dir) so that the edge can still send /_files/ with sendfile.
//
//   bucket:  <group>/<id>                                 one object per blob version
//   <root>/cache/<group>/<first two hex of id>/<id>      local copies, mode 0644
//   <root>/tmp/<random>.part                             copies being filled
//
// Atomicity: a PutObject makes the object appear whole or not at all, and a version is never
// rewritten (a replace is a new object, the old one removed after the commit), so the local
// backend's rules hold as they are. A put that the store does not confirm (a status that is
// not 2xx, a refused connection, a timeout) throws BackendError, which the store answers 502,
// and nothing is published.
//
// The cache is filled on first use (localCopy) by a streamed GetObject into a temporary,
// verified against the blob's size and SHA-256 (the row's, and the x-amz-meta-sha256 the put
// stored), dated with the blob's updated_at (the edge's Last-Modified and ETag) and renamed
// into place; an upload that moved the edge's spooled body keeps that file as the copy, so the
// next GET does not download what was just sent. Objects are immutable, so a copy never goes
// stale; it goes with its object (remove, removeGroup), or when the copies pass their bound
// (storage.s3_cache_mb): the least recently used are evicted after a fill (copy_cache.hpp) and
// fetched again by the next read that needs them.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>

#include "blob_backend.hpp"
#include "copy_cache.hpp"
#include "s3_client.hpp"

namespace berth::storage {

class S3Backend final : public BlobBackend {
 public:
  static constexpr uint64_t kDefaultCacheBytes = uint64_t{1024} << 20;
  // A copy used this recently is never evicted: its path may have been handed to a response
  // that has not opened it yet (copy_cache.hpp).
  static constexpr std::chrono::milliseconds kDefaultGrace{1000};

  // `root`: the folder of the local cache (absolute; inside data_dir). Creates <root>/cache and
  // <root>/tmp, counts the copies an earlier run left there and evicts down to `cache_bytes`.
  // Does not contact the store (see probe()). @throw BackendError.
  S3Backend(S3Settings settings, std::string root, uint64_t cache_bytes = kDefaultCacheBytes,
            std::chrono::milliseconds grace = kDefaultGrace);

  // Lists the bucket once, so that a wrong endpoint, bucket or credentials stop the start with
  // the store's answer. @throw BackendError.
  void probe() const;

  std::string kind() const override { return "s3"; }
  StoredObject putFile(const std::string& object, const std::string& source, bool move) override;
  StoredObject putBytes(const std::string& object, std::string_view bytes) override;
  void setModified(const std::string& object, int64_t unix_seconds) override;
  std::optional<std::string> localPath(const std::string&) const override { return std::nullopt; }
  std::optional<std::string> localCopy(const std::string& object, const StoredObject& expected,
                                       int64_t modified) const override;
  std::optional<std::string> copyPlace(const std::string& object) const override {
    return cachePath(object);
  }
  std::string read(const std::string& object, uint64_t offset, uint64_t length) const override;
  void remove(const std::string& object) override;
  void removeGroup(const std::string& group) override;
  std::vector<std::string> groups() const override;
  std::vector<ListedObject> list(const std::string& group) const override;
  size_t cleanTemporary(int64_t before) override;

  const S3Client& client() const { return client_; }
  std::string cacheDir() const { return root_ + "/cache"; }
  std::string temporaryDir() const { return root_ + "/tmp"; }
  // Where the object's local copy is (whether or not it is there).
  std::string cachePath(const std::string& object) const;
  // The bytes and number of local copies the bound counts.
  uint64_t cachedBytes() const { return cache_->bytes(); }
  size_t cachedCopies() const { return cache_->copies(); }
  // Called (on the thread that filled) after copies were evicted, with how many: the plugin
  // sweeps the edge tree, whose hard links would otherwise keep the evicted bytes on disk.
  void onEvicted(std::function<void(size_t)> listener) { on_evicted_ = std::move(listener); }

 private:
  void keepAsCopy(const std::string& object, const std::string& source) const;
  // Records a new copy and evicts when the bound is passed.
  void addedCopy(const std::string& path, uint64_t size) const;

  S3Client client_;
  std::string root_;
  dev_t device_ = 0;
  std::unique_ptr<CopyCache> cache_;
  std::function<void(size_t)> on_evicted_;
};

}  // namespace berth::storage
