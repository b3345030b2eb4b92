// What every part of the sqlconsole plugin shares once it has started.
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/project_host_cache.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "catalog_cache.hpp"
#include "data_api_grants.hpp"
#include "project_connections.hpp"
#include "worker_pool.hpp"

namespace berth::sqlconsole {

struct Settings {
  std::string data_dir;  // core's data_dir: export files are written under it
  std::string apps_domain = "localhost";
  int statement_timeout_ms = 15000;  // /query, /batch, rows and /_data statements
  int catalog_recheck_ms = 1000;     // how long a kept catalogue is trusted (catalog_cache.hpp)
  int max_query_rows = 500;          // /query: rows read from the server at most
  // a read's longest wait for the database on a core thread (worker_pool.hpp answerSoon); 0: none
  std::chrono::microseconds core_thread_wait{2000};
  int64_t import_max_bytes = int64_t{256} << 20;
  // an import or export running longer is stopped (transfer_clock.hpp)
  std::chrono::seconds transfer_timeout{600};
  // a kept project database connection idle longer is closed (ProjectConnections)
  std::chrono::seconds idle_connection_longest{60};
};

struct Context {
  const berth::Services* services = nullptr;
  Settings settings;
  std::unique_ptr<ProjectConnections> connections;
  std::unique_ptr<WorkerPool> workers;    // every route's database work, in project lanes
  std::unique_ptr<WorkerPool> transfers;  // imports and exports, one per project at a time
  // rows and /_data: each request's tables, checked by fingerprint
  CatalogCache catalogs{&settings.statement_timeout_ms, &settings.catalog_recheck_ms};
  // which project a name or an apps-domain host is, by the project's own host (never who may
  // reach it; project_access.hpp)
  berth::ProjectHostCache projects;
  // /_data: each project's key and what it opens, dropped on every change (NOTIFY)
  DataApiGrants grants;

  berth::Db db() const { return services->db(); }
  berth::Logger logger() const { return services->logger(); }
};

}  // namespace berth::sqlconsole
