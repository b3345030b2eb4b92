// The edge's spooled request bodies (Request::bodyFile(), RouteOptions::rawBody routes): nginx
// writes a raw body to a file directly inside its body folder and names it to berthd. A path
// that reaches berthd or a plugin, by a header or an argument, is trusted as such a file only
// after this check; anything else is never renamed, read or removed.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <string_view>

namespace berth {

/** The core setting (Services::coreSetting) naming the edge's body folder. */
inline constexpr std::string_view kEdgeBodyDirSetting = "edge.body_dir";

/** True when `path` is one of the edge's spooled bodies in `folder` (absolute, as the core
 *  setting "edge.body_dir" gives it): lexically `folder` + "/" + a name without '/', a regular
 *  file by lstat (not a symlink) with a single link, and it opens with O_NOFOLLOW as that same
 *  file. An empty folder accepts nothing. */
inline bool isSpooledBody(std::string_view folder, std::string_view path) {
  while (folder.size() > 1 && folder.back() == '/') folder.remove_suffix(1);
  if (folder.size() < 2 || folder.front() != '/') return false;
  if (path.size() <= folder.size() + 1 || path.substr(0, folder.size()) != folder ||
      path[folder.size()] != '/')
    return false;
  std::string_view name = path.substr(folder.size() + 1);
  if (name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos)
    return false;
  const std::string file(path);
  struct stat named {};
  if (::lstat(file.c_str(), &named) != 0 || !S_ISREG(named.st_mode) || named.st_nlink != 1)
    return false;
  int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat opened {};
  bool same = ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) &&
              opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
  ::close(fd);
  return same;
}

}  // namespace berth
