// What every part of the scheduler plugin shares once it has started.
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "edge_address.hpp"
#include "scheduler_clock.hpp"

namespace berth::scheduler {

struct Settings {
  int64_t run_timeout_ms = 300000;
  int concurrency = 64;
  int project_concurrency = 8;
  int64_t max_schedules_per_project = 100;
  EdgeAddress edge;
  std::string apps_domain = "localhost";
  SchedulerClock clock;
};

struct Context {
  const berth::Services* services = nullptr;
  Settings settings;
  // Tells this node's runner that a schedule became due sooner than it planned (set once the
  // runner exists; the routes call it after a create or a resume).
  std::function<void()> wake_runner;

  berth::Db db() const { return services->db(); }
  berth::Logger logger() const { return services->logger(); }
  std::string hostOf(const std::string& project) const {
    return project + "." + settings.apps_domain;
  }
};

}  // namespace berth::scheduler
