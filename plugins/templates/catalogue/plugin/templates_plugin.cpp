// The templates plugin: the app-template catalogue and its install route. Installers are
// other plugins (plugins/templates/<app>/); the core runs them for this plugin
// (Services::runInstall). README.md beside this folder lists every answer and setting.
#include <berth/plugin.hpp>

#include "install_runs.hpp"
#include "template_routes.hpp"

#include "berth_migrations_templates.inc"

namespace berth::templates {

class TemplatesPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configInt("answer_within_seconds", 20,
                "an install still running after this answers 202 and goes on; GET the same "
                "address to follow it",
                berth::IntRange{0, 600});
    r.migrations(kBerthMigrations, kBerthMigrationCount);
    registerTemplateRoutes(r, context_);
    registerProgressService(r, context_);
    r.hook("project.deleted", [this](const nlohmann::json& payload) {
      if (payload.is_object() && payload.contains("id") && payload["id"].is_string())
        InstallRuns(context_.services->db()).removeProject(payload["id"].get<std::string>());
    });
    // A running install's row says it is alive; one whose node died stops saying so and is
    // taken over by the next attempt (InstallRuns::kStaleAfterSeconds).
    r.job("heartbeat", std::chrono::seconds(30), [this](berth::JobContext&) {
      InstallRuns runs(context_.services->db());
      for (int64_t id : context_.workers.running()) runs.heartbeat(id);
    });
    // An install an earlier run of this berthd was making when it died (kill -9, a crash) is
    // over: marked failed at start, so that it reads failed and can be run again at once.
    // Other nodes' installs wait for their heartbeat to go stale. Only the start's run finds
    // any.
    r.job(
        "interrupted_installs", std::chrono::hours(24),
        [this](berth::JobContext& job) {
          const berth::Services& services = *context_.services;
          int64_t failed =
              InstallRuns(services.db()).failInterrupted(thisNode(services), thisBerthd(services));
          if (failed > 0)
            job.logger().warn("marked failed " + std::to_string(failed) +
                              " installs an earlier run of this berthd left unfinished");
        },
        true);
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    context_.settings.answer_within_seconds = services.configValue<int>("answer_within_seconds");
  }

  void stop() override { context_.workers.joinAll(); }

 private:
  Context context_;
};

}  // namespace berth::templates

BERTH_PLUGIN(berth::templates::TemplatesPlugin, "templates", "1.0.0",
             "the app-template catalogue and its install route", BERTH_KIND_FEATURE, "projects")
