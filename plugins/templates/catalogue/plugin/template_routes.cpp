#include "template_routes.hpp"

#include <berth/services/projects_directory.hpp>
#include <berth/services/runtime_logs.hpp>
#include <berth/util/body_fields.hpp>

#include <chrono>
#include <memory>

#include "catalogue.hpp"
#include "install_runs.hpp"

namespace berth::templates {

void InstallWorkers::run(int64_t run_id, std::function<void()> work) {
  std::lock_guard lock(mutex_);
  reapFinished();
  running_.insert(run_id);
  auto done = std::make_shared<std::atomic<bool>>(false);
  workers_.push_back(Worker{std::thread([this, run_id, done, work = std::move(work)] {
                              work();
                              std::lock_guard finished(mutex_);
                              running_.erase(run_id);
                              done->store(true);
                            }),
                            done});
}

void InstallWorkers::reapFinished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      // Its last step was to set `done` under this lock: it is returning, the join is short.
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<int64_t> InstallWorkers::running() const {
  std::lock_guard lock(mutex_);
  return {running_.begin(), running_.end()};
}

void InstallWorkers::joinAll() {
  std::vector<Worker> workers;
  {
    std::lock_guard lock(mutex_);
    workers.swap(workers_);
  }
  for (Worker& w : workers)
    if (w.thread.joinable()) w.thread.join();
}

namespace {

nlohmann::json listedJson(const ListedTemplate& t) {
  nlohmann::json j = {{"slug", t.slug},
                      {"name", t.name},
                      {"description", t.description},
                      {"installable", t.installable}};
  if (!t.version.empty()) j["version"] = t.version;
  if (!t.unavailable.empty()) j["unavailable"] = t.unavailable;
  return j;
}

// The install body: none, or a JSON object.
nlohmann::json installBody(const berth::Request& req) {
  if (req.body().empty()) return nlohmann::json::object();
  std::string type = req.header("content-type").value_or("");
  if (type.rfind("application/json", 0) != 0)
    throw Error(415, "Content-Type must be application/json");
  nlohmann::json body = nlohmann::json::parse(req.body(), nullptr, false);
  if (body.is_discarded()) throw Error::badRequest("the body is not valid JSON");
  return body;
}

// The project as GET /projects/{name} shows it to the caller now (its new live release, its
// state), with its id; the directory's own description when the view cannot be had.
nlohmann::json projectShown(const berth::Services& services,
                            const projects_directory::Project& project, const std::string& caller) {
  try {
    nlohmann::json shown = services.call(
        projects_directory::kService, projects_directory::kView,
        projects_directory::toJson(projects_directory::ViewRequest{project.id, caller}));
    projects_directory::parseProjectView(shown);  // the Project's shape, or Error
    shown["id"] = project.id;
    return shown;
  } catch (const Error&) {
    return projects_directory::toJson(project);
  }
}

// What the install route answers when the installer is done: the AppTemplateInstalled shape
// of docs/openapi.yaml, and whatever else the installer said beside it.
nlohmann::json installedAnswer(const berth::Services& services,
                               const projects_directory::Project& project,
                               const std::string& caller, const std::string& slug,
                               const nlohmann::json& answer) {
  nlohmann::json out = answer.is_object() ? answer : nlohmann::json::object();
  out["project"] = projectShown(services, project, caller);
  out["template"] = slug;
  if (!out.contains("schedules")) out["schedules"] = nlohmann::json::array();
  if (!out.contains("secrets")) out["secrets"] = nlohmann::json::array();
  return out;
}

// Who answers the request: the install, when it ends in time, or the 202 at the deadline.
struct PendingAnswer {
  std::shared_ptr<berth::Exchange> exchange;
  std::mutex mutex;
  std::condition_variable done;
  bool answered = false;

