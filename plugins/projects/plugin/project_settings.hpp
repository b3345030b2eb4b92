// The settings PATCH /projects/{name} changes (docs/openapi.yaml: region, cmd,
// ignore_dockerfile, cache_enabled, cache_ttl), checked and stored here once for the route and
// for projects.directory.v1 `set_cmd`: the same rules and texts, the same effects.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "context.hpp"
#include "project_record.hpp"

namespace berth::projects {

// What to change; a field left empty keeps its value.
struct SettingsChange {
  std::optional<std::string> region;
  std::optional<std::string> cmd;
  std::optional<bool> ignore_dockerfile;
  std::optional<bool> cache_enabled;
  std::optional<int64_t> cache_ttl;
};

// Every field is checked before anything changes (400 "unknown region <r>", the start-command
// rules' texts, "cache_ttl must be between 0 and 31536000"); then the project is stored, its
// account's kept list dropped, and project.updated fired (the runtime moves its edge cache
// rules at once; nothing is restarted). Returns the project as stored.
ProjectRecord changeSettings(const Context& context, ProjectRecord project,
                             const SettingsChange& change);

// The payload of the project.* events.
nlohmann::json projectEventPayload(const ProjectRecord& project);

// Fires an event after the fact: a plugin's refusal cannot undo it, so it is only logged.
void fireQuietly(const Context& context, const char* event, const ProjectRecord& project);

}  // namespace berth::projects
