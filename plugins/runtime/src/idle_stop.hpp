// Scale to zero. Once the edge sends a running app's traffic straight to it (edge app rules),
// berthd no longer sees those requests, so a project's last activity comes from the edge's
// access log (every request nginx finished, direct or not) and from the gateway's own
// requests. An idle app whose traffic goes direct cannot simply be stopped: a request already
// on its way would meet a dead port. So its rule is removed first, the edge is given time to
// load that, and only if nothing came meanwhile is the app stopped; a request in that time
// (it reached berthd, or the edge before the reload) keeps the app and its rule.
//
// A stalled berthd (CPU starvation, a suspended machine, SIGSTOP) cannot read the access log,
// so the time it was stalled is not idle time: the round after a stall only shifts every
// project's clock by the stall and decides nothing, leaving the next round to decide with
// what queued meanwhile read.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace berth::runtime {

class IdleStop {
 public:
  using Clock = std::chrono::steady_clock;
  // The edge reloads within about a second of a rule change (coalesced); this is that with
  // a margin for nginx's own reload.
  static constexpr std::chrono::milliseconds kEdgeReload{1500};
  // Rounds run every second; a longer gap than this between two means berthd was stalled.
  static constexpr std::chrono::milliseconds kRoundPeriod{1000};
  static constexpr std::chrono::milliseconds kStallAfter{1400};

  // A request reached the project (through berthd or straight to its app).
  void touch(const std::string& project_id, Clock::time_point now = Clock::now());
  void forget(const std::string& project_id);  // stopped or deleted for another reason

  struct Round {
    std::vector<std::string> unpublish;  // idle, traffic direct: remove the rule, wait
    std::vector<std::string> republish;  // a request came while its rule was going: keep it
    std::vector<std::string> stop;       // idle, and nothing reaches it any more: stop now
  };
  // One round of the periodic job: projects without a request for `idle_stop` are stopped.
  // `published` holds the projects whose traffic the edge sends straight to their app.
  Round round(const std::set<std::string>& published, std::chrono::seconds idle_stop,
              Clock::time_point now = Clock::now());

 private:
  struct Activity {
    Clock::time_point last;
    std::optional<Clock::time_point> unpublished_at;  // set while waiting for the edge
  };
  std::mutex mutex_;
  std::map<std::string, Activity> projects_;
  std::optional<Clock::time_point> last_round_;
};

}  // namespace berth::runtime
