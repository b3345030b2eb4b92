// The API's reference (docs/openapi.yaml) in tests: the document itself, and real answers of
// berthd checked against its response schemas.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/http_client.hpp"

namespace berth::testing {

// docs/openapi.yaml of the source tree, as JSON (the way berthd serves it at /openapi.json).
nlohmann::json loadOpenApiDocument();

// Answers collected during a test, then checked in one run of tests/support/validate_answers.py
// (Debian's python3-jsonschema, JSON Schema 2020-12 as OpenAPI 3.1 uses).
class AnswerSamples {
 public:
  // `path` as requested, without the query.
  void add(const std::string& method, const std::string& path, const HttpResult& answer);
  size_t size() const { return samples_.size(); }
  // The validator's report: one line per problem and a count; `ok` is false when any.
  struct Report {
    bool ok = false;
    std::string text;
  };
  Report check(const nlohmann::json& document) const;

 private:
  nlohmann::json samples_ = nlohmann::json::array();
};

}  // namespace berth::testing
