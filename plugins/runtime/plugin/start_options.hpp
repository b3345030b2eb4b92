// Each project's start options (runtime.apps.v1): the table runtime.start_options (migration
// 0005) and the rules only the runtime can check (its shared folder, the platform's names).
// The gateway reads them whenever it builds an app's spec (gateway_app_spec.cpp).
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/runtime_apps.hpp>

#include <string>

namespace berth::runtime {

using StartOptions = berth::runtime_apps::StartOptions;

// The project's options; nulls and empties when it has none.
StartOptions readStartOptions(const berth::Services& services, const std::string& project_id);
// Replaces the project's options whole.
void writeStartOptions(const berth::Services& services, const StartOptions& options);
void removeStartOptions(const berth::Services& services, const std::string& project_id);

// @throw berth::Error 400 "a read-only path must be a folder under <shared_dir>: <path>"
// (sharedFolderOk), "environment <NAME> is set by the platform; start options cannot set it".
void checkStartOptions(const StartOptions& options, const std::string& shared_dir);

}  // namespace berth::runtime
