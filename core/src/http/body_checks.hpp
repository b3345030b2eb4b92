// The checks the HTTP layer makes on a JSON route's body before any handler runs
// (api.md, Errors: 415 and 422 are plain text, invalid JSON is a 400 JSON error).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "http/http_types.hpp"
#include "http/router.hpp"

namespace berth::core {

// nullopt when the body may reach the handler, else the answer to send.
std::optional<HttpResponse> checkJsonBody(const HttpRequest& request,
                                          const std::vector<FieldRule>& fields);

bool isJsonContentType(const std::string& content_type);

}  // namespace berth::core
