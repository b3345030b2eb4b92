// The scheduler plugin: schedules (docs/openapi.yaml, Schedules) and the cron runner that
// makes their requests, once per matching minute across every node. README.md beside this
// folder lists every answer and setting.
#include <berth/plugin.hpp>
#include <berth/services/projects_directory.hpp>

#include <curl/curl.h>

#include <map>
#include <memory>
#include <mutex>

#include "context.hpp"
#include "edge_address.hpp"
#include "runner.hpp"
#include "schedule_routes.hpp"
#include "schedule_store.hpp"
#include "schedules_service.hpp"

#include "berth_migrations_scheduler.inc"

namespace berth::scheduler {

class SchedulerPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configInt("run_timeout_seconds", 300, "a schedule run is abandoned after this",
                berth::IntRange{1, 3600});
    r.configInt("concurrency", 64, "schedule runs in flight at once on this node",
                berth::IntRange{1, 4096});
    r.configInt("project_concurrency", 8, "schedule runs of one project in flight at once",
                berth::IntRange{1, 4096});
    r.configInt("max_schedules_per_project", 100,
                "schedules a project may have; one more answers 403", berth::IntRange{0, 1000000});
    r.configString("connect_to", "",
                   "host:port that schedule runs are sent to; empty: server.listen");
    r.configInt("minute_ms", 60000,
                "for tests only: real milliseconds in a scheduler minute (60000: the wall clock)",
                berth::IntRange{50, 60000});
    r.migrations(kBerthMigrations, kBerthMigrationCount);

    registerScheduleRoutes(r, context_);
    registerSchedulesService(r, context_);

    r.hook("project.deleted", [this](const nlohmann::json& payload) {
      if (!payload.is_object() || !payload.contains("id") || !payload["id"].is_string()) return;
      int64_t removed =
          ScheduleStore(context_.db()).removeProject(payload["id"].get<std::string>());
      if (removed > 0)
        context_.logger()
            .withProject(payload.value("name", ""))
            .info(std::to_string(removed) + " schedules removed with the project");
    });
    // A crash between a project's removal and the hook leaves schedules behind; this finds
    // them (missing twice in a row, ten minutes apart, so a deletion still in progress or
    // rolled back is not mistaken for one).
    r.job(
        "sweep", std::chrono::minutes(10), [this](berth::JobContext&) { sweep(); }, true);
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    Settings& s = context_.settings;
    s.run_timeout_ms = services.configValue<int>("run_timeout_seconds") * int64_t{1000};
    s.concurrency = services.configValue<int>("concurrency");
    s.project_concurrency = services.configValue<int>("project_concurrency");
    s.max_schedules_per_project = services.configValue<int64_t>("max_schedules_per_project");
    s.clock = SchedulerClock(services.configValue<int>("minute_ms"));
    s.apps_domain = services.coreSetting("server.apps_domain").value_or("localhost");
    std::string connect_to = services.configValue<std::string>("connect_to");
    std::string listen =
        connect_to.empty() ? services.coreSetting("server.listen").value_or("") : connect_to;
    auto edge = edgeAddress(listen);
    if (!edge)
      throw berth::Error(connect_to.empty()
                             ? "scheduler: server.listen (" + listen + ") is not host:port"
                             : "scheduler.connect_to: \"" + connect_to + "\" is not host:port");
    s.edge = *edge;
    if (!s.clock.isWallClock())
      services.logger().warn("scheduler.minute_ms is " + std::to_string(s.clock.minuteMs()) +
                             ": schedules run on a fast test clock, not the wall clock");

    curl_global_init(CURL_GLOBAL_DEFAULT);
    runner_ = std::make_unique<Runner>(context_);
    runner_->start();
    context_.wake_runner = [runner = runner_.get()] { runner->wake(); };
  }

  void stop() override {
    // The runner object stays until the plugin goes: handlers have drained, but wake() on a
    // stopped runner is harmless and a dangling one would not be.
    if (runner_) runner_->stop();
    curl_global_cleanup();
  }

 private:
  void sweep() {
    ScheduleStore store(context_.db());
    std::map<std::string, std::string> missing;  // id -> name
    const berth::ProjectsDirectory directory(*context_.services);
    for (const auto& [id, name] : store.projects())
      if (!directory.tryGetById(id)) missing.emplace(id, name);
    std::map<std::string, std::string> previously;
    {
      std::lock_guard lock(sweep_mutex_);
      previously.swap(missing_before_);
      missing_before_ = missing;
    }
    for (const auto& [id, name] : missing)
      if (previously.count(id)) {
        int64_t removed = store.removeProject(id);
        context_.logger().withProject(name).info(
            std::to_string(removed) + " schedules of the removed project (id " + id + ") swept");
      }
    store.sweepOrphanRuns();
  }

  Context context_;
  std::unique_ptr<Runner> runner_;
  std::mutex sweep_mutex_;
  std::map<std::string, std::string> missing_before_;
};

}  // namespace berth::scheduler

BERTH_PLUGIN(berth::scheduler::SchedulerPlugin, "scheduler", "0.1.0",
             "cron schedules that request a path on a project, once per minute across nodes",
             BERTH_KIND_FEATURE, "projects")
