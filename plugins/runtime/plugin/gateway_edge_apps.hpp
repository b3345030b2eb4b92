// The edge app rules of this plugin (Services::setEdgeApps): while a project's app (a process
// release, not PHP) runs and is ready on this node, nginx proxies every request for the
// project's hosts straight to 127.0.0.1:<port> over kept-alive connections, without asking
// berthd. A rule left for an app that is gone costs a detour, not an error: the app's 502
// sends the request to berthd, whose gateway wakes the app as before and points the rule at
// the new port.
//
// Hosts: the project's own <name>.<apps_domain>, and every other host of it (a verified
// custom domain) a request reached the gateway on, as for the edge cache rules. The rules are
// pushed whole, one push at a time, only when they changed (each push reloads nginx).
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "edge_hosts.hpp"

namespace berth::runtime {

class EdgeApps {
 public:
  using Publish = std::function<void(const std::vector<berth::EdgeAppRule>&)>;

  explicit EdgeApps(Publish publish) : publish_(std::move(publish)) {}

  // The project's app is ready on `port`: `hosts` go to it (its other hosts move to the port,
  // a paused rule is back).
  void ready(const std::string& project_id, const std::vector<std::string>& hosts,
             std::uint16_t port);
  // Removes the project's rule (its app stops, is replaced or the project goes); returns
  // whether it had one. The edge takes about a second to load the change.
  bool remove(const std::string& project_id);
  // Idle stop: the project's hosts leave the edge's rules but are kept for resume(); returns
  // whether it had live rules.
  bool pause(const std::string& project_id);
  // A request came while its rules were paused: they are back (when the app still runs).
  void resume(const std::string& project_id, std::uint16_t port);
  // The projects whose traffic goes straight to their app (paused ones are not).
  std::set<std::string> published() const;
  // Follows the apps: `running_port` answers the port a project's app is running and ready on
  // now (0: not running). A rule of an app that crashed goes; one of an app restarted on
  // another port moves to it.
  void follow(const std::function<std::uint16_t(const std::string& project_id)>& running_port);
  // Drops the hosts that `belongs(host, project_id)` says are no longer the project's (a
  // custom domain removed or moved, a project renamed).
  void keepHosts(const HostBelongs& belongs);
  // Every (host, project id) pair with a rule.
  std::vector<HostOfProject> hosts() const;

  std::vector<berth::EdgeAppRule> rules() const;

 private:
  struct AppRoute {
    std::set<std::string> hosts;
    std::uint16_t port = 0;
    bool paused = false;
  };
  void push();

  Publish publish_;
  mutable std::mutex mutex_;
  std::map<std::string, AppRoute> projects_;  // by project id
  std::mutex push_mutex_;  // pushes go out one at a time, each with the state of its time
  std::vector<berth::EdgeAppRule> pushed_;
  bool pushed_once_ = false;
};

// A host as the edge names it: lower case, without a final '.'.
std::string edgeHostName(std::string host);

}  // namespace berth::runtime
