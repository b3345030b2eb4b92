#include "schedules_service.hpp"

#include <berth/common/text.hpp>
#include <berth/services/projects_directory.hpp>
#include <berth/services/scheduler_schedules.hpp>

#include "schedule_fields.hpp"
#include "schedule_rules.hpp"
#include "schedule_store.hpp"
#include "schedule_writes.hpp"

namespace berth::scheduler {

namespace {

namespace contract = berth::scheduler_schedules;

// The project named by id (the core sets it for installers): any ready project, 404
// "no project called <id>" otherwise. The caller acts for the project; the routes' reach check
// is theirs.
Project projectById(const Context& c, const std::string& id) {
  return berth::ProjectsDirectory(*c.services).getById(id);
}

}  // namespace

void registerSchedulesService(berth::Registrar& r, const Context& context) {
  const Context* c = &context;
  berth::ServiceMethods methods;
  methods[std::string(contract::kEnsure)] = [c](const nlohmann::json& request) {
    contract::EnsureRequest asked = contract::parseEnsureRequest(request);
    Project project = projectById(*c, asked.project_id);
    ScheduleFields fields = checkScheduleFields(asked.name, asked.spec, std::move(asked.path));
    const std::string& maker = asked.account_id.empty() ? project.account_id : asked.account_id;
    ScheduleStore::Ensured ensured = ensureSchedule(*c, project, maker, fields);
    const Schedule& s = *ensured.schedule;
    if (ensured.created || ensured.updated)
      c->logger()
          .withProject(project.name)
          .info("schedule " + s.id + (ensured.created ? " created: " : " changed: ") + s.spec +
                " GET " + s.path + " (" + std::string(contract::kService) + ")");
    return contract::toJson(contract::Ensured{s, ensured.created, ensured.updated});
  };
  methods[std::string(contract::kList)] = [c](const nlohmann::json& request) {
    Project project = projectById(*c, contract::parseListRequest(request));
    return contract::listJson(
        ScheduleStore(c->db()).listForProject(project.id, c->settings.clock.nowSeconds()));
  };
  methods[std::string(contract::kDelete)] = [c](const nlohmann::json& request) {
    contract::DeleteRequest asked = contract::parseDeleteRequest(request);
    Project project = projectById(*c, asked.project_id);
    // Names are stored trimmed (checkScheduleFields), so the name asked for is too.
    int64_t removed = ScheduleStore(c->db()).removeNamed(project.id, common::trimmed(asked.name));
    if (removed > 0)
      c->logger()
          .withProject(project.name)
          .info(std::to_string(removed) + " schedule(s) called " + common::trimmed(asked.name) +
                " removed (" + std::string(contract::kService) + ")");
    return contract::deletedJson(removed > 0);
  };
  r.service(std::string(contract::kService), std::move(methods));
}

}  // namespace berth::scheduler
