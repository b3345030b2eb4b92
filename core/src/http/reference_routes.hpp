// The API's own reference, served by the core without a token:
//   GET /openapi.json  the OpenAPI document (docs/openapi.yaml, installed in share/berth)
//   GET /docs          a readable page made from it at build time (share/berth/docs.html)
// Both are read once, when berthd starts.
#pragma once
#include <string>

#include "http/router.hpp"

namespace berth::core {

void addReferenceRoutes(Router& router, const std::string& share_dir);

}  // namespace berth::core
