// sqlconsole.sql.v1 (<berth/services/sqlconsole_sql.hpp>): POST /projects/{name}/sql for
// installers, through the core, and for other plugins. The service acts for the project it is
// given: the caller is the core (which set project_id to the project being installed into) or
// a plugin, never an HTTP client, so there is no membership to check beyond the project
// existing. The work is the route's own (runSchemaChanges), in the project's lane of the
// console's workers, so it shares the project's fair share like any of its requests.
#include <berth/services/projects_directory.hpp>
#include <berth/services/sqlconsole_sql.hpp>

#include <exception>
#include <future>
#include <string>

#include "routes.hpp"
#include "schema_changes.hpp"

namespace berth::sqlconsole {

namespace {

namespace contract = berth::sqlconsole_sql;

// Runs work on the workers in `lane` and waits for it on the calling thread. A full queue is
// the route's 503.
template <class Work>
auto onWorkers(WorkerPool& pool, const std::string& lane, Work work) -> decltype(work()) {
  std::promise<decltype(work())> done;
  std::future<decltype(work())> answer = done.get_future();
  const WorkerPool::Posted posted = pool.post(lane, [&] {
    try {
      done.set_value(work());
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  if (posted != WorkerPool::Posted::Queued) throw pool.refusal(posted);
  return answer.get();
}

}  // namespace

void registerSqlService(berth::Registrar& r, Context& context) {
  Context* c = &context;
  berth::ServiceMethods methods;
  methods[std::string(contract::kRun)] = [c](const nlohmann::json& request) {
    contract::RunRequest asked = contract::parseRunRequest(request);
    // Any ready project (404 "no project called <id>" otherwise).
    const Project project = berth::ProjectsDirectory(*c->services).getById(asked.project_id);
    if (!c->workers) throw berth::Error(503, "the database console is stopping");
    return contract::toJson(onWorkers(*c->workers, "project " + project.id,
                                      [&] { return runSchemaChanges(*c, project, asked.sql); }));
  };
  r.service(std::string(contract::kService), std::move(methods));
}

}  // namespace berth::sqlconsole
