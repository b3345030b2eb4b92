// What every part of the projects plugin shares once it has started: configuration, the
// secret boxes, the core's maker of per-project databases.
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/core_tenant_databases.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "project_lists.hpp"
#include "secret_box.hpp"

namespace berth::projects {

// Filled by ProjectsPlugin::start() (nothing reads it before): the defaults are the config
// declarations in registerAll() and start()'s fallbacks for core settings, written once there.
struct Settings {
  std::string apps_domain;
  int public_port = 0;
  std::vector<std::string> reserved_names;
  std::string dns_resolver;
  int64_t domain_claim_days = 0;  // an unverified domain claim expires after this
  int creation_burst = 0;
  double creation_refill_seconds = 0;
};

struct Context {
  const berth::Services* services = nullptr;
  Settings settings;
  // Seals secret values; absent when projects.secrets_key is empty (routes answer 501).
  std::optional<SecretBox> secrets;
  // Seals the project roles' database passwords (secrets_key, else a key kept in data_dir).
  std::optional<SecretBox> vault;
  // The core's core.tenant_databases.v1: it alone holds the cluster's superuser URL.
  std::optional<berth::CoreTenantDatabases> databases;
  // Each account's ready projects, for GET /projects (mutable: kept answers change on reads).
  mutable ProjectLists lists;

  berth::Db db() const { return services->db(); }
  berth::Logger logger() const { return services->logger(); }
  std::string hostOf(const std::string& name) const { return name + "." + settings.apps_domain; }
  std::string urlOf(const std::string& name) const {
    std::string url = "http://" + hostOf(name);
    if (settings.public_port != 80) url += ":" + std::to_string(settings.public_port);
    return url;
  }
};

}  // namespace berth::projects
