// SPDX-License-Identifier: MIT
/** @file
 *  runtime.shared_trees.v1: a read-only folder built once per name on this node, under
 *  `<runtime.shared_dir>/<name>` (default `<data_dir>/shared`), that many projects run from:
 *  an installer builds n8n's npm tree once as `n8n-1.64.0`, and every n8n project is shown it
 *  read-only in its sandbox. Header-only, no ABI: the requests and answer, their JSON written
 *  and read once, and a typed client.
 *
 *  Methods:
 *  - `ensure` {name, source, command, environment?, timeout_seconds?} -> Tree. Never waits for
 *    a build: a ready tree answers `ready` at once (nothing is rebuilt, whatever source and
 *    command say: put the version in the name); one building answers `building` (concurrent
 *    ensures are one build); a failed one, or none, starts a build on a thread of the runtime
 *    and answers `building`. The build copies `source` into a fresh folder beside the final
 *    one, runs `command` there (executed directly, no shell) in the sandbox with that folder
 *    read-write and a HOME kept between builds (`<shared_dir>/.home`: npm's cache is reused),
 *    as an unprivileged uid when berthd is root (runtime.shared_build_uid, default 65534,
 *    never a project's), then takes the tree back (owned by berthd, no write bits for others,
 *    no link leading outside it) and renames it to its final path in one step: a tree is there
 *    whole or not at all. Stopping berthd stops a build (it fails).
 *  - `get` {name} -> Tree.
 *
 *  Fields: `name` ^[a-z0-9][a-z0-9._-]{0,99}$; `source` the absolute path of a folder on this
 *  node, copied first (it may hold files and folders only: no links, devices, fifos or
 *  sockets); `command` 1 to 64 strings, argv[0] not empty; `environment` {NAME: value} added to
 *  the build's (HOME and TMPDIR stay the platform's; PATH, LANG and npm's notices switched off
 *  may be overridden); `timeout_seconds` 60 to 7200 (default 3600).
 *
 *  Tree: {name, path, state: "ready" | "building" | "failed", started_at, finished_at (null
 *  while building), error (null unless failed), log: the last 8 KB of the build's output,
 *  growing while it builds}. A tree built by an earlier berthd answers `ready` with the times
 *  and log it recorded; a failed build is remembered until berthd stops.
 *
 *  Refusals: 400 "name must be 1 to 100 characters of a-z, 0-9, '.', '_' and '-', starting
 *  with a letter or digit", "source must be an absolute path", "no folder at <source>",
 *  "<source> is not a folder", "<path> is a link; a shared tree's source may hold only files
 *  and folders" (also for devices, fifos and sockets, with their kind), "command is required
 *  and must be an array of strings", "command must hold 1 to 64 arguments", "command[0], the
 *  program, must not be empty", "command[<i>] holds a NUL byte", "environment must be an
 *  object of strings", "environment: <NAME> is not a variable name" (or "... holds a NUL
 *  byte"), "timeout_seconds must be
 *  a whole number from 60 to 7200"; 404 "no shared tree called <name>" (get); 503 the
 *  sandbox's refusal when the runtime cannot sandbox, "berthd is stopping; ensure the tree
 *  again once it has started".
 */
#ifndef BERTH_SERVICES_RUNTIME_SHARED_TREES_HPP
#define BERTH_SERVICES_RUNTIME_SHARED_TREES_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace runtime_shared_trees {

inline constexpr std::string_view kService = "runtime.shared_trees.v1";
inline constexpr std::string_view kEnsure = "ensure";
inline constexpr std::string_view kGet = "get";

inline constexpr std::string_view kReady = "ready";
inline constexpr std::string_view kBuilding = "building";
inline constexpr std::string_view kFailed = "failed";

inline constexpr size_t kMaxNameLength = 100;
inline constexpr size_t kMaxArguments = 64;
inline constexpr int64_t kMinTimeoutSeconds = 60;
inline constexpr int64_t kMaxTimeoutSeconds = 7200;
inline constexpr int64_t kDefaultTimeoutSeconds = 3600;
inline constexpr size_t kLogBytes = 8 * 1024;  ///< the end of the build's output kept

/** The name rule, ^[a-z0-9][a-z0-9._-]{0,99}$: a folder name that is never hidden, never "..". */
inline bool validName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) return false;
  }
  return true;
}

inline std::string parseName(const nlohmann::json& request) {
  std::string name = service_json::requiredText(request, "name");
  if (!validName(name))
    throw Error::badRequest(
        "name must be 1 to 100 characters of a-z, 0-9, '.', '_' and '-', starting with a "
        "letter or digit");
  return name;
}

struct EnsureRequest {
  std::string name;
  std::string source;                // an absolute folder path on this node
  std::vector<std::string> command;  // run in the new tree's folder
  std::map<std::string, std::string> environment;
  int64_t timeout_seconds = kDefaultTimeoutSeconds;
};

