/** Answers read from the control-plane database, kept in memory between requests and dropped
 *  when the rows behind them change: header-only (no ABI, no libpq).
 *
 *  Correctness before speed, as the core's auth cache does it: triggers on the tables behind
 *  the answers send NOTIFY <channel> with the key whose answer changed ("*" or "" for all)
 *  when the change commits, so another node, an admin command or an operator's own SQL count
 *  too. The core LISTENs on the channel for the plugin (<berth/pg_notify.hpp>) and this drops
 *  what the payload names. While the core is not listening (not started yet, connecting, or the
 *  connection lost) nothing is kept and every call reads the database. A change made on this
 *  node is dropped at once by calling changed(key) after it commits, so the caller's next read
 *  sees it without waiting for the notification. A generation counter keeps a read that raced
 *  with a change from putting its older answer back.
 *
 *  THREADING: every member may be called from any thread. */
#pragma once
#include <berth/pg_notify.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace berth {

template <class Value>
class KeptAnswers {
 public:
  /** channel: a lower-case identifier (<berth/pg_notify_events.hpp>). A full cache is emptied
   *  rather than grown past max_entries. */
  explicit KeptAnswers(std::string channel, size_t max_entries = 10000)
      : channel_(std::move(channel)), max_entries_(max_entries) {}
  KeptAnswers(const KeptAnswers&) = delete;
  KeptAnswers& operator=(const KeptAnswers&) = delete;

  /** Registers the hooks through which the core tells of changes on the channel: call in
   *  registerAll. Nothing is kept until the core listens (after every plugin started). */
  void listen(Registrar& r) { listenTo(r, channel_, callbacks()); }

  /** The same for answers kept by an object made in start(): `find()` returns the KeptAnswers,
   *  or nullptr while there is none. */
  template <class Find>
  static void listen(Registrar& r, const std::string& channel, Find find) {
    listenTo(r, channel,
             PgNotifyCallbacks{
                 .listening = [find] { forward(find(), &KeptAnswers::heardListening); },
                 .notified =
                     [find](std::string_view payload) {
                       if (KeptAnswers* kept = find()) kept->heard(payload);
                     },
                 .notListening = [find] { forward(find(), &KeptAnswers::heardNotListening); },
             });
  }

  /** What the core tells (the callbacks listen() registers). */
  void heardListening() {
    dropAll();  // anything may have changed while nobody listened
    listening_ = true;
  }
  void heard(std::string_view key) {
    if (key.empty() || key == "*")
      dropAll();
    else
      changed(std::string(key));
  }
  void heardNotListening() {
    listening_ = false;
    dropAll();
  }

  /** Keeps nothing more until the core listens again (a plugin's stop()). */
  void stop() { heardNotListening(); }

  const std::string& channel() const { return channel_; }

  bool listening() const { return listening_.load(); }

  /** The kept answer, without reading anything (for a thread that must not wait). */
  std::optional<Value> kept(const std::string& key) {
    if (!listening_) return std::nullopt;
    std::lock_guard lock(mutex_);
    auto it = kept_.find(key);
    if (it == kept_.end()) return std::nullopt;
    return it->second;
  }

  /** The kept answer, else load() (which reads the database) kept for next time. */
  template <class Load>
  Value get(const std::string& key, Load&& load) {
    uint64_t generation = 0;
    if (listening_) {
      std::lock_guard lock(mutex_);
      auto it = kept_.find(key);
      if (it != kept_.end()) return it->second;
      generation = generation_;
    }
    Value value = load();
    keep(generation, {{key, value}});
    return value;
  }

  /** Answers for every key: the kept ones, and the rest from one load(missing keys), which
   *  returns a map from key to answer (a key it leaves out gets Value{}). */
  template <class LoadMany>
  std::map<std::string, Value> getMany(const std::vector<std::string>& keys, LoadMany&& load) {
    std::map<std::string, Value> out;
    std::vector<std::string> missing;
    uint64_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      generation = generation_;
      for (const auto& key : keys) {
        auto it = listening_ ? kept_.find(key) : kept_.end();
        if (it != kept_.end())
          out.emplace(key, it->second);
        else
          missing.push_back(key);
      }
    }
    if (missing.empty()) return out;
    std::map<std::string, Value> loaded = load(missing);
    for (const auto& key : missing) loaded.try_emplace(key);  // Value{} for what it left out
    keep(generation, loaded);
    out.merge(loaded);
    return out;
  }

  /** The answer for `key` changed here: drop it now rather than when the notification comes. */
  void changed(const std::string& key) {
    std::lock_guard lock(mutex_);
    ++generation_;
    kept_.erase(key);
  }

  void dropAll() {
    std::lock_guard lock(mutex_);
    ++generation_;
    kept_.clear();
  }

 private:
  // Keeps answers read since `generation`, unless something changed meanwhile: the read may
  // have begun before that change committed, so its answer may be older.
  void keep(uint64_t generation, const std::map<std::string, Value>& answers) {
    if (!listening_) return;
    std::lock_guard lock(mutex_);
    if (generation != generation_ || !listening_) return;
    if (kept_.size() + answers.size() > max_entries_) kept_.clear();
    for (const auto& [key, value] : answers) kept_[key] = value;
  }

  std::string channel_;
  size_t max_entries_;
  std::atomic<bool> listening_{false};
  std::mutex mutex_;
  uint64_t generation_ = 0;  // under mutex_: bumped by every change
  std::unordered_map<std::string, Value> kept_;

  PgNotifyCallbacks callbacks() {
    return {.listening = [this] { heardListening(); },
            .notified = [this](std::string_view key) { heard(key); },
            .notListening = [this] { heardNotListening(); }};
  }
  static void forward(KeptAnswers* kept, void (KeptAnswers::*heard)()) {
    if (kept != nullptr) (kept->*heard)();
  }
};

}  // namespace berth
