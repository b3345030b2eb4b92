// The gateway: every request on a project host that no other plugin's route takes (/_files,
// /_data) comes here. It finds the project by host and its live release, then has the edge
// send a file of a static release, or proxy to the project's app, started on demand (scale to
// zero: the request is held, without holding a server thread, until the app is ready).
// It also keeps the edge cache rules, turns the edge's access log into request logs, and
// follows secret changes, deletions and live release changes.
//
// What it decided once, the edge then does alone: a running app's hosts are proxied straight
// to its port (EdgeApps), a static release's files are sent from the edge file tree
// (EdgeFiles); berthd still answers whatever the edge does not find or cannot reach (a
// stopped app's wake, 301s, 404s). Idle stop follows the access log (IdleStop).
//
// With several nodes, a process app (not PHP) has one owner node (AppOwners): a request that
// reaches another node is forwarded to the owner's edge (berth/cluster.hpp), and a request
// forwarded here is served here. Static sites and PHP are served by whichever node the
// request reaches (README.md, "Several nodes").
#pragma once
#include <berth/plugin.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "app_owners.hpp"
#include "context.hpp"
#include "edge_cache.hpp"
#include "gateway_edge_apps.hpp"
#include "gateway_edge_files.hpp"
#include "idle_stop.hpp"
#include "project_routing.hpp"
#include "request_logs.hpp"
#include "secret_changes.hpp"

namespace berth::runtime {

class Gateway {
 public:
  explicit Gateway(Context& context);

  void handle(const berth::Request& request, berth::Responder& responder);

  void liveChanged(const std::string& project_id);
  void secretChanged(const nlohmann::json& payload);
  // A running app of the project restarts with its environment read again (secrets, BERTH_URL),
  // unless that is what it has already (a change applied here before, see SecretChanges).
  void refreshEnvironment(const std::string& project_id, const std::string& name,
                          const std::string& why);  // project.secret_changed
  // Secrets changed on some node (NOTIFY berth_project_secrets): the apps running here that
  // they concern restart with the new environment.
  void secretsChanged(const SecretChanges::Pending& pending);
  // runtime.apps.v1 set_start_options: the spec is read again; a running app is replaced by
  // one started with the new options (mounts and readiness are fixed for one process), a
  // stopped one is forgotten so that its next start reads them.
  void startOptionsChanged(const std::string& project_id, const std::string& name);
  void deleting(const nlohmann::json& payload);        // project.deleting
  void access(std::string_view line);                  // edge.access
  void updated(const nlohmann::json& payload);         // project.updated (a PATCH)
  void domainsChanged(const nlohmann::json& payload);  // project.domains_changed
  void purgeCache(const std::string& project_id) { cache_.purge(project_id); }
  // Every few seconds: cache settings and purges of other nodes, and hosts that stopped
  // being their project's.
  void refresh();
  // Every second: idle apps are stopped (their edge rule removed first), rules follow
  // crashed and restarted apps.
  void idleRound();
  // This node stops: its app owner claims go, so the next request starts the apps elsewhere.
  void releaseOwnership();

 private:
  // handle(), for a request that may be served again `retries_left` times when the app it
  // waits for is replaced (startApp).
  void dispatch(const berth::Request& request, berth::Responder& responder, int retries_left);
  void serveStatic(const Project& project, const ReleaseRecord& release,
                   const berth::Request& request, berth::Responder& responder);
  // Another node owns the project's process app: the request goes to its edge (true). A
  // request forwarded here, PHP and static releases are served here (false).
  // `owned_elsewhere`: set when the request was forwarded here while another node owns it.
  bool proxiedToOwner(const Project& project, const ReleaseRecord& release,
                      const berth::Request& request, berth::Responder& responder,
                      bool& owned_elsewhere);
  void serveApp(const Project& project, const ReleaseRecord& release, const berth::Request& request,
                berth::Responder& responder, int retries_left, bool owned_elsewhere = false);
  // Asks for the release's app and proxies the exchange to it. A start ended by a restart
  // (a secret change) or by another release going live is asked again, of what is live now,
  // up to `retries_left` times: the request is served by the replacement, not failed.
  void startApp(const Project& project, const ReleaseRecord& release,
                std::shared_ptr<berth::Exchange> exchange, int retries_left,
                bool owned_elsewhere = false);
  // The app spec of the project's live release, built once (it asks the directory for the
  // database and secrets) and kept until the release or a secret changes.
  std::shared_ptr<const AppSpec> specFor(const Project& project, const ReleaseRecord& release);
  void forgetSpec(const std::string& project_id);
  // Does the host still lead to the project? (false only when the directory says no)
  bool hostBelongs(const std::string& host, const std::string& project_id);
  // Releases this node's claim on the project's app (errors: the next round sweeps it).
  void releaseClaim(const std::string& project_id);
  // Drops the edge rules and tree entries of hosts that left their project.
  void keepOwnHosts();

  Context& context_;
  ProjectRouting routing_;
  EdgeCache cache_;
  RequestNotes notes_;
  EdgeApps edge_apps_;
  EdgeFiles edge_files_;
  IdleStop idle_;
  AppOwners owners_;
  std::mutex specs_mutex_;
  // One refreshEnvironment at a time: the hook and the secret_changes job may both come for
  // one change, and the second must see the environment the first set.
  std::mutex refresh_mutex_;
  std::unordered_map<std::string, std::shared_ptr<const AppSpec>> specs_;  // by project id
};

// DELETE /projects/{name}/cache (cache_routes.cpp).
void registerCacheRoutes(berth::Registrar& r, Context& context);

}  // namespace berth::runtime
