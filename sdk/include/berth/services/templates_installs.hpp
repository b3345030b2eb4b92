// SPDX-License-Identifier: MIT
/** @file
 *  templates.installs.v1: an installer tells what its running install is doing. Header-only,
 *  no ABI: the request, its JSON written and read once, and the call an installer makes.
 *
 *  Methods:
 *  - `progress` {project_id, message} -> {noted}: the message becomes the `progress` of the
 *    project's running install (the install route's 202 answer and GET .../install show it)
 *    and a `platform` line in the project's log (runtime.logs.v1, when the runtime offers it).
 *    `noted` is false when no install of the project is running (the log line is still
 *    written). An installer calls it through its InstallContext (the core sets project_id) and
 *    declares the service in InstallerInfo::services.
 *
 *  Refusals: 400 "project_id is required and must be a string", "message is required and must
 *  be a string", "a log message is 1 to 1000 characters".
 */
#ifndef BERTH_SERVICES_TEMPLATES_INSTALLS_HPP
#define BERTH_SERVICES_TEMPLATES_INSTALLS_HPP

#include <berth/error.hpp>
#include <berth/installer.hpp>
#include <berth/services/runtime_logs.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace berth {
namespace templates_installs {

inline constexpr std::string_view kService = "templates.installs.v1";
inline constexpr std::string_view kProgress = "progress";

/** The same line rules as runtime.logs.v1: the message becomes one of its lines. */
inline runtime_logs::PlatformLine parseProgress(const nlohmann::json& request) {
  return runtime_logs::parsePlatformLine(request);
}

inline bool parseNoted(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kProgress).flag("noted");
}

/** From an installer: tells the install's caller and the project's log what it is doing.
 *  @return whether the running install took it. @throw Error as the service refused. */
inline bool reportProgress(const InstallContext& context, std::string_view message) {
  return parseNoted(context.call(kService, kProgress, {{"message", message}}));
}

}  // namespace templates_installs
}  // namespace berth

#endif  // BERTH_SERVICES_TEMPLATES_INSTALLS_HPP
