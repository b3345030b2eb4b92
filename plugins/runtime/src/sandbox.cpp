#include "sandbox.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>

namespace berth::runtime {

std::vector<std::string> sandboxedArgv(const SandboxOptions& options, const SandboxMounts& mounts,
                                       const std::vector<std::string>& argv) {
  // --die-with-parent: the sandbox goes when the process that started it does. No
  // --new-session: the stop signal reaches the app through the process group it shares.
  std::vector<std::string> out = {options.bwrap,   "--die-with-parent",
                                  "--unshare-all", "--share-net",
                                  "--proc",        "/proc",
                                  "--dev",         "/dev",
                                  "--tmpfs",       "/tmp"};
  for (const auto& path : options.system_paths) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      std::array<char, 4096> target{};
      const ssize_t n = ::readlink(path.c_str(), target.data(), target.size() - 1);
      if (n <= 0) continue;
      out.insert(out.end(),
                 {"--symlink", std::string(target.data(), static_cast<size_t>(n)), path});
    } else {
      out.insert(out.end(), {"--ro-bind", path, path});
    }
  }
  for (const auto& path : mounts.read_only_paths) out.insert(out.end(), {"--ro-bind", path, path});
  if (!mounts.home.empty()) out.insert(out.end(), {"--bind", mounts.home, mounts.home});
  if (!mounts.release_dir.empty())
    out.insert(out.end(), {mounts.release_writable ? "--bind" : "--ro-bind", mounts.release_dir,
                           mounts.release_dir, "--chdir", mounts.release_dir});
  // bwrap is started ignoring SIGTERM (ChildSpec::ignore_term); the command gets it back.
  out.insert(out.end(), {"--", "/usr/bin/env", "--default-signal=TERM"});
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

}  // namespace berth::runtime