struct Tree {
  std::string name;
  std::string path;  ///< <shared_dir>/<name>, where the tree is (once ready)
  std::string state = std::string(kBuilding);
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  std::optional<std::string> error;
  std::string log;

  bool operator==(const Tree&) const = default;
};

inline nlohmann::json toJson(const EnsureRequest& r) {
  return {{"name", r.name},
          {"source", r.source},
          {"command", r.command},
          {"environment", r.environment},
          {"timeout_seconds", r.timeout_seconds}};
}

inline bool variableName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

/** @throw Error 400 naming what is wrong (the texts of the @file comment). Whether `source`
 *  is a folder without links is the runtime's to check: it is only read here. */
inline EnsureRequest parseEnsureRequest(const nlohmann::json& request) {
  EnsureRequest r;
  r.name = parseName(request);
  r.source = service_json::requiredText(request, "source");
  if (r.source.empty() || r.source[0] != '/')
    throw Error::badRequest("source must be an absolute path");
  r.command = service_json::requiredTexts(request, "command",
                                          "command is required and must be an array of strings");
  if (r.command.empty() || r.command.size() > kMaxArguments)
    throw Error::badRequest("command must hold 1 to 64 arguments");
  if (r.command[0].empty()) throw Error::badRequest("command[0], the program, must not be empty");
  for (size_t i = 0; i < r.command.size(); ++i)
    if (r.command[i].find('\0') != std::string::npos)
      throw Error::badRequest("command[" + std::to_string(i) + "] holds a NUL byte");
  if (const nlohmann::json* env = service_json::requestField(request, "environment")) {
    if (!env->is_object()) throw Error::badRequest("environment must be an object of strings");
    for (const auto& [name, value] : env->items()) {
      if (!value.is_string()) throw Error::badRequest("environment must be an object of strings");
      if (!variableName(name))
        throw Error::badRequest("environment: " + name + " is not a variable name");
      if (value.get<std::string>().find('\0') != std::string::npos)
        throw Error::badRequest("environment: " + name + " holds a NUL byte");
      r.environment[name] = value.get<std::string>();
    }
  }
  if (const nlohmann::json* t = service_json::requestField(request, "timeout_seconds")) {
    if (!t->is_number_integer() || t->get<int64_t>() < kMinTimeoutSeconds ||
        t->get<int64_t>() > kMaxTimeoutSeconds)
      throw Error::badRequest("timeout_seconds must be a whole number from 60 to 7200");
    r.timeout_seconds = t->get<int64_t>();
  }
  return r;
}

inline nlohmann::json toJson(const Tree& t) {
  return {{"name", t.name},
          {"path", t.path},
          {"state", t.state},
          {"started_at", t.started_at},
          {"finished_at", t.finished_at ? nlohmann::json(*t.finished_at) : nlohmann::json(nullptr)},
          {"error", t.error ? nlohmann::json(*t.error) : nlohmann::json(nullptr)},
          {"log", t.log}};
}

/** @param method the method that answered (for the message of a refusal).
 *  @throw Error 500 naming the field when one is missing or of the wrong type. */
inline Tree parseTree(const nlohmann::json& answer, std::string_view method = kGet) {
  service_json::Answer read(answer, kService, method);
  Tree t;
  t.name = read.text("name");
  t.path = read.text("path");
  t.state = read.text("state");
  if (t.state != kReady && t.state != kBuilding && t.state != kFailed)
    throw read.refusal("state", "ready, building or failed");
  t.started_at = read.integer("started_at");
  const nlohmann::json& all = read.json();
  auto finished = all.find("finished_at");
  if (finished == all.end() || !(finished->is_null() || finished->is_number_integer()))
    throw read.refusal("finished_at", "an integer or null");
  if (!finished->is_null()) t.finished_at = finished->get<int64_t>();
  t.error = read.textOrNull("error");
  t.log = read.text("log");
  return t;
}

}  // namespace runtime_shared_trees

/** runtime.shared_trees.v1 through Services::call. */
class RuntimeSharedTrees {
 public:
  explicit RuntimeSharedTrees(const Services& services) : services_(&services) {}

  /** Answers at once; poll get() until the state is no longer building. */
  runtime_shared_trees::Tree ensure(const runtime_shared_trees::EnsureRequest& request) const {
    return runtime_shared_trees::parseTree(
        services_->call(runtime_shared_trees::kService, runtime_shared_trees::kEnsure,
                        runtime_shared_trees::toJson(request)),
        runtime_shared_trees::kEnsure);
  }
  /** @throw Error 404 "no shared tree called <name>". */
  runtime_shared_trees::Tree get(std::string_view name) const {
    return runtime_shared_trees::parseTree(services_->call(
        runtime_shared_trees::kService, runtime_shared_trees::kGet, {{"name", name}}));
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_SHARED_TREES_HPP
