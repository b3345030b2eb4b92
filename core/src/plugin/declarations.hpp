// Turns what a plugin declares through the ABI (routes, config keys, jobs, migrations) into the
// core's own records, refusing malformed declarations with std::invalid_argument saying why.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include <berth/abi.h>

#include "config/settings.hpp"
#include "db/migrator.hpp"
#include "http/router.hpp"
#include "plugin/plugin_manager.hpp"

// What a running job sees: the flag the core raises when the job should finish early.
struct berth_job_ctx {
  const std::atomic<bool>* stop_requested;
};

namespace berth::core {

// The JSON body limit, also the default for routes that do not give one.
inline constexpr uint64_t kDefaultMaxBodyBytes = 2u * 1024u * 1024u;

Route makeRoute(const std::string& owner, const berth_route& route, const std::string& data_dir);
PluginKey makePluginKey(const berth_config_key& key);
JobDecl makeJob(const std::string& owner, const berth_job& job);
Migration makeMigration(const std::string& owner, uint32_t version, berth_str name, berth_str sql);

}  // namespace berth::core
