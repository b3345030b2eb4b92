#include "config/yaml_to_json.hpp"

#include <string>

#include "config/config_text.hpp"

namespace berth::core {
namespace {

nlohmann::json scalarToJson(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  // Only a plain scalar is typed by its looks; "!" marks a quoted one, "" one built in code.
  if (node.Tag() != "?") return text;
  // YAML 1.2 core schema only: "yes", "on" and "y" stay strings (country codes, names).
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (auto integer = parseInteger(text)) return *integer;
  return text;
}

}  // namespace

nlohmann::json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return scalarToJson(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(yamlToJson(item));
      return array;
    }
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& entry : node) object[entry.first.Scalar()] = yamlToJson(entry.second);
      return object;
    }
    default:
      return nullptr;
  }
}

}  // namespace berth::core
