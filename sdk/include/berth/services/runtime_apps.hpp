// SPDX-License-Identifier: MIT
/** @file
 *  runtime.apps.v1: how a project's app is started, beyond its release: a readiness path, a
 *  start time limit, folders of the runtime's shared folder shown read-only, and environment
 *  variables. For starter-app installers (through their InstallContext, which sets project_id
 *  and account_id). Header-only, no ABI: the StartOptions, their JSON written and read once, the
 *  rules a request is checked against, and a typed client.
 *
 *  Methods:
 *  - `set_start_options` {project_id, readiness_path?, start_timeout_seconds?,
 *    read_only_paths?, environment?} -> StartOptions. Replaces every option: a field left out
 *    (or null) is unset. A running app of the project restarts with them at once; a stopped one
 *    gets them at its next start.
 *  - `start_options` {project_id} -> StartOptions (null and empty when never set).
 *
 *  StartOptions: {project_id, readiness_path: string|null, start_timeout_seconds: int|null,
 *  read_only_paths: [string], environment: {NAME: value}}.
 *  - readiness_path: the app is ready when GET <path> answers below 400 (else when its port
 *    accepts connections; runtime.readiness_path otherwise). Not for PHP (FastCGI).
 *  - start_timeout_seconds (1 to 900): instead of runtime.start_timeout_seconds.
 *  - read_only_paths (0 to 8): absolute folders under the runtime's shared folder
 *    (runtime.shared_dir), shown to the app read-only at their own path.
 *  - environment (0 to 32): names [A-Z_][A-Z0-9_]{0,63}, values of at most 4096 bytes without
 *    NUL. Set after the project's secrets (a secret of the same name does not override it);
 *    never a name the platform sets (PORT, HOME, TMPDIR, PATH, DATABASE_URL, PG*, BERTH_URL).
 *
 *  Refusals: 404 "no project called <id>"; 400 "project_id is required and must be a string",
 *  kReadinessPathRule, kStartTimeoutRule, kReadOnlyPathsRule, kEnvironmentRule, "environment
 *  name <name> must be 1 to 64 of A-Z, 0-9 and _, not starting with a digit", "the value of
 *  environment <name> must be at most 4096 bytes without NUL characters" (checked here, in
 *  that order), then by the runtime: "a read-only path must be a folder under <shared_dir>:
 *  <path>" (absolute, without "..", "//" or a trailing "/", an existing folder, no link on the
 *  way), "environment <name> is set by the platform; start options cannot set it".
 */
#ifndef BERTH_SERVICES_RUNTIME_APPS_HPP
#define BERTH_SERVICES_RUNTIME_APPS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace runtime_apps {

inline constexpr std::string_view kService = "runtime.apps.v1";
inline constexpr std::string_view kSetStartOptions = "set_start_options";
inline constexpr std::string_view kStartOptions = "start_options";

inline constexpr size_t kMaxReadinessPath = 200;
inline constexpr int64_t kMaxStartTimeoutSeconds = 900;
inline constexpr size_t kMaxReadOnlyPaths = 8;
inline constexpr size_t kMaxEnvironment = 32;
inline constexpr size_t kMaxEnvironmentName = 64;
inline constexpr size_t kMaxEnvironmentValue = 4096;

inline constexpr std::string_view kReadinessPathRule =
    "readiness_path must start with \"/\", be at most 200 characters and hold no spaces or "
    "control characters";
inline constexpr std::string_view kStartTimeoutRule =
    "start_timeout_seconds must be a whole number from 1 to 900";
inline constexpr std::string_view kReadOnlyPathsRule =
    "read_only_paths must be an array of at most 8 paths";
inline constexpr std::string_view kEnvironmentRule =
    "environment must be an object of at most 32 names with string values";

struct StartOptions {
  std::string project_id;
  std::optional<std::string> readiness_path;
  std::optional<int64_t> start_timeout_seconds;
  std::vector<std::string> read_only_paths;
  std::map<std::string, std::string> environment;

  bool operator==(const StartOptions&) const = default;
};

inline bool readinessPathOk(std::string_view path) {
  if (path.empty() || path.front() != '/' || path.size() > kMaxReadinessPath) return false;
  for (unsigned char c : path)
    if (c <= 0x20 || c == 0x7F) return false;
  return true;
}

