#include "cluster/auth_nodes.hpp"

#include <unistd.h>

#include <algorithm>

#include "auth/accounts.hpp"
#include "auth/auth_cache.hpp"
#include "cluster/live_nodes.hpp"
#include "log/logging.hpp"

namespace berth::core {

namespace {

using Clock = std::chrono::steady_clock;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

InForce waitUntilInForce(Pool& pool, std::chrono::milliseconds bound) {
  const auto start = Clock::now();
  InForce out;
  out.change = std::stoll(pool.exec("SELECT n FROM core.auth_changes").value(0, 0));
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    auto r = pool.exec(
        "SELECT id, host, pid, applied, heartbeat_at::text, "
        "(extract(epoch FROM now() - heartbeat_at) * 1000)::bigint FROM core.nodes ORDER BY id");
    std::vector<std::string> waiting;
    int confirmed = 0;
    for (int i = 0; i < r.rows(); ++i) {
      if (std::stoll(r.value(i, 3)) >= out.change) {
        ++confirmed;
        continue;
      }
      std::string name = r.value(i, 1) + " pid " + r.value(i, 2);
      // kGoneAfter exceeds the node's kCacheLease by a second: that covers a node paused
      // between its lease check and its answer for up to a second, no longer.
      if (std::stoll(r.value(i, 5)) > kGoneAfter.count()) {
        // Removed only if it has not beaten since we looked: a beat that began before the
        // change's commit gave it a lease that has run out by now; any later beat sees the row
        // gone and empties its cache before it serves from it again.
        auto removed = pool.exec(
            "DELETE FROM core.nodes WHERE id = $1 AND heartbeat_at = $2::timestamptz "
            "AND applied < $3",
            {r.value(i, 0), r.value(i, 4), std::to_string(out.change)});
        if (removed.affected() > 0) {
          out.gone.push_back(name);
          continue;
        }
      }
      waiting.push_back(name);
    }
    out.waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (waiting.empty()) {
      out.confirmed = confirmed;
      return out;
    }
    if (out.waited >= bound)
      throw NotInForce("the change is saved, but " + joined(waiting) +
                       " did not confirm it within " + std::to_string(bound.count()) +
                       " ms while its heartbeat is fresh: until it does (or " +
                       "its heartbeat is " + std::to_string(kGoneAfter.count() / 1000) +
                       " s old), that node may still accept what was revoked");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

NodeHeartbeat::NodeHeartbeat(std::string database_url, AuthCache& cache)
    : cache_(cache),
      pool_(std::move(database_url), 1, std::chrono::seconds(2)),
      id_(randomHex(8)),
      host_(hostName()) {
  setThisNodeId(id_);
}

NodeHeartbeat::~NodeHeartbeat() {
  stop();
}

void NodeHeartbeat::start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { loop(); });
}

void NodeHeartbeat::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (!thread_.joinable()) return;
  thread_.join();
  cache_.endLease();
  try {
    // A clean stop: the others need not wait for this node any more.
    pool_.exec("DELETE FROM core.nodes WHERE id = $1", {id_});
  } catch (const std::exception&) {
    // Unreachable: the row goes stale and the next revoke finds it gone.
  }
}

void NodeHeartbeat::wake() {
  { std::lock_guard lock(mutex_); }  // a waiting loop is in wait_for, or sees the new value
  wake_.notify_all();
}

void NodeHeartbeat::loop() {
  auto log = getLogger("core");
  bool failing = false;
  for (;;) {
    try {
      beat();
      if (failing)
        logLine(*log, spdlog::level::info, "", "", "node heartbeat works again; auth cache on");
      failing = false;
    } catch (const std::exception& e) {
      if (!failing)
        logLine(*log, spdlog::level::warn, "", "",
                std::string("node heartbeat failed (") + e.what() +
                    "); the auth cache turns off until it works again");
      failing = true;
    }
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, kHeartbeatEvery,
                   [&] { return stopping_ || (!failing && cache_.applied() > written_); });
    if (stopping_) return;
  }
}

void NodeHeartbeat::beat() {
  // The lease counts from before the beat is sent: the heartbeat the others read is later.
  const auto began = Clock::now();
  const int64_t applied = cache_.applied();
  auto r = pool_.exec(
      "UPDATE core.nodes SET heartbeat_at = now(), applied = GREATEST(applied, $2) "
      "WHERE id = $1 RETURNING (SELECT n FROM core.auth_changes)",
      {id_, std::to_string(applied)});
  bool inserted = false;
  if (r.rows() == 0) {
    // First beat, or another node found this one's heartbeat stale (paused, cut off) and
    // removed it: changes may have been missed, so the cache starts afresh. Its lease has run
    // out by then (ended here too, for a row removed by hand), so nothing is served from it
    // until the clear below.
    if (registered_)
      logLine(*getLogger("core"), spdlog::level::warn, "", "",
              "this node's heartbeat had stopped for more than " +
                  std::to_string(kGoneAfter.count() / 1000) +
                  " s and it was counted gone; registered again with an emptied auth cache");
    cache_.endLease();
    r = pool_.exec(
        "INSERT INTO core.nodes (id, host, pid, applied, address, labels) "
        "SELECT $1, $2, $3, n, $4, $5::jsonb FROM core.auth_changes RETURNING applied",
        {id_, host_, std::to_string(::getpid()), thisNodeAddress(), thisNodeLabels().dump()});
    cache_.clear();
    registered_ = true;
    inserted = true;
  }
  const int64_t current = std::stoll(r.value(0, 0));
  // Every change up to `current` committed before it was read: emptying the cache now catches
  // up with all of them (a notification still on its way changes nothing more).
  if (current > cache_.applied()) cache_.catchUp(current);
  // What the row holds now; a newer `applied` (the catch-up above) is written at once.
  written_ = inserted ? current : applied;
  cache_.renewLease(began + kCacheLease);
  try {
    readLiveNodes();
  } catch (const std::exception&) {
    // The last list stays; the next beat reads it again (the beat itself succeeded).
  }
}

void NodeHeartbeat::readLiveNodes() {
  // Who may be proxied to (cluster/live_nodes.hpp): the same bound as waitUntilInForce's.
  auto r = pool_.exec(
      "SELECT id, address, labels::text FROM core.nodes "
      "WHERE heartbeat_at > now() - make_interval(secs => $1::double precision / 1000) "
      "ORDER BY id",
      {std::to_string(kGoneAfter.count())});
  std::vector<LiveNode> nodes;
  for (int i = 0; i < r.rows(); ++i) {
    auto labels = nlohmann::json::parse(r.value(i, 2), nullptr, false);
    nodes.push_back(
        {r.value(i, 0), r.value(i, 1), labels.is_object() ? labels : nlohmann::json::object()});
  }
  setLiveNodes(std::move(nodes));
}

}  // namespace berth::core
