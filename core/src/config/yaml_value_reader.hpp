// Reads typed values out of the YAML tree; every refusal names the file and the dotted key.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace berth::core {

class YamlValueReader {
 public:
  // One key of a section and what to do with its value.
  using KeyHandler = std::pair<std::string, std::function<void(const YAML::Node&)>>;

  explicit YamlValueReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

  // Any scalar as written; an empty value (null) is the empty string.
  std::string text(const YAML::Node& node, const std::string& key) const;
  int64_t integer(const YAML::Node& node, const std::string& key, int64_t min, int64_t max) const;
  std::string oneOf(const YAML::Node& node, const std::string& key,
                    const std::vector<std::string_view>& choices) const;
  // A list of scalars; an empty value (null) is the empty list.
  std::vector<std::string> textList(const YAML::Node& node, const std::string& key) const;

  // Hands each entry of the section "name" to the handler of its key; a key without a handler
  // is refused with the list of known keys. An empty value (null) is an empty section.
  void section(const YAML::Node& node, const std::string& name,
               const std::vector<KeyHandler>& handlers) const;

 private:
  std::string file_;
};

}  // namespace berth::core
