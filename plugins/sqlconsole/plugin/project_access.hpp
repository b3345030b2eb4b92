// Which project a request is about, and whether the caller may do it. A project the caller
// cannot reach answers exactly like a missing one (404 from projects.directory.v1).
#pragma once
#include <berth/plugin.hpp>

#include <optional>
#include <string>

#include "context.hpp"
#include "project_directory_cache.hpp"

namespace berth::sqlconsole {

// The project named by the route's {name} that the caller reaches; throws 404 otherwise. Which
// project a name is comes from context.projects when kept (project_directory_cache.hpp); whether
// the caller reaches it is asked every time.
ProjectRef reachableProject(Context& context, const berth::Request& request);
// The same from what is kept only, without asking projects.directory.v1 (for a core thread);
// nothing when it would have to ask.
std::optional<ProjectRef> keptReachableProject(Context& context, const berth::Request& request);

// Owner of the project's account, or an admin of its team.
bool canManage(const Context& context, const berth::Request& request, const ProjectRef& project);

// The project a project-host request (/_data/...) is for; throws 404 when none. A host under the
// apps domain is looked up by name in context.projects first; other hosts (custom domains, which
// can move) always ask projects.directory.v1.
// use_kept false: ask projects.directory.v1 whatever is kept (and keep its answer).
ProjectRef projectAtHost(Context& context, const berth::Request& request, bool use_kept = true);
// The kept project of a host under the apps domain; nothing otherwise.
std::optional<ProjectRef> keptProjectAtHost(Context& context, const berth::Request& request);

// The lane of the plugin's pools (worker_pool.hpp) a request's work waits and runs in, decided
// on the thread that received it, from what is kept only: "project <id>" for a project the
// caller reaches (a /_data request: the project of its host), otherwise the caller's own lane
// ("caller <account id>"; /_data: "host <host>"). A request naming someone else's project
// therefore never waits in, nor takes a place of, that project's lane.
std::string workLane(Context& context, const berth::Request& request);

}  // namespace berth::sqlconsole
