// The checks the HTTP layer makes on a JSON route's body before any handler runs
// (docs/openapi.yaml, "Errors": a body over the route's limit is 413, 415 and 422 are plain text,
// invalid JSON is a 400 JSON error).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http/http_types.hpp"
#include "http/router.hpp"

namespace berth::core {

// nullopt when the body may reach the handler, else the answer to send. The edge refuses a body
// over the JSON limit (edge.json_body_limit) already; a route with a smaller limit of its own
// (max_body_bytes, 0 for none) is refused here, in the edge's words.
std::optional<HttpResponse> checkJsonBody(const HttpRequest& request,
                                          const std::vector<FieldRule>& fields,
                                          uint64_t max_body_bytes = 0);

// The 422 text for a parsed body without the fields it must have (berth/util/body_fields.hpp, the
// words the SDK's fake host uses too); nullopt when it has them.
std::optional<std::string> fieldProblem(const nlohmann::json& body,
                                        const std::vector<FieldRule>& fields);

// "the request body is too large for this route (limit 16 KB)": the edge's 413 and ours.
std::string bodyTooLargeMessage(uint64_t limit_bytes);

bool isJsonContentType(const std::string& content_type);

}  // namespace berth::core
