// The sqlconsole plugin: a project's database seen through the API (structure, rows, SQL,
// import, export) and the browser data API on project hosts. Every statement runs on the
// project's own database as the project's own role. README.md beside this folder lists every
// answer.
#include <berth/plugin.hpp>

#include "context.hpp"
#include "project_access.hpp"
#include "routes.hpp"

namespace berth::sqlconsole {

class SqlconsolePlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configInt("workers", 8, "threads that run statements on project databases",
                berth::IntRange{1, 256});
    r.configInt("project_concurrency", 2,
                "statements of one project that run at once on the workers; the rest wait in "
                "the project's own queue while other projects' work goes on",
                berth::IntRange{1, 256});
    r.configInt("project_queue", 32,
                "statements (and, apart, imports and exports) of one project that may wait; "
                "more answer 503 with Retry-After",
                berth::IntRange{0, 100000});
    r.configInt("transfer_workers", 2,
                "threads that run imports and exports (apart from the workers; one per "
                "project at a time)",
                berth::IntRange{1, 64});
    r.configInt("transfer_timeout_seconds", 600,
                "an import or export running longer is stopped and answers 400, keeping nothing",
                berth::IntRange{1, 86400});
    r.configInt("idle_connections", 4, "idle connections kept per project database",
                berth::IntRange{0, 64});
    r.configInt("idle_connection_seconds", 60,
                "a kept connection to a project database that stays idle this long is closed",
                berth::IntRange{1, 86400});
    r.configInt("statement_timeout_seconds", 15,
                "a statement running longer is stopped (docs/openapi.yaml, /query rule 3: 15)",
                berth::IntRange{1, 3600});
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
    registerSqlService(r, context_);
    registerImportRoute(r, context_);
    registerExportRoute(r, context_);
    registerRowRoutes(r, context_);
    registerDataApiRoutes(r, context_);
    registerDataApiSettingsRoutes(r, context_);
    context_.grants.listen(r);

    // A project nobody uses now holds none of PostgreSQL's connections.
    r.job("idle_connections", std::chrono::seconds(1), [this](berth::JobContext&) {
      if (!context_.connections) return;
      const size_t closed =
          context_.connections->closeIdleLongerThan(context_.settings.idle_connection_longest);
      if (closed > 0)
        context_.logger().debug("closed " + std::to_string(closed) +
                                " idle project database connections");
    });

    // Pooled connections must not keep a database that is being dropped alive.
    r.hook("project.deleting", [this](const nlohmann::json& project) {
      context_.projects.forgetProject(project.value("id", ""));
      if (context_.connections) context_.connections->forget(project.value("id", ""));
    });
    r.hook("project.deleted", [this](const nlohmann::json& project) {
      context_.projects.forgetProject(project.value("id", ""));
      if (context_.connections) context_.connections->forget(project.value("id", ""));
    });
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    Settings& s = context_.settings;
    s.data_dir = services.coreSetting("data_dir").value_or(".");
    s.apps_domain = services.coreSetting("server.apps_domain").value_or("localhost");
    s.statement_timeout_ms = services.configValue<int>("statement_timeout_seconds") * 1000;
    s.catalog_recheck_ms = services.configValue<int>("catalog_recheck_ms");
    s.core_thread_wait =
        std::chrono::microseconds(services.configValue<int>("core_thread_wait_us"));
    s.idle_connection_longest =
        std::chrono::seconds(services.configValue<int>("idle_connection_seconds"));
    context_.connections = std::make_unique<ProjectConnections>(
        services, static_cast<size_t>(services.configValue<int>("idle_connections")),
        std::vector<std::pair<std::string, std::string>>{
            {"statement_timeout", std::to_string(s.statement_timeout_ms)}});
    context_.connections->onUnreachable(
        [this](const std::string& project_id) { context_.projects.forgetProject(project_id); });
    s.transfer_timeout =
        std::chrono::seconds(services.configValue<int>("transfer_timeout_seconds"));
    auto lane = [this](const berth::Request& request) { return workLane(context_, request); };
    const size_t project_queue = static_cast<size_t>(services.configValue<int>("project_queue"));
    PoolLimits workers;
    workers.threads = static_cast<size_t>(services.configValue<int>("workers"));
    workers.perKeyRunning = static_cast<size_t>(services.configValue<int>("project_concurrency"));
    workers.perKeyQueue = project_queue;
    workers.totalQueue = workers.threads * 64;
    context_.workers = std::make_unique<WorkerPool>(workers, lane);
    PoolLimits transfers;
    transfers.threads = static_cast<size_t>(services.configValue<int>("transfer_workers"));
    transfers.perKeyRunning = 1;
    transfers.perKeyQueue = project_queue;
    transfers.totalQueue = transfers.threads * 64;
    transfers.what = "imports and exports";
    transfers.runningKey = "";
    transfers.retryAfterSeconds = 30;
    context_.transfers = std::make_unique<WorkerPool>(transfers, lane);
  }

  void stop() override {
    context_.transfers.reset();  // finish queued work while connections still exist
    context_.workers.reset();
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