  template <class F>
  bool answerOnce(F&& answer) {
    std::lock_guard lock(mutex);
    if (answered) return false;
    answered = true;
    answer(exchange->responder);
    done.notify_all();
    return true;
  }
};

// A line of the project's own log (runtime.logs.v1), when the runtime plugin offers it.
void projectLog(const berth::Services& services, const std::string& project_id,
                const std::string& message) {
  try {
    berth::RuntimeLogs(services).platform(project_id, message.substr(0, 1000));
  } catch (const Error&) {
    // The install goes on without the line; berthd's own log has it.
  }
}

}  // namespace

void registerTemplateRoutes(berth::Registrar& r, Context& c) {
  r.get("/app-templates",
        [&c](berth::Request, berth::Responder resp) {
          nlohmann::json list = nlohmann::json::array();
          for (const ListedTemplate& t : listTemplates(catalogue(), c.services->installers()))
            list.push_back(listedJson(t));
          resp.json(200, {{"templates", list}});
        },
        {.publicRoute = true});

  r.get("/projects/:name/app-templates/:slug/install", [&c](berth::Request req,
                                                            berth::Responder resp) {
    auto project = ProjectsDirectory(*c.services).find(req.caller().accountId, req.param("name"));
    std::string slug = req.param("slug");
    auto run = InstallRuns(c.services->db()).latest(project.id, slug);
    if (!run) throw Error::notFound("no install of " + slug + " on " + project.name);
    nlohmann::json out = toJson(*run);
    if (run->status == "installed") out["answer"] = run->answer;
    resp.json(200, out);
  });

  r.post("/projects/:name/app-templates/:slug/install", [&c](berth::Request req,
                                                             berth::Responder resp) {
    const berth::Services& services = *c.services;
    std::string caller = req.caller().accountId;
    auto project = ProjectsDirectory(services).find(caller, req.param("name"));
    std::string slug = req.param("slug");
    auto listed = findTemplate(listTemplates(catalogue(), services.installers()), slug);
    if (!listed) throw Error::notFound("no app template named " + slug);
    if (listed->owner.empty()) throw Error::badRequest(slug + " cannot be installed");
    if (!listed->installable)
      throw Error(503, slug + " cannot be installed now: " + listed->unavailable);
    nlohmann::json body = installBody(req);
    // Checked here too (the core checks again), so that a refused body records nothing.
    std::vector<berth::detail::FieldView> fields;
    for (const Field& field : listed->fields)
      fields.push_back({field.name, static_cast<uint32_t>(field.type), field.required});
    if (auto problem = berth::detail::bodyFieldProblem(body, fields)) {
      resp.bytes(422, "text/plain; charset=utf-8", *problem);
      return;
    }

    InstallRuns runs(services.db());
    auto run = runs.begin(project.id, project.name, slug, caller, thisBerthd(services));
    if (!run)
      throw Error::conflict("an app template is already being installed on " + project.name +
                            "; wait for it to finish");
    auto pending = std::make_shared<PendingAnswer>();
    pending->exchange = berth::Exchange::make(std::move(req), std::move(resp));
    const std::string request_id = pending->exchange->request.id();
    const nlohmann::json context = {{"project", projects_directory::toJson(project)},
                                    {"caller", caller},
                                    {"request_id", request_id}};
    const int64_t run_id = run->id;
    projectLog(services, project.id, "installing the app template " + slug);
    c.workers.run(run_id, [&services, pending, context, body, slug, project, run_id, caller] {
      InstallRuns runs(services.db());
      try {
        nlohmann::json answer = installedAnswer(services, project, caller, slug,
                                                services.runInstall(slug, context, body));
        runs.finish(run_id, answer);
        projectLog(services, project.id, "the app template " + slug + " is installed");
        pending->answerOnce([&](berth::Responder& r) { r.json(200, answer); });
      } catch (const Error& e) {
        runs.fail(run_id, e.message());
        projectLog(services, project.id, "the install of " + slug + " failed: " + e.message());
        pending->answerOnce([&](berth::Responder& r) {
          // The core's field check speaks as the HTTP layer: plain text.
          if (e.status() == 422)
            r.bytes(422, "text/plain; charset=utf-8", e.message());
          else
            r.error(e);
        });
      } catch (const std::exception& e) {
        runs.fail(run_id, std::string("internal error: ") + e.what());
        pending->answerOnce([&](berth::Responder& r) { r.error(500, "internal error"); });
      }
    });
    // The waiter: a 202 if the install is still going at the deadline.
    std::thread([pending, seconds = c.settings.answer_within_seconds, project, slug, &services] {
      std::unique_lock lock(pending->mutex);
      if (pending->done.wait_for(lock, std::chrono::seconds(seconds),
                                 [&] { return pending->answered; }))
        return;
      lock.unlock();
      // What the installer last said it is doing ("building n8n for this server ...").
      nlohmann::json progress = nullptr;
      try {
        if (auto run = InstallRuns(services.db()).latest(project.id, slug); run && run->progress)
          progress = *run->progress;
      } catch (const std::exception&) {
        // The 202 goes out without it; the status shows it.
      }
      pending->answerOnce([&](berth::Responder& r) {
        r.json(202, {{"project", project.name},
                     {"template", slug},
                     {"status", "installing"},
                     {"progress", progress},
                     {"status_url",
                      "/projects/" + project.name + "/app-templates/" + slug + "/install"}});
      });
    }).detach();
  });
}

}  // namespace berth::templates
