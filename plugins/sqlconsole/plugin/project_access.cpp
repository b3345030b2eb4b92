#include "project_access.hpp"

namespace berth::sqlconsole {

namespace {

ProjectRef fromSummary(const nlohmann::json& summary) {
  return ProjectRef{summary.value("id", ""), summary.value("name", ""),
                    summary.value("account_id", ""), summary.value("host", "")};
}

}  // namespace

std::optional<ProjectRef> keptReachableProject(Context& context, const berth::Request& request) {
  std::optional<ProjectRef> kept = context.projects.byName(request.param("name"));
  if (!kept) return std::nullopt;
  // The rule projects.directory.v1 "find" applies: the caller is a member of its account.
  for (const berth::Account& account : context.services->memberships(request.caller().accountId))
    if (account.id == kept->account_id) return kept;
  // Not a member: the answer is find's. (The kept entry may also be a project deleted on another
  // node whose name someone else has taken since.)
  return std::nullopt;
}

ProjectRef reachableProject(Context& context, const berth::Request& request) {
  if (std::optional<ProjectRef> kept = keptReachableProject(context, request)) return *kept;
  ProjectRef project = fromSummary(context.services->call(
      "projects.directory.v1", "find",
      {{"account_id", request.caller().accountId}, {"name", request.param("name")}}));
  context.projects.keep(project);
  return project;
}

bool canManage(const Context& context, const berth::Request& request, const ProjectRef& project) {
  nlohmann::json answer =
      context.services->call("projects.directory.v1", "can_manage",
                             {{"account_id", request.caller().accountId}, {"id", project.id}});
  return answer.value("allowed", false);
}

namespace {

// The project name of a host under the apps domain ("shop.apps.example" -> "shop"), or nothing.
std::optional<std::string> appsDomainName(const Context& context, const std::string& host) {
  const std::string suffix = "." + context.settings.apps_domain;
  if (host.size() <= suffix.size() ||
      host.compare(host.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  return host.substr(0, host.size() - suffix.size());
}

}  // namespace

std::optional<ProjectRef> keptProjectAtHost(Context& context, const berth::Request& request) {
  std::optional<std::string> name = appsDomainName(context, request.host());
  return name ? context.projects.byName(*name) : std::nullopt;
}

ProjectRef projectAtHost(Context& context, const berth::Request& request, bool use_kept) {
  if (use_kept)
    if (std::optional<ProjectRef> kept = keptProjectAtHost(context, request)) return *kept;
  const std::string host = request.host();
  ProjectRef project =
      fromSummary(context.services->call("projects.directory.v1", "by_host", {{"host", host}}));
  if (appsDomainName(context, host) && project.host == host) context.projects.keep(project);
  return project;
}

std::string workLane(Context& context, const berth::Request& request) {
  const std::string path = request.path();
  if (path.rfind("/projects/", 0) == 0) {
    if (std::optional<ProjectRef> kept = keptReachableProject(context, request))
      return "project " + kept->id;
    return "caller " + request.caller().accountId;
  }
  if (std::optional<ProjectRef> kept = keptProjectAtHost(context, request))
    return "project " + kept->id;
  return "host " + request.host();
}

}  // namespace berth::sqlconsole
