// SPDX-License-Identifier: MIT
/** @file
 *  runtime.logs.v1: a `platform` line in a project's own log (GET /projects/{name}/logs), for
 *  what happens to the project outside its app: an install's progress, a setting changed.
 *  Header-only, no ABI: the request, its JSON written and read once, and a typed client.
 *
 *  Methods:
 *  - `platform` {project_id, message} -> {}: the line is logged with kind "platform" and the
 *    time it arrived. An installer calls it through its InstallContext (the core sets
 *    project_id); a feature plugin names the project itself.
 *
 *  Refusals: 400 "project_id is required and must be a string", "message is required and must
 *  be a string", "a log message is 1 to 1000 characters".
 */
#ifndef BERTH_SERVICES_RUNTIME_LOGS_HPP
#define BERTH_SERVICES_RUNTIME_LOGS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace berth {
namespace runtime_logs {

inline constexpr std::string_view kService = "runtime.logs.v1";
inline constexpr std::string_view kPlatform = "platform";
inline constexpr size_t kMaxMessage = 1000;

struct PlatformLine {
  std::string project_id;
  std::string message;
};

inline nlohmann::json toJson(const PlatformLine& line) {
  return {{"project_id", line.project_id}, {"message", line.message}};
}

/** @throw Error 400 naming what is wrong. */
inline PlatformLine parsePlatformLine(const nlohmann::json& request) {
  PlatformLine line{service_json::requiredText(request, "project_id"),
                    service_json::requiredText(request, "message")};
  if (line.message.empty() || line.message.size() > kMaxMessage)
    throw Error::badRequest("a log message is 1 to 1000 characters");
  return line;
}

}  // namespace runtime_logs

/** runtime.logs.v1 through Services::call. */
class RuntimeLogs {
 public:
  explicit RuntimeLogs(const Services& services) : services_(&services) {}

  /** @return false when no loaded plugin offers the service (the line is dropped).
   *  @throw Error as the service refused. */
  bool platform(std::string_view project_id, std::string_view message) const {
    return services_
        ->tryCall(runtime_logs::kService, runtime_logs::kPlatform,
                  runtime_logs::toJson({std::string(project_id), std::string(message)}))
        .has_value();
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_LOGS_HPP
