// From an uploaded archive to a release ready to serve: unpack (release_unpack), hand the
// folder to the user apps run as, choose the start command (start_command), run the build
// step (npm ci ...) with a time limit, keeping its output as the build log. Runs on a worker
// thread of the plugin; the Release row says `building` meanwhile.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "release_unpack.hpp"
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
};

// Runs `argv` in `dir` with exactly `env`. Errors: "the build step <cmd> exited with code <n>"
// (or "was killed by signal <n>"), "the build step <cmd> took longer than <t> and was
// stopped", "cannot start <program>: <why>".
CommandRun runBuildCommand(const std::vector<std::string>& argv, const std::string& dir,
                           const std::map<std::string, std::string>& env,
                           const std::optional<std::string>& run_as, const BuildLimits& limits);

struct ReleaseInput {
  std::filesystem::path archive;      // the stored upload
  std::filesystem::path release_dir;  // where it goes; must not exist
  std::optional<std::string> header;  // x-berth-cmd
  std::string project_cmd;
  UnpackLimits unpack;
  BuildLimits build;
  std::optional<std::string> run_as;  // owner of the release folder, user of the build
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

// Makes `user` own every file, folder and link under `dir` (links themselves, never their
// targets). Returns an error text, or nullopt.
std::optional<std::string> giveTreeTo(const std::filesystem::path& dir, const std::string& user);

}  // namespace berth::runtime
