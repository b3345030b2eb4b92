// Each project's data API settings (data_api_store.hpp), kept in memory between /_data requests:
// reading them cost every request a round trip to the control-plane database, a third of a
// by-id read's time.
//
// Correctness before speed, as the core's auth cache does it: every change to the settings
// tables sends NOTIFY berth_data_api with the project's id when it commits (triggers of
// migration 0002, so another node, an admin command or an operator's own SQL count too), and a
// thread here LISTENs on its own connection and drops that project's entry. A rotated key or a
// closed table stops working on every node as soon as the notification arrives (milliseconds),
// and on this node at once (the settings routes call changed()). While the listening
// connection is down nothing is kept: every request reads the database. A generation counter
// keeps a read that raced with a change from putting its older answer back.
#pragma once
#include <berth/pg_listener.hpp>
#include <berth/plugin.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "data_api_store.hpp"

namespace berth::sqlconsole {

class DataApiGrants {
 public:
  DataApiGrants() = default;
  ~DataApiGrants();  // stops listening
  DataApiGrants(const DataApiGrants&) = delete;
  DataApiGrants& operator=(const DataApiGrants&) = delete;

  // Listens on the control-plane database at `database_url`; until it does, nothing is kept.
  void start(std::string database_url, berth::Logger logger);
  void stop();

  // The project's settings, kept or read.
  DataApiGrant get(const berth::Db& db, const std::string& project_id);
  // Only when kept (for a core thread, which must not wait on the database).
  std::optional<DataApiGrant> kept(const std::string& project_id);
  // The project's settings changed here: drop them now rather than when the notification comes.
  void changed(const std::string& project_id);

 private:
  static constexpr size_t kMaxEntries = 10000;

  void dropAll();

  std::atomic<bool> listening_{false};
  std::mutex mutex_;
  uint64_t generation_ = 0;  // under mutex_: bumped by every change
  std::unordered_map<std::string, DataApiGrant> kept_;
  std::unique_ptr<berth::PgListener> listener_;
};

}  // namespace berth::sqlconsole
