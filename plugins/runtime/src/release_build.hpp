// From an uploaded archive to a release ready to serve: unpack (release_unpack), choose the
// start command (start_command), lend the folder to the project's uid and run the build step
// (npm ci ...) in the sandbox with a time limit, keeping its output as the build log, then take
// the folder back (owned by berthd, no write bits, no link leading outside). Runs on a worker
// thread of the plugin; the Release row says `building` meanwhile.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "child_process.hpp"
#include "release_unpack.hpp"
#include "sandbox.hpp"
#include "start_command.hpp"

namespace berth::runtime {

struct BuildLimits {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::size_t max_log_bytes = 256 * 1024;  // the end of the output is kept
  // Set (by berthd stopping) to stop the build step early: error "the build step <cmd> was
  // stopped because berthd is stopping". Checked at least every 200 ms.
  const std::atomic<bool>* cancel = nullptr;
};

struct CommandRun {
  bool ok = false;
  std::string log;    // stdout and stderr together, the last max_log_bytes
  std::string error;  // when not ok
  // How it ended, when it was started: by itself, or as the stop after a timeout or a cancel
  // left it. Inside bubblewrap a command killed by a signal reads as exit code 128 + signal
  // (bwrap reports it so); `signal` is then bwrap's own.
  std::optional<ChildExit> exit;
  bool timed_out = false;  // stopped at limits.timeout
  bool cancelled = false;  // stopped by limits.cancel
};

// What a command gets besides its argv and environment.
struct CommandIo {
  // Written to its stdin, which then ends; nullopt: stdin is /dev/null.
  std::optional<std::string> input;
  // Each piece of output as it is read (stdout and stderr together), on the calling thread:
  // for a log that grows while the command runs.
  std::function<void(std::string_view)> on_output;
};

// Runs `argv` in `mounts.release_dir` with exactly `env`, as `run_as` (when root), inside
// bubblewrap when `sandbox` is set, showing it `mounts` (its folder read-write or read-only,
// `home` read-write, further folders read-only). Errors: "the build step <cmd> exited with code
// <n>" (or "was killed by signal <n>"), "the build step <cmd> took longer than <t> and was
// stopped", "the build step <cmd> was stopped because berthd is stopping", "cannot start
// <program>: <why>".
CommandRun runBuildCommand(const std::vector<std::string>& argv, const SandboxMounts& mounts,
                           const std::map<std::string, std::string>& env,
                           const std::optional<RunAs>& run_as, const BuildLimits& limits,
                           const std::optional<SandboxOptions>& sandbox, const CommandIo& io = {});

// A build step: `dir` read-write, `home` read-write.
CommandRun runBuildCommand(const std::vector<std::string>& argv, const std::string& dir,
                           const std::map<std::string, std::string>& env,
                           const std::optional<RunAs>& run_as, const BuildLimits& limits,
                           const std::optional<SandboxOptions>& sandbox = std::nullopt,
                           const std::string& home = {});

// Whether bubblewrap works here: runs `true` inside it (no release, no home) as `probe_as`
// (when root). nullopt when it does, else why not (bwrap's own last words, or "no bwrap
// program on PATH").
std::optional<std::string> sandboxProblem(const SandboxOptions& options, const RunAs& probe_as);

struct ReleaseInput {
  std::filesystem::path archive;      // the stored upload
  std::filesystem::path release_dir;  // where it goes; must not exist
  std::optional<std::string> header;  // x-berth-cmd
  std::string project_cmd;
  UnpackLimits unpack;
  BuildLimits build;
  std::optional<RunAs> run_as;  // the project's uid: writes the release during its build only
  std::string home;             // the project's writable folder: HOME, TMPDIR (<home>/tmp)
  std::optional<SandboxOptions> sandbox;             // bubblewrap around the build step when set
  std::map<std::string, std::string> build_secrets;  // secrets with scope build or both
  ToolFinder tools = toolOnPath;
};

struct PreparedRelease {
  std::optional<std::string> error;  // the failed Release's `error`; its folder is removed
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::optional<StartPlan> plan;
  std::string build_log;
  bool ok() const { return !error; }
};

PreparedRelease prepareRelease(const ReleaseInput& input);

// Makes uid/gid own every file, folder and link under `dir` (links themselves, never their
// targets; nothing is followed). Returns an error text, or nullopt.
std::optional<std::string> giveTreeTo(const std::filesystem::path& dir, const RunAs& owner);

// After a build: every entry under `dir` is given to `owner` (when given: berthd's own ids, as
// root), folders become 0755, files 0644 (0755 when any execute bit is set), without following
// any link; device files, fifos and sockets, and links resolving outside `dir`, are refused.
// Errors: "the build step left <path>, a link pointing outside the release, which is not
// allowed", "the build step left <path>, a device file, fifo or socket, which is not allowed".
std::optional<std::string> sealRelease(const std::filesystem::path& dir,
                                       const std::optional<RunAs>& owner);

}  // namespace berth::runtime
