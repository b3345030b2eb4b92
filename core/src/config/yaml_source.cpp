#include "config/yaml_source.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <yaml-cpp/depthguard.h>
#include <nlohmann/json.hpp>

namespace berth::core {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string readWholeFile(const std::string& file) {
  std::unique_ptr<std::FILE, FileCloser> in(std::fopen(file.c_str(), "rb"));
  if (!in) {
    throw ConfigError("cannot read config file " + file + ": " + std::strerror(errno));
  }
  std::string text;
  char buffer[8192];
  size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, in.get())) > 0) text.append(buffer, got);
  if (std::ferror(in.get())) {
    // A directory opens fine and fails here with EISDIR.
    throw ConfigError("cannot read config file " + file + ": " + std::strerror(errno));
  }
  return text;
}

std::string joinPath(const std::string& parent, const std::string& child) {
  return parent.empty() ? child : parent + "." + child;
}

// Aliases make the tree a graph: an alias may repeat a large value, each level doubling the
// last ("billion laughs"), or sit inside its own anchor (`a: &x [*x]`, a cycle). Every walk of
// the tree (this one, the plugin sections' conversion to JSON) would then take exponential time
// or recurse until the stack overflows, so such a document is refused, with these bounds.
// Written configs are far below them: hundreds of values, a handful of levels. yaml-cpp itself
// refuses a text nested deeper than about 500 levels (YAML::DeepRecursion), so only aliases
// reach kMaxDepth.
constexpr size_t kMaxValues = 50000;
constexpr int kMaxDepth = 1000;

struct TreeWalk {
  const std::string& file;
  size_t values = 0;
  // The keys and "[i]" down to the node walked, joined only for a message: copying the dotted
  // path at every level costs the square of its length, which a cycle of long keys makes huge.
  std::vector<std::string> path;

  std::string pathText() const {
    std::string text;
    for (const std::string& part : path)
      text += text.empty() || part.front() == '[' ? part : "." + part;
    return text;
  }
};

// yaml-cpp keeps both entries of a repeated key and lookups see only the first, so a second
// "listen:" further down would be ignored without a word. Refuse it instead.
void refuseDuplicateKeys(const YAML::Node& node, TreeWalk& walk, int depth) {
  const std::string& file = walk.file;
  if (++walk.values > kMaxValues) {
    throw ConfigError(file + ": the document holds more than " + std::to_string(kMaxValues) +
                      " values once its aliases (*name) are expanded");
  }
  if (depth > kMaxDepth) {
    throw ConfigError(file + ": line " + std::to_string(node.Mark().line + 1) +
                      ": nested deeper than " + std::to_string(kMaxDepth) +
                      " levels once its aliases are expanded (is an alias inside its own "
                      "anchor?)");
  }
  if (node.IsSequence()) {
    // Iterated rather than indexed: a const node[i] merges yaml-cpp's node pools each time.
    size_t i = 0;
    for (const auto& item : node) {
      walk.path.push_back("[" + std::to_string(i++) + "]");
      refuseDuplicateKeys(item, walk, depth + 1);
      walk.path.pop_back();
    }
    return;
  }
  if (!node.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      const std::string path = walk.pathText();
      throw ConfigError(file + ": line " + std::to_string(entry.first.Mark().line + 1) + ": " +
                        (path.empty() ? "" : path + ": ") + "keys must be plain names");
    }
    const std::string key = entry.first.Scalar();
    walk.path.push_back(key);
    if (!seen.insert(key).second) {
      throw ConfigError(file + ": " + walk.pathText() + ": duplicate key (line " +
                        std::to_string(entry.first.Mark().line + 1) + ")");
    }
    refuseDuplicateKeys(entry.second, walk, depth + 1);
    walk.path.pop_back();
  }
}

std::vector<std::string> splitDottedKey(const Override& item, const std::string& file) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = item.key.find('.', start);
    parts.push_back(item.key.substr(start, dot == std::string::npos ? dot : dot - start));
    if (parts.back().empty()) {
      throw ConfigError(file + ": --set " + item.key + "=" + item.value +
                        ": expected a dotted key such as server.listen");
    }
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

std::string trim(const std::string& text) {
  const char* blanks = " \t";
  size_t first = text.find_first_not_of(blanks);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

YAML::Node commaSeparatedList(const std::string& text) {
  YAML::Node list(YAML::NodeType::Sequence);
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = trim(text.substr(start, comma - start));
    if (!item.empty()) list.push_back(item);
    start = comma + 1;
  }
  return list;
}

YAML::Node overrideValue(const std::string& text, bool is_list_key) {
  YAML::Node parsed;
  try {
    parsed = YAML::Load(text);
  } catch (const YAML::Exception&) {
    // Not valid YAML on its own ("a: b: c"): take the text as it is.
    return YAML::Node(text);
  }
  if (parsed.IsMap()) return YAML::Node(text);
  if (is_list_key && parsed.IsScalar()) return commaSeparatedList(text);
  if (is_list_key && parsed.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
  return parsed;
}

}  // namespace

YAML::Node readConfigDocument(const std::string& file) {
  const std::string text = readWholeFile(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // Its own message is "bad file".
    throw ConfigError(file + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) +
                      ": invalid YAML: nested too deeply (lists and maps nest at most about "
                      "500 levels deep)");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw ConfigError(file + ": invalid YAML: " + e.what());
  }
  if (root.IsNull()) return YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) {
    throw ConfigError(file + ": expected a map of settings at the top level, got " +
                      describeYaml(root));
  }
  TreeWalk walk{file, 0, {}};
  refuseDuplicateKeys(root, walk, 0);
  return root;
}

void applyOverrides(YAML::Node& root, const std::vector<Override>& overrides,
                    const std::string& file, const OverrideKeys& keys) {
  for (const Override& item : overrides) {
    const std::vector<std::string> parts = splitDottedKey(item, file);
    YAML::Node section = root;
    std::string path;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      path = joinPath(path, parts[i]);
      YAML::Node child = section[parts[i]];
      if (keys.leaves.count(path) > 0) {
        throw ConfigError(file + ": " + item.key + ": unknown key (" + path +
                          " is a single value, not a section)");
      }
      if (!child.IsDefined() || child.IsNull()) {
        section[parts[i]] = YAML::Node(YAML::NodeType::Map);
        child.reset(section[parts[i]]);
      } else if (!child.IsMap()) {
        throw ConfigError(file + ": " + item.key + ": unknown key (" + path +
                          " is a single value, not a section)");
      }
      // reset() rebinds the handle; assignment would overwrite the node it refers to.
      section.reset(child);
    }
    // A value is YAML too ("[a, b]"), with the file's bounds (an alias of its own anchor).
    YAML::Node value = overrideValue(item.value, keys.lists.count(item.key) > 0);
    TreeWalk walk{file, 0, {item.key}};
    refuseDuplicateKeys(value, walk, 0);
    section[parts.back()] = value;
  }
}

std::string describeYaml(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return nlohmann::json(node.Scalar())
          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "nothing";
  }
}

}  // namespace berth::core
