// What the runtime tells the projects plugin through runtime.status.v1 (`project` ->
// `{state, live}`), in api.md's words: `state` is `running` only while the project has a
// process of its own running (a static site, or one starting or waiting to restart, reads
// `stopped`); `live` is `{id, created_at, files, bytes}` of the live release, or null.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "process_supervisor.hpp"

namespace berth::runtime {

struct LiveRelease {
  std::string id;
  std::int64_t created_at = 0;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

nlohmann::json projectStatusJson(std::optional<AppState> process,
                                 const std::optional<LiveRelease>& live);

}  // namespace berth::runtime
