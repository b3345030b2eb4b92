// Turns berth.yaml and the --set overrides into one YAML tree, before any key is checked.
#pragma once
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/settings.hpp"

namespace berth::core {

// Reads and parses the file; the result is always a map (an empty file is an empty map).
// Throws ConfigError for an unreadable file, invalid YAML (with its line) and duplicate keys,
// which yaml-cpp would otherwise accept silently, and for a document whose aliases expand it
// past 50000 values or 1000 levels (an alias repeated at every level, or one inside its own
// anchor), which no walk of it could finish.
YAML::Node readConfigDocument(const std::string& file);

// What applyOverrides needs to know of the keys it sets.
struct OverrideKeys {
  std::set<std::string> lists;   // take a comma-separated list ("projects,storage")
  std::set<std::string> leaves;  // hold a single value, so "<leaf>.x" names no key
};

// Sets each dotted key to its value parsed as a YAML scalar, creating sections on the way.
void applyOverrides(YAML::Node& root, const std::vector<Override>& overrides,
                    const std::string& file, const OverrideKeys& keys);

// How a value reads in an error message: "abc" (quoted), a list, a map, nothing.
std::string describeYaml(const YAML::Node& node);

}  // namespace berth::core
