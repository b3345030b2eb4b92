// The parts of the runtime plugin, each registered by runtime_plugin.cpp. Each part registers
// its routes, hooks, jobs and services in registerAll; the Context is filled in start().
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::runtime {

// Releases: POST/GET /projects/{name}/deploys, GET /deploys, GET .../deploys/{id}, promote,
// the build worker, pruning, noticing live changes of other nodes, project.deleting (rows,
// folders, blobs). release_routes.cpp and friends.
void registerReleases(berth::Registrar& r, Context& context);

// Logs: GET /projects/{name}/logs and the job that flushes the LogBuffer. log_routes.cpp.
void registerLogs(berth::Registrar& r, Context& context);

// runtime.status.v1 (`project`, `projects`), and the answer to the projects plugin's
// projects.view.v1 hook (a Project's state and live). status_service.cpp.
void registerStatusService(berth::Registrar& r, Context& context);

// runtime.releases.v1 (releases from files and folders, for installers); after
// registerReleases. releases_service.cpp.
void registerReleasesService(berth::Registrar& r, Context& context);

// runtime.apps.v1 (per-project start options, runtime.start_options). apps_service.cpp.
void registerAppsService(berth::Registrar& r, Context& context);

// runtime.commands.v1 (a one-off command in a release, as the app) and
// runtime.shared_trees.v1 (read-only trees built once per name): work_part.cpp and friends.
// startWork after the configuration is read (shared_dir, sandbox); stopWork before the apps.
void registerWork(berth::Registrar& r, Context& context);
void startWork(Context& context);
void stopWork(Context& context);

// The gateway: project-host traffic to the live release (files or the app), scale to zero,
// the edge cache rules, request logs from the edge's access log, restarts on secret change.
// gateway.cpp and friends.
void registerGateway(berth::Registrar& r, Context& context);

// Stops the parts' threads (build workers, ...) before the apps are stopped.
void stopReleases(Context& context);
void stopGateway(Context& context);

}  // namespace berth::runtime
