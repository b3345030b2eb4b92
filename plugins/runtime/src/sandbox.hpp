// Bubblewrap (Debian `bubblewrap`) around an app, its php-cgi and its build: it sees the
// system's runtime files read-only, its own release folder (read-only, read-write for the
// build), its project's writable folder, a private /proc, /dev and /tmp, and nothing else of
// the machine (no other release, nothing else of data_dir, no configuration, no berthd socket).
// Network stays shared: the app listens on the host's loopback, the build reaches registries.
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

// What of berthd's data one sandbox sees, each at its own path.
struct SandboxMounts {
  std::string release_dir;        // the working folder; empty: none (the start-up probe)
  bool release_writable = false;  // the build writes in its release (node_modules), apps never
  std::string home;               // the project's writable folder (HOME, TMPDIR); may be empty
  // Further folders shown read-only at their own path (a shared tree under data_dir that the
  // project's start options name); the caller has checked that each may be shown.
  std::vector<std::string> read_only_paths;
};

// The argv that runs `argv` inside the sandbox with the release as its working folder, through
// `env --default-signal=TERM` (coreutils >= 8.31): bwrap is started ignoring SIGTERM
// (ChildSpec::ignore_term), the command must not inherit that.
std::vector<std::string> sandboxedArgv(const SandboxOptions& options, const SandboxMounts& mounts,
                                       const std::vector<std::string>& argv);

}  // namespace berth::runtime
