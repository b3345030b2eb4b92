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
void setInstance(berth_host* host, void* instance, void (*destroy)(void*)) noexcept;

}  // namespace berth::core
