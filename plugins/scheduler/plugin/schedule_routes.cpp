#include "schedule_routes.hpp"

#include <berth/services/projects_directory.hpp>

#include <memory>

#include "cron_spec.hpp"
#include "schedule_fields.hpp"
#include "schedule_rules.hpp"
#include "schedule_store.hpp"
#include "schedule_writes.hpp"

namespace berth::scheduler {

namespace {

using berth::Error;
using berth::FieldType;
using berth::Request;
using berth::Responder;

Error noSuchSchedule() {
  return Error::notFound("no such schedule");
}

namespace contract = berth::scheduler_schedules;

class ScheduleHandlers {
 public:
  explicit ScheduleHandlers(const Context& context) : c_(context) {}

  void list(const Request& req, Responder& resp) const {
    Project project = find(req);
    resp.json(200, contract::listJson(store().listForProject(project.id, now())));
  }

  void listAll(const Request& req, Responder& resp) const {
    std::vector<std::string> account_ids;
    for (const auto& account : c_.services->memberships(req.caller().accountId))
      account_ids.push_back(account.id);
    resp.json(200, contract::listJson(store().listForAccounts(account_ids, now())));
  }

  void create(const Request& req, Responder& resp) const {
    Project project = find(req);
    const nlohmann::json& body = req.json();
    ScheduleFields fields =
        checkScheduleFields(body.at("name").get<std::string>(), body.at("spec").get<std::string>(),
                            body.at("path").get<std::string>());
    Schedule s = createSchedule(c_, project, req.caller().accountId, fields);
    c_.logger()
        .withProject(project.name)
        .info(req, "schedule " + s.id + " created: " + s.spec + " GET " + s.path);
    nlohmann::json created = contract::toJson(s);
    created.erase("next_run_at");  // docs/openapi.yaml: the new Schedule, without next_run_at
    resp.json(201, created);
  }

  void setEnabled(const Request& req, Responder& resp) const {
    Project project = find(req);
    std::string id = req.param("id");
    bool enabled = req.json().at("enabled").get<bool>();
    if (!isScheduleId(id)) throw noSuchSchedule();
    int64_t next = 0;
    if (enabled) {
      auto r = c_.db().exec(
          "SELECT spec FROM scheduler.schedules WHERE id = $1 AND project_id = $2", id, project.id);
      if (r.rows() == 0) throw noSuchSchedule();
      CronParse parsed = CronSpec::parse(r.get<std::string>(0, 0));
      auto found = parsed.spec ? parsed.spec->nextAfter(now()) : std::nullopt;
      if (!found) throw Error::internal("the stored spec does not run");
      next = *found;
    }
    if (!store().setEnabled(project.id, id, enabled, next)) throw noSuchSchedule();
    c_.logger()
        .withProject(project.name)
        .info(req, "schedule " + id + (enabled ? " resumed" : " paused"));
    if (enabled && c_.wake_runner) c_.wake_runner();
    resp.noContent();
  }

  void remove(const Request& req, Responder& resp) const {
    Project project = find(req);
    std::string id = req.param("id");
    if (!isScheduleId(id) || !store().remove(project.id, id)) throw noSuchSchedule();
    c_.logger().withProject(project.name).info(req, "schedule " + id + " removed");
    resp.noContent();
  }

  void runs(const Request& req, Responder& resp) const {
    Project project = find(req);
    std::string id = req.param("id");
    if (!isScheduleId(id) || !store().exists(project.id, id)) throw noSuchSchedule();
    resp.json(200, {{"runs", store().runs(id)}});
  }

 private:
  // The project of the path if the caller reaches it; otherwise the directory's 404
  // `no project called {name}`, the same for a missing project and someone else's.
  Project find(const Request& req) const {
    return berth::ProjectsDirectory(*c_.services).find(req.caller().accountId, req.param("name"));
  }

  ScheduleStore store() const { return ScheduleStore(c_.db()); }
  int64_t now() const { return c_.settings.clock.nowSeconds(); }

  const Context& c_;
};

}  // namespace

void registerScheduleRoutes(berth::Registrar& r, const Context& context) {
  auto h = std::make_shared<ScheduleHandlers>(context);
  r.get("/schedules", [h](const Request& q, Responder& s) { h->listAll(q, s); });
  r.get("/projects/:name/schedules", [h](const Request& q, Responder& s) { h->list(q, s); });
  berth::RouteOptions create;
  create.fields = {{"name", FieldType::String, true},
                   {"spec", FieldType::String, true},
                   {"path", FieldType::String, true}};
  r.post(
      "/projects/:name/schedules", [h](const Request& q, Responder& s) { h->create(q, s); },
      create);
  berth::RouteOptions toggle;
  toggle.fields = {{"enabled", FieldType::Bool, true}};
  r.patch(
      "/projects/:name/schedules/:id", [h](const Request& q, Responder& s) { h->setEnabled(q, s); },
      toggle);
  r.del("/projects/:name/schedules/:id", [h](const Request& q, Responder& s) { h->remove(q, s); });
  r.get("/projects/:name/schedules/:id/runs",
        [h](const Request& q, Responder& s) { h->runs(q, s); });
}

}  // namespace berth::scheduler
