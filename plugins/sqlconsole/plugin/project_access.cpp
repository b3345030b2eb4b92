#include "project_access.hpp"

namespace berth::sqlconsole {

namespace {

namespace directory = berth::projects_directory;

// The host a project of this name has: where context.projects keeps it.
std::string ownHost(const Context& context, const std::string& name) {
  return name + "." + context.settings.apps_domain;
}

// Is the host under the apps domain ("shop.apps.example", not "apps.example" itself)?
bool underAppsDomain(const Context& context, const std::string& host) {
  const std::string suffix = "." + context.settings.apps_domain;
  return host.size() > suffix.size() &&
         host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<Project> keptReachableProject(Context& context, const berth::Request& request) {
  std::optional<Project> kept = context.projects.kept(ownHost(context, request.param("name")));
  if (!kept) return std::nullopt;
  // find's own rule, on the kept project, with the memberships the core keeps: no service call.
  if (directory::reaches(*context.services, request.caller().accountId, kept->account_id,
                         directory::Reach::See))
    return kept;
  // Not reached: the answer is find's. (The kept entry may also be a project deleted on another
  // node whose name someone else has taken since.)
  return std::nullopt;
}

Project reachableProject(Context& context, const berth::Request& request) {
  if (std::optional<Project> kept = keptReachableProject(context, request)) return *kept;
  const uint64_t began = context.projects.generation();
  Project project = berth::ProjectsDirectory(*context.services)
                        .find(request.caller().accountId, request.param("name"));
  context.projects.keep(project.host, project, began);
  return project;
}

bool canManage(const Context& context, const berth::Request& request, const Project& project) {
  return berth::ProjectsDirectory(*context.services)
      .canManage(request.caller().accountId, project.id);
}

std::optional<Project> keptProjectAtHost(Context& context, const berth::Request& request) {
  const std::string host = request.host();
  if (!underAppsDomain(context, host)) return std::nullopt;  // custom domains are asked each time
  return context.projects.kept(host);
}

Project projectAtHost(Context& context, const berth::Request& request, bool use_kept) {
  if (use_kept)
    if (std::optional<Project> kept = keptProjectAtHost(context, request)) return *kept;
  const std::string host = request.host();
  const uint64_t began = context.projects.generation();
  Project project = berth::ProjectsDirectory(*context.services).byHost(host);
  if (underAppsDomain(context, host) && project.host == host)
    context.projects.keep(host, project, began);
  return project;
}

std::string workLane(Context& context, const berth::Request& request) {
  const std::string path = request.path();
  if (path.rfind("/projects/", 0) == 0) {
    if (std::optional<Project> kept = keptReachableProject(context, request))
      return "project " + kept->id;
    return "caller " + request.caller().accountId;
  }
  if (std::optional<Project> kept = keptProjectAtHost(context, request))
    return "project " + kept->id;
  return "host " + request.host();
}

}  // namespace berth::sqlconsole
