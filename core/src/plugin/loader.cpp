// Boost.DLL stays in this file: open, check the magic, resolve the entry points.
#include "plugin/loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <type_traits>

#include "log/logging.hpp"

namespace berth::core {
namespace {

constexpr const char* kInfoSymbol = "berth_plugin_info_v1";

[[noreturn]] void fail(const std::string& id, const std::string& why) {
  throw std::runtime_error("plugin " + id + ": " + why);
}

bool isValidId(const std::string& id) {
  if (id.empty() || id.front() < 'a' || id.front() > 'z') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string version(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Libraries are never unloaded (sdk/README.md, "Lifecycle": route handlers, hooks and job
// functions point into them for the life of the process, and plugin statics must not be torn
// down under running threads). RTLD_NODELETE makes every later dlclose, including
// shared_library's, a no-op.
void pinForProcessLifetime(const std::string& path) {
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE) == nullptr) {
    const char* why = dlerror();
    logLine(*getLogger("core"), spdlog::level::warn, "", "",
            "could not pin " + path + " in memory: " + (why ? why : "unknown reason"));
  }
}

template <class Fn>
Fn entryPoint(const boost::dll::shared_library& library, const std::string& id,
              const std::string& path, const char* symbol) {
  if (!library.has(symbol))
    fail(id, path + " is not a Berth plugin (no " + std::string(symbol) + ")");
  return library.get<std::remove_pointer_t<Fn>>(symbol);
}

void checkInfo(const berth_plugin_info* info, const std::string& id, const std::string& path) {
  if (info == nullptr)
    fail(id, path + " is not a Berth plugin (berth_plugin_info_v1 gave nothing)");
  if (info->struct_size < sizeof(berth_plugin_info))
    fail(id, path + " has a berth_plugin_info of " + std::to_string(info->struct_size) +
                 " bytes, Berth ABI " + version(BERTH_ABI_MAJOR, BERTH_ABI_MINOR) +
                 " needs at least " + std::to_string(sizeof(berth_plugin_info)));
  if (info->abi_major != BERTH_ABI_MAJOR || info->abi_minor > BERTH_ABI_MINOR)
    fail(id, "built for Berth ABI " + version(info->abi_major, info->abi_minor) +
                 ", this berthd speaks " + version(BERTH_ABI_MAJOR, BERTH_ABI_MINOR));
  const std::string said = info->id == nullptr ? "" : info->id;
  if (said != id) fail(id, "the library says its id is " + (said.empty() ? "(none)" : said));
}

std::vector<std::string> dependencies(const berth_plugin_info& info) {
  std::vector<std::string> ids;
  if (info.depends_on != nullptr)
    for (const char* const* dep = info.depends_on; *dep != nullptr; ++dep) ids.emplace_back(*dep);
  return ids;
}

}  // namespace

PluginLibrary openPluginLibrary(const std::string& dir, const std::string& id) {
  if (!isValidId(id)) fail(id, "not a plugin id ([a-z][a-z0-9_]*)");
  PluginLibrary plugin;
  plugin.id = id;
  plugin.path = (std::filesystem::path(dir) / ("libberth_" + id + ".so")).string();
  std::error_code exists_error;
  if (!std::filesystem::is_regular_file(plugin.path, exists_error))
    fail(id, "no library at " + plugin.path);
  // rtld_now: a missing symbol fails here rather than on the first request.
  std::error_code load_error;
  plugin.library.load(
      plugin.path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, load_error);
  if (load_error) {
    // dlerror says what went wrong (an undefined symbol, not an ELF file); the error code only
    // says that something did.
    const char* why = dlerror();
    fail(id, "cannot load " + plugin.path + ": " + (why ? why : load_error.message()));
  }

  const auto info_fn =
      entryPoint<berth_plugin_info_fn>(plugin.library, id, plugin.path, kInfoSymbol);
  plugin.info = info_fn();
  checkInfo(plugin.info, id, plugin.path);
  plugin.register_fn = entryPoint<berth_plugin_register_fn>(plugin.library, id, plugin.path,
                                                            "berth_plugin_register_v1");
  plugin.start_fn =
      entryPoint<berth_plugin_start_fn>(plugin.library, id, plugin.path, "berth_plugin_start_v1");
  plugin.stop_fn =
      entryPoint<berth_plugin_stop_fn>(plugin.library, id, plugin.path, "berth_plugin_stop_v1");
  plugin.depends_on = dependencies(*plugin.info);
  pinForProcessLifetime(plugin.path);  // only accepted plugins: refused ones may go again
  return plugin;
}

namespace {

// Called when no remaining plugin can be placed: each of them waits on another remaining one,
// so following first unplaced dependencies from any of them must come back round.
std::string describeCycle(const std::vector<DependencyNode>& nodes,
                          const std::vector<bool>& placed) {
  auto indexOf = [&](const std::string& id) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].id == id) return i;
    return nodes.size();
  };
  std::vector<size_t> path;
  auto current =
      static_cast<size_t>(std::find(placed.begin(), placed.end(), false) - placed.begin());
  while (std::find(path.begin(), path.end(), current) == path.end()) {
    path.push_back(current);
    for (const std::string& dep : nodes[current].depends_on) {
      const size_t next = indexOf(dep);
      if (!placed[next]) {
        current = next;
        break;
      }
    }
  }
  std::string text;
  for (auto it = std::find(path.begin(), path.end(), current); it != path.end(); ++it)
    text += nodes[*it].id + " -> ";
  return text + nodes[current].id;
}

}  // namespace

std::vector<size_t> dependencyOrder(const std::vector<DependencyNode>& nodes) {
  auto enabled = [&](const std::string& id) {
    return std::any_of(nodes.begin(), nodes.end(),
                       [&](const DependencyNode& node) { return node.id == id; });
  };
  for (const DependencyNode& node : nodes)
    for (const std::string& dep : node.depends_on)
      if (!enabled(dep))
        throw std::runtime_error("plugin " + node.id + " needs plugin " + dep +
                                 ", which is not enabled");

  std::vector<bool> placed(nodes.size(), false);
  std::vector<size_t> order;
  auto isPlaced = [&](const std::string& id) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].id == id) return static_cast<bool>(placed[i]);
    return false;
  };
  while (order.size() < nodes.size()) {
    // The earliest listed plugin whose dependencies are all placed goes next: the result keeps
    // the configured order wherever the dependencies allow it.
    size_t next = nodes.size();
    for (size_t i = 0; i < nodes.size() && next == nodes.size(); ++i)
      if (!placed[i] &&
          std::all_of(nodes[i].depends_on.begin(), nodes[i].depends_on.end(), isPlaced))
        next = i;
    if (next == nodes.size())
      throw std::runtime_error("plugins depend on each other in a cycle: " +
                               describeCycle(nodes, placed));
    placed[next] = true;
    order.push_back(next);
  }
  return order;
}

}  // namespace berth::core
