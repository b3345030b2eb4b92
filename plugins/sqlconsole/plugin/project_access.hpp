// Which project a request is about, and whether the caller may do it. A project the caller
// cannot reach answers exactly like a missing one (404 from projects.directory.v1).
//
// Which project a name (or a host under the apps domain) is, is kept in context.projects (a
// berth::ProjectHostCache, by the project's own host `<name>.<apps_domain>`), so a rows or /_data
// read does not ask projects.directory.v1 (a control-database query) every time. An entry lives
// a few seconds (<berth/services/project_host_cache.hpp>); it goes at once on this node when the
// project is deleted (project.deleting/deleted hooks) or its database cannot be reached any more
// (deleting a project drops its database and ends every session on it; ProjectConnections
// reports that). Access is never kept: the caller's memberships are asked each time (the core
// keeps those, and empties them on every change on any node).
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/projects_directory.hpp>

#include <optional>
#include <string>

#include "context.hpp"

namespace berth::sqlconsole {

// A project as the directory describes it (id, name, account_id, own host...).
using Project = berth::projects_directory::Project;

// The project named by the route's {name} that the caller reaches; throws 404 otherwise. Which
// project a name is comes from context.projects when kept; whether the caller reaches it is
// asked every time.
Project reachableProject(Context& context, const berth::Request& request);
// The same from what is kept only, without asking projects.directory.v1 (for a core thread);
// nothing when it would have to ask.
std::optional<Project> keptReachableProject(Context& context, const berth::Request& request);

// Owner of the project's account, or an admin of its team (projects.directory.v1 can_manage).
bool canManage(const Context& context, const berth::Request& request, const Project& project);

// The project a project-host request (/_data/...) is for; throws 404 when none. A host under the
// apps domain is looked up in context.projects first; other hosts (custom domains, which can
// move) always ask projects.directory.v1.
// use_kept false: ask projects.directory.v1 whatever is kept (and keep its answer).
Project projectAtHost(Context& context, const berth::Request& request, bool use_kept = true);
// The kept project of a host under the apps domain; nothing otherwise.
std::optional<Project> keptProjectAtHost(Context& context, const berth::Request& request);

// The lane of the plugin's pools (worker_pool.hpp) a request's work waits and runs in, decided
// on the thread that received it, from what is kept only: "project <id>" for a project the
// caller reaches (a /_data request: the project of its host), otherwise the caller's own lane
// ("caller <account id>"; /_data: "host <host>"). A request naming someone else's project
// therefore never waits in, nor takes a place of, that project's lane.
std::string workLane(Context& context, const berth::Request& request);

}  // namespace berth::sqlconsole
