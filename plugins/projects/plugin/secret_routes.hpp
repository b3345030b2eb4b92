// Secrets: environment values of a project, sealed at rest, never shown again.
#pragma once
#include <berth/plugin.hpp>

#include <map>
#include <string>

#include "context.hpp"
#include "project_record.hpp"

namespace berth::projects {

void registerSecretRoutes(berth::Registrar& registrar, const Context& context);

// The opened values of a project's secrets for a scope ("runtime" or "build"): those of that
// scope and those of scope "both".
std::map<std::string, std::string> secretValues(const Context& context,
                                                const ProjectRecord& project,
                                                const std::string& scope);

}  // namespace berth::projects
