// The berth_host_api table berthd hands every plugin, and the pieces of it that live in their
// own files.
#pragma once
#include <berth/abi.h>

namespace berth::core {

const berth_host_api& hostApi();

// Registration calls (registration_api.cpp).
int32_t declareConfig(berth_host* host, const berth_config_key* key) noexcept;
int32_t addRoute(berth_host* host, const berth_route* route) noexcept;
int32_t addMigration(berth_host* host, uint32_t version, berth_str name, berth_str sql) noexcept;
int32_t addJob(berth_host* host, const berth_job* job) noexcept;
int32_t addHook(berth_host* host, berth_str event, berth_hook_fn fn, void* user) noexcept;
int32_t offerService(berth_host* host, berth_str name, berth_service_fn fn, void* user) noexcept;
int32_t addInstaller(berth_host* host, const berth_installer* installer) noexcept;
int32_t addAppInstaller(berth_host* host, const berth_app_installer* installer) noexcept;
void setInstance(berth_host* host, void* instance, void (*destroy)(void*)) noexcept;

// Installs the core mediates (install_mediator.cpp).
void listAppInstallers(berth_host* host, berth_app_installer_visit_fn visit, void* ctx) noexcept;
int32_t runAppInstall(berth_host* host, berth_str slug, berth_str context_json,
                      berth_str request_json, berth_buffer* out) noexcept;
berth_str installContext(berth_install_ctx* ctx) noexcept;
int32_t installCall(berth_install_ctx* ctx, berth_str service, berth_str method,
                    berth_str request_json, berth_buffer* out) noexcept;
void installLog(berth_install_ctx* ctx, uint32_t level, berth_str message) noexcept;

}  // namespace berth::core
