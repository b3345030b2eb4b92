// SPDX-License-Identifier: MIT
/** @file
 *  runtime.commands.v1: a one-off command in a project's release, run "as the app" (a
 *  database migration, `wp core install`, `n8n import:credentials`), for installers and other
 *  plugins. Header-only, no ABI: the request and answer, their JSON written and read once, and
 *  a typed client.
 *
 *  Methods:
 *  - `run` {project_id, argv, release_id?, timeout_seconds?, stdin?} -> Ran
 *    {exit_code, signal, timed_out, output, duration_ms}. Runs argv (executed directly, no
 *    shell, nothing expanded) in the release's folder, which is its working folder and
 *    read-only, as the project's own uid with its writable folder as HOME (TMPDIR its tmp/),
 *    inside the same bubblewrap sandbox as the project's app, with the app's environment
 *    (DATABASE_URL, PG*, BERTH_URL, the runtime secrets, the start script's assignments; no
 *    PORT). `release_id` defaults to the live release. The call returns when the command has
 *    ended (or was stopped at timeout_seconds). An installer calls it through its
 *    InstallContext (the core sets project_id).
 *
 *  Fields: argv 1 to 64 strings, each at most 4096 bytes, argv[0] (the program, looked up on
 *  PATH: the release's node_modules/.bin, then the system's) not empty, no NUL byte;
 *  timeout_seconds 1 to 3600 (default 300); stdin at most 1 MB, written to the command's
 *  stdin, which then ends (without it stdin is empty).
 *
 *  Answer: `exit_code` the command's exit code, null when it did not exit by itself; `signal`
 *  the signal that ended it, else null. Inside the sandbox a command killed by a signal
 *  reads as exit code 128 + the signal, as from a shell (bubblewrap reports it so).
 *  `timed_out` true when it was stopped at timeout_seconds (SIGTERM to its process group,
 *  SIGKILL 2 s later); exit_code and signal then say how the stop ended it. `output` is stdout
 *  and stderr together, the last 64 KB, starting "(earlier output cut)\n" when cut.
 *  `duration_ms` from start to end.
 *
 *  Refusals: 400 "argv is required and must be an array of strings", "argv must hold 1 to 64
 *  arguments", "argv[0], the program, must not be empty", "argv[<i>] is longer than 4096
 *  bytes", "argv[<i>] holds a NUL byte", "timeout_seconds must be a whole number from 1 to
 *  3600", "stdin must be a string", "stdin is longer than 1 MB (1048576 bytes)",
 *  "project_id is required and must be a string", "release_id must be a string", "cannot start
 *  <program>: no such program on PATH" (only outside the sandbox; inside it a missing program
 *  is exit code 127 with the reason in the output); 404 "no project called <id>", "no release
 *  called <id>"; 409 "<project name> has no live release", "release <id> is not ready" (building
 *  or failed); 410 "release <id> was pruned: its files are gone"; 503 the sandbox's refusal
 *  ("the sandbox is not available: ...") when the runtime cannot sandbox, "too many commands
 *  are running; try again shortly" (at most 4 at once per berthd), "berthd is stopping; the
 *  command was stopped".
 */
#ifndef BERTH_SERVICES_RUNTIME_COMMANDS_HPP
#define BERTH_SERVICES_RUNTIME_COMMANDS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace runtime_commands {

inline constexpr std::string_view kService = "runtime.commands.v1";
inline constexpr std::string_view kRun = "run";

inline constexpr size_t kMaxArguments = 64;
inline constexpr size_t kMaxArgumentBytes = 4096;
inline constexpr int64_t kMinTimeoutSeconds = 1;
inline constexpr int64_t kMaxTimeoutSeconds = 3600;
inline constexpr int64_t kDefaultTimeoutSeconds = 300;
inline constexpr size_t kMaxStdinBytes = 1024 * 1024;
inline constexpr size_t kOutputBytes = 64 * 1024;  ///< the end of the output that is answered
inline constexpr int kMaxRunning = 4;              ///< commands at once per berthd

