// Bubblewrap (Debian `bubblewrap`) around an app: it sees the system's runtime files read-only,
// its own release folder read-write, a private /tmp, and nothing else of the machine (no other
// release, no berthd data). Network stays shared: the app listens on the host's loopback.
#pragma once
#include <string>
#include <vector>

namespace berth::runtime {

struct SandboxOptions {
  std::string bwrap = "bwrap";
  // Read-only system paths shown to the app when they exist (symlinks stay symlinks, as on
  // merged-/usr Debian where /bin -> usr/bin).
  std::vector<std::string> system_paths = {"/usr",
                                           "/bin",
                                           "/sbin",
                                           "/lib",
                                           "/lib64",
                                           "/lib32",
                                           "/etc/alternatives",
                                           "/etc/ssl",
                                           "/etc/ca-certificates",
                                           "/etc/resolv.conf",
                                           "/etc/hosts",
                                           "/etc/nsswitch.conf",
                                           "/etc/localtime",
                                           "/etc/passwd",
                                           "/etc/group",
                                           "/etc/mime.types"};
};

// The argv that runs `argv` inside the sandbox with `release_dir` as its working folder.
std::vector<std::string> sandboxedArgv(const SandboxOptions& options,
                                       const std::string& release_dir,
                                       const std::vector<std::string>& argv);

}  // namespace berth::runtime
