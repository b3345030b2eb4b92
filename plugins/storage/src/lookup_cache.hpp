// A small read-through cache for lookups that are read far more often than they change (the
// blob behind GET /_files/<path>): hits and misses are kept for a short lifetime, and every
// change empties it. A reader that looked the value up while a change happened does not
// store what it read (the ticket tells), so an emptied cache never takes a stale value back.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace berth::storage {

template <class Value>
class LookupCache {
 public:
  using Clock = std::chrono::steady_clock;

  LookupCache(Clock::duration lifetime, size_t max_entries)
      : lifetime_(lifetime), max_entries_(max_entries) {}

  // What a reader holds while it asks the source.
  struct Ticket {
    uint64_t generation = 0;
  };

  // A hit: the value, or std::nullopt for a remembered absence. A miss: std::nullopt outside.
  std::optional<std::optional<Value>> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto found = entries_.find(key);
    if (found == entries_.end()) return std::nullopt;
    if (found->second.expires <= Clock::now()) {
      entries_.erase(found);
      return std::nullopt;
    }
    return found->second.value;
  }

  Ticket ticket() const {
    std::lock_guard lock(mutex_);
    return {generation_};
  }

  // Remembers what the source said, unless the cache was emptied since the ticket.
  void store(const std::string& key, std::optional<Value> value, Ticket ticket) {
    std::lock_guard lock(mutex_);
    if (ticket.generation != generation_) return;
    if (entries_.size() >= max_entries_) entries_.clear();
    entries_[key] = Entry{std::move(value), Clock::now() + lifetime_};
  }

  // Something changed: forget everything.
  void clear() {
    std::lock_guard lock(mutex_);
    ++generation_;
    entries_.clear();
  }

  size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::optional<Value> value;
    Clock::time_point expires;
  };

  Clock::duration lifetime_;
  size_t max_entries_;
  mutable std::mutex mutex_;
  uint64_t generation_ = 0;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace berth::storage
