// A look, from the database's side, at the LISTEN connection of berthd (the core's one, which
// hands plugins their channels' notifications, is named `berth listen`): which backend it is,
// and what a cache kept by it answers while that connection is cut and made again.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "db/pool.hpp"

namespace berth::testing {

class ListenerProbe {
 public:
  ListenerProbe(core::Pool& db, std::string channel) : db_(db), channel_(std::move(channel)) {}

  // The backend listening on the channel, newest first, other than `other_than`; "" for none.
  std::string pid(const std::string& other_than = "") const {
    return value(
        "SELECT pid::text FROM pg_stat_activity WHERE application_name IN ('berth listen', "
        "'berth listen ' || $1) AND pid::text <> $2 ORDER BY backend_start DESC LIMIT 1",
        {channel_, other_than});
  }

  // Waits until berthd listens; false after `limit`.
  bool waitListening(std::chrono::seconds limit = std::chrono::seconds(20)) const {
    return until([&] { return !pid().empty(); }, limit);
  }

  // What `read` answers while the listening connection is cut, `change` made once its backend
  // is gone (so its notification reaches nobody), until berthd listens again. The core's
  // listener notices the loss, tells the plugins (they stop keeping), waits 1 s, then connects
  // again: a read sent at least 0.9 s
  // before the new backend started came after the loss was noticed, so it, and the read made
  // once listening again, are returned; earlier ones, which nothing promises, are not. Empty
  // when berthd did not listen again within 15 s.
  template <class T>
  std::vector<T> readsAfterCut(const std::function<void()>& change,
                               const std::function<T()>& read) const {
    const std::string old_pid = pid();
    if (old_pid.empty()) return {};
    value("SELECT pg_terminate_backend($1::int)::text", {old_pid});
    until(
        [&] {
          return value("SELECT count(*)::text FROM pg_stat_activity WHERE pid = $1::int",
                       {old_pid}) == "0";
        },
        std::chrono::seconds(10));
    change();
    struct Seen {
      double sent_at;  // the database's clock just before the read
      T answer;
    };
    std::vector<Seen> seen;
    std::string new_pid;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (new_pid.empty() && std::chrono::steady_clock::now() < deadline) {
      double sent_at = std::stod(value("SELECT extract(epoch FROM clock_timestamp())::text"));
      seen.push_back({sent_at, read()});
      new_pid = pid(old_pid);
      if (new_pid.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (new_pid.empty()) return {};
    const double reconnected = std::stod(value(
        "SELECT extract(epoch FROM backend_start)::text FROM pg_stat_activity WHERE pid = $1::int",
        {new_pid}));
    std::vector<T> judged;
    for (auto& s : seen)
      if (s.sent_at >= reconnected - 0.9) judged.push_back(std::move(s.answer));
    judged.push_back(read());
    return judged;
  }

 private:
  std::string value(const std::string& sql, const std::vector<core::Param>& params = {}) const {
    core::PgResult r = db_.exec(sql, params);
    return PQntuples(r.get()) > 0 && !PQgetisnull(r.get(), 0, 0) ? PQgetvalue(r.get(), 0, 0) : "";
  }
  static bool until(const std::function<bool()>& pred, std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  core::Pool& db_;
  std::string channel_;
};

}  // namespace berth::testing