struct RunRequest {
  std::string project_id;
  std::vector<std::string> argv;
  std::optional<std::string> release_id;  ///< nullopt: the live release
  int64_t timeout_seconds = kDefaultTimeoutSeconds;
  std::optional<std::string> input;  ///< the JSON field "stdin"; nullopt: an empty stdin
};

struct Ran {
  std::optional<int> exit_code;  ///< null unless it exited
  std::optional<int> signal;     ///< null unless a signal ended it
  bool timed_out = false;
  std::string output;  ///< stdout and stderr, the last kOutputBytes
  int64_t duration_ms = 0;

  bool operator==(const Ran&) const = default;
};

inline nlohmann::json toJson(const RunRequest& r) {
  nlohmann::json j = {
      {"project_id", r.project_id}, {"argv", r.argv}, {"timeout_seconds", r.timeout_seconds}};
  if (r.release_id) j["release_id"] = *r.release_id;
  if (r.input) j["stdin"] = *r.input;
  return j;
}

/** @throw Error 400 naming what is wrong (the texts of the @file comment). */
inline RunRequest parseRunRequest(const nlohmann::json& request) {
  RunRequest r;
  r.project_id = service_json::requiredText(request, "project_id");
  r.argv = service_json::requiredTexts(request, "argv",
                                       "argv is required and must be an array of strings");
  if (r.argv.empty() || r.argv.size() > kMaxArguments)
    throw Error::badRequest("argv must hold 1 to 64 arguments");
  if (r.argv[0].empty()) throw Error::badRequest("argv[0], the program, must not be empty");
  for (size_t i = 0; i < r.argv.size(); ++i) {
    const std::string at = "argv[" + std::to_string(i) + "]";
    if (r.argv[i].size() > kMaxArgumentBytes)
      throw Error::badRequest(at + " is longer than 4096 bytes");
    if (r.argv[i].find('\0') != std::string::npos)
      throw Error::badRequest(at + " holds a NUL byte");
  }
  r.release_id = service_json::optionalText(request, "release_id");
  if (const nlohmann::json* t = service_json::requestField(request, "timeout_seconds")) {
    if (!t->is_number_integer() || t->get<int64_t>() < kMinTimeoutSeconds ||
        t->get<int64_t>() > kMaxTimeoutSeconds)
      throw Error::badRequest("timeout_seconds must be a whole number from 1 to 3600");
    r.timeout_seconds = t->get<int64_t>();
  }
  r.input = service_json::optionalText(request, "stdin");
  if (r.input && r.input->size() > kMaxStdinBytes)
    throw Error::badRequest("stdin is longer than 1 MB (1048576 bytes)");
  return r;
}

inline nlohmann::json toJson(const Ran& r) {
  return {{"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr)},
          {"signal", r.signal ? nlohmann::json(*r.signal) : nlohmann::json(nullptr)},
          {"timed_out", r.timed_out},
          {"output", r.output},
          {"duration_ms", r.duration_ms}};
}

/** @throw Error 500 naming the field when one is missing or of the wrong type. */
inline Ran parseRan(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kRun);
  const auto integerOrNull = [&](std::string_view field) -> std::optional<int> {
    const nlohmann::json& all = read.json();
    auto it = all.find(std::string(field));
    if (it == all.end() || !(it->is_null() || it->is_number_integer()))
      throw read.refusal(field, "an integer or null");
    if (it->is_null()) return std::nullopt;
    return it->get<int>();
  };
  Ran r;
  r.exit_code = integerOrNull("exit_code");
  r.signal = integerOrNull("signal");
  r.timed_out = read.flag("timed_out");
  r.output = read.text("output");
  r.duration_ms = read.integer("duration_ms");
  return r;
}

}  // namespace runtime_commands

/** runtime.commands.v1 through Services::call. */
class RuntimeCommands {
 public:
  explicit RuntimeCommands(const Services& services) : services_(&services) {}

  /** Blocks until the command has ended. @throw Error as the service refused. */
  runtime_commands::Ran run(const runtime_commands::RunRequest& request) const {
    return runtime_commands::parseRan(services_->call(
        runtime_commands::kService, runtime_commands::kRun, runtime_commands::toJson(request)));
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_COMMANDS_HPP
