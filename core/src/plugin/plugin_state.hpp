// What the manager keeps per loaded plugin, and PluginManager::Impl, which the C trampolines
// reach through each plugin's berth_host.
#pragma once
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <berth/abi.h>
#include <spdlog/logger.h>

#include "plugin/hook_registry.hpp"
#include "plugin/installer_registry.hpp"
#include "plugin/loader.hpp"
#include "plugin/plugin_manager.hpp"
#include "plugin/service_registry.hpp"

// One per loaded plugin: the handle every host_api call carries, so the core knows who asks.
struct berth_host {
  berth_host(berth::core::PluginManager::Impl& manager, std::string id);

  berth::core::PluginManager::Impl& manager;
  const std::string id;
  // berth_plugin_kind: a template plugin acts on projects only through install contexts.
  uint32_t kind = BERTH_KIND_FEATURE;
  std::shared_ptr<spdlog::logger> logger;  // "plugin.<id>"

  // True only while berth_plugin_register_v1 runs (main thread); registration calls outside
  // that window are refused.
  bool registering = false;
  // The first registration call the core refused: it fails registration even if the plugin
  // ignored the BERTH_ERR.
  std::string first_refusal;

  // What report_error last said; read after register or start return.
  std::mutex reported_mutex;
  std::string reported_error;

  std::vector<berth::core::PluginKey> config_keys;
  // The section as JSON text; each applyConfig appends, so views handed out earlier stay valid
  // for the process's life.
  std::deque<std::string> config_versions{"{}"};
  std::vector<berth::core::Migration> migrations;
  std::vector<berth::core::JobDecl> jobs;
  void* instance = nullptr;
  void (*destroy_instance)(void*) = nullptr;
  std::vector<std::string> custom_hosts;  // guarded by manager.custom_hosts_mutex
  // Guarded by the manager's edge_rules_mutex.
  std::vector<berth::core::EdgeCacheRule> edge_cache_rules;
  std::vector<berth::core::EdgeFilesRule> edge_files_rules;
  std::vector<berth::core::EdgeAppRule> edge_app_rules;

  void report(std::string message);
  std::string takeReported();
};

namespace berth::core {

struct LoadedPlugin {
  PluginLibrary library;
  std::unique_ptr<berth_host> host;
  bool started = false;
};

struct PluginManager::Impl {
  explicit Impl(CoreParts core_parts) : parts(std::move(core_parts)) {}

  // Keeps the library and makes the host handle the plugin registers with. Tests adopt a
  // library-less PluginLibrary (only its id set) to drive the trampolines directly.
  berth_host& adopt(PluginLibrary library);
  std::string dataDir() const { return parts.settings ? parts.settings->data_dir : ""; }

  // The string lives as long as the manager; equal strings share storage.
  berth_str intern(std::string value);

  CoreParts parts;
  Router* router = nullptr;           // set while loadAll registers plugins
  std::vector<LoadedPlugin> plugins;  // in load (dependency) order
  HookRegistry hooks;
  ServiceRegistry services;
  InstallerRegistry installers;

  std::mutex custom_hosts_mutex;
  std::mutex edge_rules_mutex;

 private:
  std::mutex interned_mutex_;
  std::set<std::string, std::less<>> interned_;
};

}  // namespace berth::core
