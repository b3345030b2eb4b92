// Which project a request is about, and whether the caller may do it. A project the caller
// cannot reach answers exactly like a missing one (404 from projects.directory.v1).
#pragma once
#include <berth/plugin.hpp>

#include <string>

#include "context.hpp"

namespace berth::sqlconsole {

struct ProjectRef {
  std::string id;
  std::string name;
  std::string account_id;
  std::string host;  // <name>.<apps_domain>
};

// The project named by the route's {name} that the caller reaches; throws 404 otherwise.
ProjectRef reachableProject(const Context& context, const berth::Request& request);

// Owner of the project's account, or an admin of its team.
bool canManage(const Context& context, const berth::Request& request, const ProjectRef& project);

// The project a project-host request (/_data/...) is for; throws 404 when none.
ProjectRef projectAtHost(const Context& context, const berth::Request& request);

}  // namespace berth::sqlconsole