/** [A-Z_][A-Z0-9_]{0,63} */
inline bool environmentNameOk(std::string_view name) {
  if (name.empty() || name.size() > kMaxEnvironmentName) return false;
  if (name.front() >= '0' && name.front() <= '9') return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

inline nlohmann::json toJson(const StartOptions& o) {
  nlohmann::json environment = nlohmann::json::object();
  for (const auto& [name, value] : o.environment) environment[name] = value;
  return {{"project_id", o.project_id},
          {"readiness_path", o.readiness_path ? nlohmann::json(*o.readiness_path) : nullptr},
          {"start_timeout_seconds",
           o.start_timeout_seconds ? nlohmann::json(*o.start_timeout_seconds) : nullptr},
          {"read_only_paths", o.read_only_paths},
          {"environment", std::move(environment)}};
}

/** The request of set_start_options, checked by the rules above (not those that need the
 *  server: the shared folder, the platform's names). @throw Error 400. */
inline StartOptions parseSetRequest(const nlohmann::json& request) {
  StartOptions o;
  o.project_id = service_json::requiredText(request, "project_id");
  if (const nlohmann::json* v = service_json::requestField(request, "readiness_path")) {
    if (!v->is_string() || !readinessPathOk(v->get<std::string>()))
      throw Error::badRequest(std::string(kReadinessPathRule));
    o.readiness_path = v->get<std::string>();
  }
  if (const nlohmann::json* v = service_json::requestField(request, "start_timeout_seconds")) {
    if (!v->is_number_integer() || v->get<int64_t>() < 1 ||
        v->get<int64_t>() > kMaxStartTimeoutSeconds)
      throw Error::badRequest(std::string(kStartTimeoutRule));
    o.start_timeout_seconds = v->get<int64_t>();
  }
  if (const nlohmann::json* v = service_json::requestField(request, "read_only_paths")) {
    if (!v->is_array() || v->size() > kMaxReadOnlyPaths)
      throw Error::badRequest(std::string(kReadOnlyPathsRule));
    for (const auto& path : *v) {
      if (!path.is_string()) throw Error::badRequest(std::string(kReadOnlyPathsRule));
      o.read_only_paths.push_back(path.get<std::string>());
    }
  }
  if (const nlohmann::json* v = service_json::requestField(request, "environment")) {
    if (!v->is_object() || v->size() > kMaxEnvironment)
      throw Error::badRequest(std::string(kEnvironmentRule));
    for (const auto& [name, value] : v->items()) {
      if (!value.is_string()) throw Error::badRequest(std::string(kEnvironmentRule));
      if (!environmentNameOk(name))
        throw Error::badRequest("environment name " + name +
                                " must be 1 to 64 of A-Z, 0-9 and _, not starting with a digit");
      const std::string text = value.get<std::string>();
      if (text.size() > kMaxEnvironmentValue || text.find('\0') != std::string::npos)
        throw Error::badRequest("the value of environment " + name +
                                " must be at most 4096 bytes without NUL characters");
      o.environment[name] = text;
    }
  }
  return o;
}

/** @throw Error 500 naming the field when one is missing or of the wrong type. */
inline StartOptions parseStartOptions(const nlohmann::json& answer, std::string_view method) {
  service_json::Answer a(answer, kService, method);
  StartOptions o;
  o.project_id = a.text("project_id");
  o.readiness_path = a.textOrNull("readiness_path");
  auto timeout = a.json().find("start_timeout_seconds");
  if (timeout == a.json().end()) throw a.refusal("start_timeout_seconds", "an integer or null");
  if (!timeout->is_null()) o.start_timeout_seconds = a.integer("start_timeout_seconds");
  o.read_only_paths = a.texts("read_only_paths");
  service_json::Answer environment = a.object("environment");
  for (const auto& [name, value] : environment.json().items())
    o.environment[name] = environment.text(name);
  return o;
}

}  // namespace runtime_apps

/** runtime.apps.v1 through Services::call. */
class RuntimeApps {
 public:
  explicit RuntimeApps(const Services& services) : services_(&services) {}

  /** Replaces every start option of options.project_id. */
  runtime_apps::StartOptions setStartOptions(const runtime_apps::StartOptions& options) const {
    using namespace runtime_apps;
    nlohmann::json request = toJson(options);
    return parseStartOptions(services_->call(kService, kSetStartOptions, request),
                             kSetStartOptions);
  }
  runtime_apps::StartOptions startOptions(std::string_view project_id) const {
    using namespace runtime_apps;
    return parseStartOptions(
        services_->call(kService, kStartOptions, {{"project_id", std::string(project_id)}}),
        kStartOptions);
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_APPS_HPP
