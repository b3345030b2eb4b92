// The sqlconsole plugin: a project's database seen through the API (structure, rows, SQL,
// import, export) and the browser data API on project hosts. Every statement runs on the
// project's own database as the project's own role. README.md beside this folder lists every
// answer.
#include <berth/plugin.hpp>

#include "context.hpp"
#include "routes.hpp"

namespace berth::sqlconsole {

class SqlconsolePlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configInt("workers", 8, "threads that run statements on project databases",
                berth::IntRange{1, 256});
    r.configInt("idle_connections", 4, "idle connections kept per project database",
                berth::IntRange{0, 64});
    r.configInt("statement_timeout_seconds", 15,
                "a statement running longer is stopped (api.md: 15)", berth::IntRange{1, 3600});
    r.configInt("core_thread_wait_us", 2000,
                "how long a read of the rows routes or /_data may hold the core thread that "
                "received it, waiting for the database, before the plugin's workers take it "
                "over (0: every request goes to the workers)",
                berth::IntRange{0, 1000000});
    r.configInt("catalog_recheck_ms", 1000,
                "how long the rows routes trust a table's kept catalogue before checking it "
                "again (0: check on every request)",
                berth::IntRange{0, 60000});

    registerStructureRoutes(r, context_);
    registerSqlRoutes(r, context_);
    registerImportRoute(r, context_);
    registerExportRoute(r, context_);
    registerRowRoutes(r, context_);
    registerDataApiRoutes(r, context_);
    registerDataApiSettingsRoutes(r, context_);

    // Pooled connections must not keep a database that is being dropped alive.
    r.hook("project.deleting", [this](const nlohmann::json& project) {
      context_.projects.forget(project.value("id", ""));
      if (context_.connections) context_.connections->forget(project.value("id", ""));
    });
    r.hook("project.deleted", [this](const nlohmann::json& project) {
      context_.projects.forget(project.value("id", ""));
      if (context_.connections) context_.connections->forget(project.value("id", ""));
    });
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    const nlohmann::json& config = services.config();
    Settings& s = context_.settings;
    s.data_dir = services.coreSetting("data_dir").value_or(".");
    s.apps_domain = services.coreSetting("server.apps_domain").value_or("localhost");
    s.statement_timeout_ms = config.value("statement_timeout_seconds", 15) * 1000;
    s.catalog_recheck_ms = config.value("catalog_recheck_ms", 1000);
    s.core_thread_wait = std::chrono::microseconds(config.value("core_thread_wait_us", 2000));
    context_.connections = std::make_unique<ProjectConnections>(
        services, static_cast<size_t>(config.value("idle_connections", 4)),
        std::vector<std::pair<std::string, std::string>>{
            {"statement_timeout", std::to_string(s.statement_timeout_ms)}});
    context_.connections->onUnreachable(
        [this](const std::string& project_id) { context_.projects.forget(project_id); });
    context_.grants.start(services.coreSetting("database.url").value_or(""), services.logger());
    size_t workers = static_cast<size_t>(config.value("workers", 8));
    context_.workers = std::make_unique<WorkerPool>(workers, workers * 64);
  }

  void stop() override {
    context_.workers.reset();  // finishes queued work while connections still exist
    context_.connections.reset();
    context_.grants.stop();
  }

 private:
  Context context_;
};

}  // namespace berth::sqlconsole

BERTH_PLUGIN(berth::sqlconsole::SqlconsolePlugin, "sqlconsole", "0.1.0",
             "project databases: structure, rows, SQL, import, export, browser data API",
             BERTH_KIND_FEATURE, "projects")
