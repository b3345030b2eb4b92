#include "project_access.hpp"

namespace berth::sqlconsole {

namespace {

ProjectRef fromSummary(const nlohmann::json& summary) {
  return ProjectRef{summary.value("id", ""), summary.value("name", ""),
                    summary.value("account_id", ""), summary.value("host", "")};
}

}  // namespace

ProjectRef reachableProject(const Context& context, const berth::Request& request) {
  return fromSummary(context.services->call(
      "projects.directory.v1", "find",
      {{"account_id", request.caller().accountId}, {"name", request.param("name")}}));
}

bool canManage(const Context& context, const berth::Request& request, const ProjectRef& project) {
  nlohmann::json answer =
      context.services->call("projects.directory.v1", "can_manage",
                             {{"account_id", request.caller().accountId}, {"id", project.id}});
  return answer.value("allowed", false);
}

ProjectRef projectAtHost(const Context& context, const berth::Request& request) {
  return fromSummary(
      context.services->call("projects.directory.v1", "by_host", {{"host", request.host()}}));
}

}  // namespace berth::sqlconsole
