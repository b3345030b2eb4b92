// How a release is started (docs/openapi.yaml: POST /projects/{name}/deploys, and the
// start-command rules of PATCH /projects/{name}): the x-berth-cmd header, else the project's
// cmd, else detected from the release's files. Commands are split into argv here and run
// directly, never through a shell.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "start_commands.hpp"

namespace berth::runtime {

enum class StartKind {
  Static,   // files served by the edge, no process
  Process,  // argv run on a loopback port
  Php,      // index.php: php-cgi as a FastCGI server on a loopback port (php_cgi.hpp)
};

struct StartPlan {
  StartKind kind = StartKind::Process;
  std::string cmd;                // the command as recorded on the Release ("" for Static)
  std::vector<std::string> argv;  // Process: what is executed (argv[0] looked up on PATH)
  std::vector<std::pair<std::string, std::string>> env;  // from a package.json start script
  std::optional<std::string> runtime;                    // the Release's `runtime`
  std::string source;                                    // "header", "project" or "detected"
  std::vector<std::string> build;  // a build step to run first (Node: npm ci), empty: none
};

struct StartChoice {
  std::optional<StartPlan> plan;
  std::optional<std::string> error;  // why the release cannot start (the Release's `error`)
};

// Which interpreters exist on this machine (tests pass their own).
using ToolFinder = std::function<bool(const std::string& program)>;
bool toolOnPath(const std::string& program);

// `header`: the x-berth-cmd value when the upload sent one. `project_cmd`: the project's cmd
// ("" when unset). `release_dir`: the unpacked release.
StartChoice chooseStartCommand(const std::optional<std::string>& header,
                               std::string_view project_cmd,
                               const std::filesystem::path& release_dir,
                               const ToolFinder& tool_exists = toolOnPath);

}  // namespace berth::runtime
