// The stored-file routes: POST/DELETE /projects/{name}/files/{path}, GET /projects/{name}/files
// on the API host, and GET/HEAD /_files/{path} on project hosts.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::storage {

void registerFileRoutes(berth::Registrar& r, Context& context);

}  // namespace berth::storage
