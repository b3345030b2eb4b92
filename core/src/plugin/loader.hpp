// Finding, opening and checking plugin libraries, and ordering them by their dependencies.
// The only place that touches Boost.DLL.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include <berth/abi.h>

namespace berth::core {

// An opened library whose magic checked out, with its entry points resolved.
struct PluginLibrary {
  std::string id;
  std::string path;
  boost::dll::shared_library library;  // pinned: never unloaded, even when this is destroyed
  const berth_plugin_info* info = nullptr;
  std::vector<std::string> depends_on;
  berth_plugin_register_fn register_fn = nullptr;
  berth_plugin_start_fn start_fn = nullptr;
  berth_plugin_stop_fn stop_fn = nullptr;
};

// Opens dir/libberth_<id>.so (rtld_now | rtld_local) and checks berth_plugin_info_v1: struct
// size, ABI major equal, minor not newer, id equal. Throws std::runtime_error("plugin <id>: ...")
// saying what was expected and what was found.
PluginLibrary openPluginLibrary(const std::string& dir, const std::string& id);

struct DependencyNode {
  std::string id;
  std::vector<std::string> depends_on;
};

// Indexes into nodes such that every plugin comes after its dependencies, otherwise in the
// order given. Throws std::runtime_error for a dependency that is not in the list and for a
// cycle (naming it).
std::vector<size_t> dependencyOrder(const std::vector<DependencyNode>& nodes);

}  // namespace berth::core
