#include "config/install_layout.hpp"

#include <filesystem>

#ifndef BERTH_DEFAULT_PLUGIN_DIR
#define BERTH_DEFAULT_PLUGIN_DIR "plugins"
#endif
#ifndef BERTH_BUILD_BINARY_DIR
#define BERTH_BUILD_BINARY_DIR ""
#endif
#ifndef BERTH_INSTALL_PLUGIN_SUBDIR
#define BERTH_INSTALL_PLUGIN_SUBDIR "lib/berth"
#endif
#ifndef BERTH_INSTALL_SHARE_SUBDIR
#define BERTH_INSTALL_SHARE_SUBDIR "share/berth"
#endif

namespace berth::core {

namespace {

// The installed prefix of the running berthd, or empty when it runs from its build tree.
std::filesystem::path installedPrefix() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path build_bin = std::filesystem::path(BERTH_BUILD_BINARY_DIR) / "bin";
  if (ec || exe.parent_path() == build_bin) return {};
  return exe.parent_path().parent_path();
}

}  // namespace

std::string defaultPluginDir() {
  std::filesystem::path prefix = installedPrefix();
  if (prefix.empty()) return BERTH_DEFAULT_PLUGIN_DIR;
  return (prefix / BERTH_INSTALL_PLUGIN_SUBDIR).string();
}

std::string defaultShareDir() {
  std::filesystem::path prefix = installedPrefix();
  if (prefix.empty())
    return (std::filesystem::path(BERTH_BUILD_BINARY_DIR) / "share/berth").string();
  return (prefix / BERTH_INSTALL_SHARE_SUBDIR).string();
}

}  // namespace berth::core
