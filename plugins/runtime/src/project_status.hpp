// What the runtime tells the projects plugin through runtime.status.v1 (`project` ->
// `{state, live}`, <berth/services/runtime_status.hpp>), in the words of docs/openapi.yaml's
// Project: `state` is `running` only while the project has a process of its own running (a
// static site, or one starting or waiting to restart, reads `stopped`); `live` is
// `{id, created_at, files, bytes}` of the live release, or null.
#pragma once
#include <berth/services/runtime_status.hpp>
#include <nlohmann/json.hpp>

#include <optional>

#include "process_supervisor.hpp"

namespace berth::runtime {

using LiveRelease = berth::runtime_status::LiveRelease;

berth::runtime_status::Status projectStatus(std::optional<AppState> process,
                                            const std::optional<LiveRelease>& live);

// projectStatus written as the service answers it.
nlohmann::json projectStatusJson(std::optional<AppState> process,
                                 const std::optional<LiveRelease>& live);

}  // namespace berth::runtime
