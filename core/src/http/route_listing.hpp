// What `berthd routes --json` prints: every route the core and the loaded plugins registered,
// in the terms of the API's reference (docs/openapi.yaml), so the two can be compared.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "http/router.hpp"

namespace berth::core {

// "/projects/:name/files/*path" -> "/projects/{name}/files/{path}" (OpenAPI's path template).
std::string openApiPath(const std::string& pattern);

// [{method, path, pattern, owner, public, host: "api"|"project", body: "none"|"json"|"raw",
//   max_body_bytes, fields: [{name, type, required}]}], by path and then method.
nlohmann::json routeListing(const Router& router);

}  // namespace berth::core
