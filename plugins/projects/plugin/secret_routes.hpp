// Secrets: environment values of a project, sealed at rest, never shown again. The routes
// (POST/GET/DELETE /projects/{name}/secrets) and projects.secrets.v1 for other plugins and
// installers (berth/services/projects_secrets.hpp), both over SecretStore.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::projects {

void registerSecretRoutes(berth::Registrar& registrar, const Context& context);

}  // namespace berth::projects
