// Plugin sections travel as JSON: the SDK has no YAML in it.
#pragma once
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace berth::core {

// Plain (unquoted) true/false become booleans and plain integers that fit in 64 bits become
// integers; every other scalar, quoted ones included, stays a string. YAML null is JSON null.
nlohmann::json yamlToJson(const YAML::Node& node);

}  // namespace berth::core
