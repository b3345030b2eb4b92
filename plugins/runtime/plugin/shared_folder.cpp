#include "shared_folder.hpp"

#include <sys/stat.h>

#include <berth/error.hpp>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace berth::runtime {

namespace {

namespace fs = std::filesystem;

// realpath(3): every link resolved; nullopt when the path does not exist.
std::optional<std::string> resolved(const std::string& path) {
  char out[PATH_MAX];
  if (::realpath(path.c_str(), out) == nullptr) return std::nullopt;
  return std::string(out);
}

}  // namespace

std::string sharedDir(const std::string& data_dir, const std::string& configured) {
  std::string dir = configured.empty()          ? data_dir + "/shared"
                    : configured.front() == '/' ? configured
                                                : data_dir + "/" + configured;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) throw berth::Error("runtime.shared_dir: cannot make " + dir + ": " + ec.message());
    ::chmod(dir.c_str(), 0755);
  }
  return dir;
}

bool sharedFolderOk(const std::string& path, const std::string& shared_dir) {
  if (shared_dir.empty() || path.size() <= shared_dir.size() + 1 ||
      path.compare(0, shared_dir.size(), shared_dir) != 0 || path[shared_dir.size()] != '/')
    return false;
  // The parts below shared_dir: none empty, ".", ".." or hidden.
  std::string_view rest = std::string_view(path).substr(shared_dir.size() + 1);
  while (true) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part.empty() || part.front() == '.') return false;
    for (unsigned char c : part)
      if (c < 0x20 || c == 0x7F) return false;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  // No link anywhere below shared_dir: the resolved path is the path under the resolved folder.
  const std::optional<std::string> base = resolved(shared_dir);
  const std::optional<std::string> real = resolved(path);
  if (!base || !real || *real != *base + path.substr(shared_dir.size())) return false;
  struct stat st {};
  return ::stat(real->c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace berth::runtime
