// SPDX-License-Identifier: MIT
/** @file
 *  berth::LookupCache<Value>: a small read-through memory for lookups read far more often than
 *  they change (which project a host is, the blob behind a public file). Header-only, no ABI.
 *
 *  The rules, written once here for every user:
 *  - Expiry: an entry answers for the cache's lifetime after it was stored, then find() misses
 *    and the caller asks its source again. An expired entry stays (findAny() still sees it)
 *    until it is replaced, forgotten, or the cache starts over.
 *  - A read that raced a change keeps nothing: a reader takes a ticket() before it asks the
 *    source, and store() refuses the answer when anything was forgotten since (every forget
 *    moves the generation on), so an answer read before a change never outlives it.
 *  - Bounded: storing a new key in a full cache (max_entries) empties it first rather than
 *    growing, so a flood of made-up keys costs source reads, not memory.
 *
 *  To remember an absence too, make Value a std::optional<T> and store std::nullopt.
 *
 *  THREADING: every member may be called from any thread.
 */
#ifndef BERTH_LOOKUP_CACHE_HPP
#define BERTH_LOOKUP_CACHE_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace berth {

template <class Value>
class LookupCache {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Clock = std::function<TimePoint()>;

  /** What a reader holds while it asks the source: pass it to store(). */
  struct Ticket {
    uint64_t generation = 0;
  };

  /** @param clock the time entries expire by (a test's own; steady_clock otherwise). */
  LookupCache(
      std::chrono::steady_clock::duration lifetime, size_t max_entries,
      Clock clock = [] { return std::chrono::steady_clock::now(); })
      : lifetime_(lifetime), max_entries_(max_entries), clock_(std::move(clock)) {}

  /** The value stored under `key` less than the lifetime ago; std::nullopt otherwise. */
  std::optional<Value> find(const std::string& key) const {
    const TimePoint now = clock_();
    std::lock_guard lock(mutex_);
    auto found = entries_.find(key);
    if (found == entries_.end() || expired(found->second, now)) return std::nullopt;
    return found->second.value;
  }

  /** The first entry's value, expired or not, for which `matches(value)` holds. */
  template <class Matches>
  std::optional<Value> findAny(Matches matches) const {
    std::lock_guard lock(mutex_);
    for (const auto& [key, entry] : entries_)
      if (matches(entry.value)) return entry.value;
    return std::nullopt;
  }

  Ticket ticket() const {
    std::lock_guard lock(mutex_);
    return {generation_};
  }

  /** Keeps `value` under `key` for the lifetime, unless something was forgotten since
   *  `ticket` was taken. @return whether it was kept. */
  bool store(const std::string& key, Value value, Ticket ticket) {
    const TimePoint expires = clock_() + lifetime_;
    std::lock_guard lock(mutex_);
    if (ticket.generation != generation_) return false;
    if (entries_.size() >= max_entries_ && !entries_.contains(key)) entries_.clear();
    entries_.insert_or_assign(key, Entry{std::move(value), expires});
    return true;
  }

  /** Drops one key. */
  void forget(const std::string& key) {
    std::lock_guard lock(mutex_);
    ++generation_;
    entries_.erase(key);
  }

  /** Drops every entry whose value `matches`. */
  template <class Matches>
  void forgetIf(Matches matches) {
    std::lock_guard lock(mutex_);
    ++generation_;
    for (auto it = entries_.begin(); it != entries_.end();)
      it = matches(it->second.value) ? entries_.erase(it) : std::next(it);
  }

  /** Something changed that any entry may depend on: drops them all. */
  void clear() {
    std::lock_guard lock(mutex_);
    ++generation_;
    entries_.clear();
  }

  /** Entries held, expired ones included. */
  size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    Value value;
    TimePoint expires;
  };

  static bool expired(const Entry& entry, TimePoint now) { return entry.expires <= now; }

  std::chrono::steady_clock::duration lifetime_;
  size_t max_entries_;
  Clock clock_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  uint64_t generation_ = 0;  // moved on by every forget
};

}  // namespace berth

#endif  // BERTH_LOOKUP_CACHE_HPP
