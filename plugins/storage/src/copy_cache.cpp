#include "copy_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <tuple>
#include <vector>

namespace berth::storage {

namespace fs = std::filesystem;

CopyCache::CopyCache(std::string dir, uint64_t limit_bytes, std::chrono::milliseconds grace)
    : dir_(std::move(dir)), limit_(limit_bytes), grace_(grace) {
  // (atime, path, size) of what an earlier run left, oldest use first.
  std::vector<std::tuple<int64_t, std::string, uint64_t>> found;
  std::error_code error;
  for (fs::recursive_directory_iterator
           it(dir_, fs::directory_options::skip_permission_denied, error),
       end;
       !error && it != end; it.increment(error)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    int64_t atime = static_cast<int64_t>(st.st_atim.tv_sec) * 1000000000 + st.st_atim.tv_nsec;
    found.emplace_back(atime, it->path().string(), static_cast<uint64_t>(st.st_size));
  }
  std::sort(found.begin(), found.end());
  // Pushed to the front in order of use: the most recent ends first. They are dated at the
  // clock's epoch, older than any grace: nothing of an earlier run is being served by this one.
  for (auto& [atime, path, size] : found) {
    order_.push_front({std::move(path), size, Clock::time_point{}});
    index_[order_.front().path] = order_.begin();
    bytes_ += size;
  }
  if (bytes_ > limit_) evict();
}

bool CopyCache::used(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(path);
  if (it == index_.end()) return false;
  it->second->last_use = Clock::now();
  order_.splice(order_.begin(), order_, it->second);
  return true;
}

bool CopyCache::added(const std::string& path, uint64_t size) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(path);
  if (it != index_.end()) eraseLocked(it->second);
  order_.push_front({path, size, Clock::now()});
  index_[path] = order_.begin();
  bytes_ += size;
  return bytes_ > limit_;
}

void CopyCache::eraseLocked(std::list<Entry>::iterator it) {
  bytes_ -= it->size;
  index_.erase(it->path);
  order_.erase(it);
}

void CopyCache::forgotten(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(path);
  if (it != index_.end()) eraseLocked(it->second);
}

void CopyCache::forgottenUnder(const std::string& dir) {
  std::string prefix = dir.ends_with('/') ? dir : dir + "/";
  std::lock_guard lock(mutex_);
  for (auto it = order_.begin(); it != order_.end();) {
    auto next = std::next(it);
    if (it->path.starts_with(prefix)) eraseLocked(it);
    it = next;
  }
}

size_t CopyCache::evict() {
  std::lock_guard lock(mutex_);
  if (bytes_ <= limit_) return 0;
  uint64_t low_water = limit_ - limit_ / 10;
  Clock::time_point recent = Clock::now() - grace_;
  size_t removed = 0;
  while (bytes_ > low_water && !order_.empty()) {
    auto oldest = std::prev(order_.end());
    // Everything after it in the list was used later still: nothing more can go now.
    if (grace_.count() > 0 && oldest->last_use > recent) break;
    // unlink, not truncate: a descriptor already open (the edge mid-sendfile) keeps the bytes.
    if (::unlink(oldest->path.c_str()) == 0 || errno == ENOENT) ++removed;
    eraseLocked(oldest);
  }
  return removed;
}

bool CopyCache::over() const {
  std::lock_guard lock(mutex_);
  return bytes_ > limit_;
}

uint64_t CopyCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t CopyCache::copies() const {
  std::lock_guard lock(mutex_);
  return index_.size();
}

}  // namespace berth::storage
