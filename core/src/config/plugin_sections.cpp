// Plugin sections: checked against the keys each plugin declared, once the plugins are loaded.
#include <algorithm>
#include <filesystem>

#include "config/settings.hpp"

namespace berth::core {
namespace {

// Mirrors berth_config_type in sdk/include/berth/abi.h.
enum PluginKeyType { kBool = 0, kInt = 1, kString = 2, kStringList = 3, kIntMap = 4 };

std::string describeJson(const nlohmann::json& value) {
  if (value.is_object()) return "a map";
  if (value.is_array()) return "a list";
  if (value.is_null()) return "nothing";
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) items.push_back(item);
    start = comma + 1;
  }
  return items;
}

class PluginKeyChecker {
 public:
  PluginKeyChecker(const Settings& settings, const std::string& plugin_id)
      : file_(settings.file), plugin_id_(plugin_id) {}

  // The value in its normal form; `origin` says where a refused value came from.
  nlohmann::json check(const PluginKey& key, const nlohmann::json& value,
                       const std::string& origin) const {
    auto refuse = [&](const std::string& expected) {
      fail(key.name, origin + "expected " + expected + ", got " + describeJson(value));
    };
    switch (key.type) {
      case kBool:
        if (!value.is_boolean()) refuse("true or false");
        return value;
      case kInt:
        if (!value.is_number_integer()) refuse("an integer");
        checkRange(key, value.get<int64_t>(), origin);
        return value;
      case kString:
        // "key:" with nothing after it reads as null; it means empty here.
        if (value.is_null()) return "";
        if (!value.is_string())
          refuse("a string (quote numbers and true/false to keep them as text)");
        return value;
      case kStringList:
        return stringList(value, refuse);
      case kIntMap:
        if (value.is_null()) return nlohmann::json::object();
        if (!value.is_object()) refuse("a map of name to integer or nothing");
        for (const auto& [name, limit] : value.items()) {
          if (!limit.is_null() && !limit.is_number_integer()) {
            fail(key.name + "." + name,
                 origin + "expected an integer or nothing, got " + describeJson(limit));
          }
        }
        return value;
      default:
        fail(key.name, "the plugin declares an unknown type " + std::to_string(key.type));
    }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw ConfigError(file_ + ": " + plugin_id_ + "." + key + ": " + problem);
  }

 private:
  void checkRange(const PluginKey& key, int64_t value, const std::string& origin) const {
    if (key.min <= key.max && (value < key.min || value > key.max)) {
      fail(key.name, origin + "must be from " + std::to_string(key.min) + " to " +
                         std::to_string(key.max) + ", got " + std::to_string(value));
    }
  }

  template <typename Refuse>
  static nlohmann::json stringList(const nlohmann::json& value, Refuse refuse) {
    if (value.is_null()) return nlohmann::json::array();
    // --set id.key=a,b cannot say it means a list; the comma-separated string does.
    if (value.is_string()) return splitCommas(value.get<std::string>());
    if (!value.is_array()) refuse("a list of strings");
    for (const auto& item : value) {
      if (!item.is_string()) refuse("a list of strings");
    }
    return value;
  }

  std::string file_;
  std::string plugin_id_;
};

}  // namespace

nlohmann::json applyPluginKeys(const Settings& settings, const std::string& plugin_id,
                               const std::vector<PluginKey>& keys) {
  const PluginKeyChecker checker(settings, plugin_id);
  nlohmann::json section = nlohmann::json::object();
  if (auto found = settings.plugin_sections.find(plugin_id);
      found != settings.plugin_sections.end() && !found->second.is_null()) {
    section = found->second;
  }

  for (auto item : section.items()) {
    // Not structured bindings: the lambda below captures the name, which clang before 16
    // refuses for a binding (the sanitizer build uses Debian's clang 14).
    const std::string name = item.key();
    nlohmann::json& value = item.value();
    auto key = std::find_if(keys.begin(), keys.end(),
                            [&name](const PluginKey& k) { return k.name == name; });
    if (key == keys.end()) {
      std::string known;
      for (const PluginKey& k : keys) known += (known.empty() ? "" : ", ") + k.name;
      checker.fail(name, known.empty() ? "unknown key (the plugin has no settings)"
                                       : "unknown key (known: " + known + ")");
    }
    value = checker.check(*key, value, "");
  }
  for (const PluginKey& key : keys) {
    if (!section.contains(key.name)) {
      // A default that fails its own type is the plugin's bug; say so rather than guess.
      section[key.name] = checker.check(key, key.default_value, "the plugin's default: ");
    }
  }
  return section;
}

void checkUnclaimedSections(const Settings& settings, const std::vector<std::string>& loaded_ids) {
  for (const auto& [id, section] : settings.plugin_sections) {
    if (std::find(loaded_ids.begin(), loaded_ids.end(), id) != loaded_ids.end()) continue;
    // A disabled plugin keeps its settings, so enabling it later is a one-word change.
    std::error_code ignored;
    const auto library = std::filesystem::path(settings.plugins.dir) / ("libberth_" + id + ".so");
    if (std::filesystem::exists(library, ignored)) continue;
    throw ConfigError(settings.file + ": " + id +
                      ": unknown key (neither a core key nor a plugin in " + settings.plugins.dir +
                      ")");
  }
}

}  // namespace berth::core
