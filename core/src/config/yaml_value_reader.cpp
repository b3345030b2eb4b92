#include "config/yaml_value_reader.hpp"

#include "config/config_text.hpp"
#include "config/settings.hpp"
#include "config/yaml_source.hpp"

namespace berth::core {

void YamlValueReader::fail(const std::string& key, const std::string& problem) const {
  throw ConfigError(file_ + ": " + key + ": " + problem);
}

std::string YamlValueReader::text(const YAML::Node& node, const std::string& key) const {
  if (node.IsNull()) return "";
  if (!node.IsScalar()) fail(key, "expected a string, got " + describeYaml(node));
  return node.Scalar();
}

int64_t YamlValueReader::integer(const YAML::Node& node, const std::string& key, int64_t min,
                                 int64_t max) const {
  const auto value = node.IsScalar() ? parseInteger(node.Scalar()) : std::nullopt;
  if (!value) fail(key, "expected an integer, got " + describeYaml(node));
  if (*value < min || *value > max) {
    fail(key, "must be from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                  std::to_string(*value));
  }
  return *value;
}

std::string YamlValueReader::oneOf(const YAML::Node& node, const std::string& key,
                                   const std::vector<std::string_view>& choices) const {
  const std::string value = text(node, key);
  std::string listed;
  for (std::string_view choice : choices) {
    if (value == choice) return value;
    listed += (listed.empty() ? "" : ", ") + std::string(choice);
  }
  fail(key, "expected one of " + listed + ", got " + describeYaml(node));
}

std::vector<std::string> YamlValueReader::textList(const YAML::Node& node,
                                                   const std::string& key) const {
  if (node.IsNull()) return {};
  if (!node.IsSequence()) fail(key, "expected a list, got " + describeYaml(node));
  std::vector<std::string> items;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string item_key = key + "[" + std::to_string(i) + "]";
    if (!node[i].IsScalar()) fail(item_key, "expected a string, got " + describeYaml(node[i]));
    items.push_back(node[i].Scalar());
  }
  return items;
}

void YamlValueReader::section(const YAML::Node& node, const std::string& name,
                              const std::vector<KeyHandler>& handlers) const {
  if (node.IsNull()) return;
  if (!node.IsMap()) fail(name, "expected a map of settings, got " + describeYaml(node));
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    bool known = false;
    for (const auto& [handled_key, handle] : handlers) {
      if (handled_key == key) {
        handle(entry.second);
        known = true;
        break;
      }
    }
    if (!known) {
      std::string listed;
      for (const auto& handler : handlers) listed += (listed.empty() ? "" : ", ") + handler.first;
      fail(name + "." + key, "unknown key (known: " + listed + ")");
    }
  }
}

}  // namespace berth::core
