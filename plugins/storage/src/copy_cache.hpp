// The bound on the S3 backend's local copies (storage.s3_cache_mb): an index of the copies
// under <root>/cache in order of last use, and the eviction of the least recently used ones
// when their total passes the bound.
//
// Why an index of its own: the copies' mtime is the blob's time (the edge's Last-Modified and
// ETag) and atime is not kept on a relatime mount, so neither file time records a use. The
// index lives in memory and is rebuilt from the folder at start (files left by an earlier run
// count; their order is their atime, the best record there is), then the bound is applied.
//
// Cost on the request path: a use is a hash lookup and a list splice under a mutex. Eviction
// runs after a copy is added (a fill, or an upload kept as the copy), and then removes copies
// until the total is a tenth below the bound, so the next few fills evict nothing; a use
// evicts only while the total is still past the bound (copies the grace kept).
//
// Serving while evicting: a copy is removed with unlink(). A response already sending it (the
// edge's sendfile, berthd's file answer) holds an open descriptor, and on Linux an unlinked
// file's bytes stay readable through it until it is closed, so nothing in flight breaks. The
// only response that could break is one that has been handed the path but not opened it yet;
// a copy used less than `grace` ago is therefore never evicted (the bound may be passed for
// that long). The edge's hard link to an evicted copy keeps its inode; the plugin sweeps the
// edge tree after an eviction (see S3Backend::onEvicted), so the disk is freed too.
#pragma once
#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

namespace berth::storage {

class CopyCache {
 public:
  using Clock = std::chrono::steady_clock;

  // Indexes the regular files under `dir` and evicts down to the bound.
  CopyCache(std::string dir, uint64_t limit_bytes, std::chrono::milliseconds grace);

  // A copy was found and is about to be served: it becomes the most recently used. False when
  // the index does not know it (the caller checks the file, then calls added()).
  bool used(const std::string& path);
  // A copy was put in place (or found unindexed); true when the total is past the bound.
  bool added(const std::string& path, uint64_t size);
  // A copy was removed with its object.
  void forgotten(const std::string& path);
  // Every copy under `dir` (a project's folder) was removed.
  void forgottenUnder(const std::string& dir);
  // Removes least recently used copies (older than the grace) until the total is below the
  // low-water mark; returns how many were removed.
  size_t evict();

  // The total is past the bound (copies were kept over it for their grace).
  bool over() const;
  uint64_t bytes() const;
  size_t copies() const;
  uint64_t limit() const { return limit_; }

 private:
  struct Entry {
    std::string path;
    uint64_t size = 0;
    Clock::time_point last_use;
  };
  void eraseLocked(std::list<Entry>::iterator it);

  std::string dir_;
  uint64_t limit_;
  std::chrono::milliseconds grace_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  uint64_t bytes_ = 0;
};

}  // namespace berth::storage
