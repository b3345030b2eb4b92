#include "project_access.hpp"

namespace berth::sqlconsole {

namespace {

ProjectRef fromSummary(const nlohmann::json& summary) {
  return ProjectRef{summary.value("id", ""), summary.value("name", ""),
                    summary.value("account_id", ""), summary.value("host", "")};
}

}  // namespace

ProjectRef reachableProject(Context& context, const berth::Request& request) {
  const std::string name = request.param("name");
  const std::string account_id = request.caller().accountId;
  if (std::optional<ProjectRef> kept = context.projects.byName(name)) {
    // The rule projects.directory.v1 "find" applies: the caller is a member of its account.
    for (const berth::Account& account : context.services->memberships(account_id))
      if (account.id == kept->account_id) return *kept;
    // Not a member: the answer is find's. (The kept entry may also be a project deleted on
    // another node whose name someone else has taken since.)
  }
  ProjectRef project = fromSummary(context.services->call(
      "projects.directory.v1", "find", {{"account_id", account_id}, {"name", name}}));
  context.projects.keep(project);
  return project;
}

bool canManage(const Context& context, const berth::Request& request, const ProjectRef& project) {
  nlohmann::json answer =
      context.services->call("projects.directory.v1", "can_manage",
                             {{"account_id", request.caller().accountId}, {"id", project.id}});
  return answer.value("allowed", false);
}

ProjectRef projectAtHost(Context& context, const berth::Request& request, bool use_kept) {
  const std::string host = request.host();
  const std::string suffix = "." + context.settings.apps_domain;
  const bool under_apps_domain =
      host.size() > suffix.size() &&
      host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
  if (under_apps_domain && use_kept) {
    if (std::optional<ProjectRef> kept =
            context.projects.byName(host.substr(0, host.size() - suffix.size())))
      return *kept;
  }
  ProjectRef project =
      fromSummary(context.services->call("projects.directory.v1", "by_host", {{"host", host}}));
  if (under_apps_domain && project.host == host) context.projects.keep(project);
  return project;
}

}  // namespace berth::sqlconsole
