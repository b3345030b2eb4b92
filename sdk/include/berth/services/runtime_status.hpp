// SPDX-License-Identifier: MIT
/** @file
 *  runtime.status.v1: what the runtime plugin tells the projects plugin about a project for its
 *  Project resource (`state`, `live`). Header-only, no ABI: the types, their JSON written and
 *  read once, and a typed client.
 *
 *  Methods:
 *  - `project` {id} -> Status;
 *  - `projects` {ids: [project id]} -> {"<id>": Status}, every id asked.
 *
 *  A Status is {state, live}: `state` is "running" only while the project has an app process
 *  of its own running on this node (a static site, or an app starting or waiting to restart,
 *  is "stopped"); `live` is {id, created_at, files, bytes} of the live release, or null before
 *  the first. Both are always there. Refusals: 400 "id must be a project id",
 *  "ids must be an array of project ids".
 */
#ifndef BERTH_SERVICES_RUNTIME_STATUS_HPP
#define BERTH_SERVICES_RUNTIME_STATUS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/projects_view.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {
namespace runtime_status {

inline constexpr std::string_view kService = "runtime.status.v1";
inline constexpr std::string_view kProject = "project";
inline constexpr std::string_view kProjects = "projects";

/** The release a project serves: the Project's `live`, whose type the projects plugin's
 *  contract owns (the runtime fills it in for the projects plugin, not the other way round). */
using LiveRelease = projects_view::LiveRelease;
using projects_view::toJson;

struct Status {
  bool running = false;             ///< state "running" (else "stopped")
  std::optional<LiveRelease> live;  ///< null before the first release

  bool operator==(const Status&) const = default;
};

/** The `state` text of a Status. */
inline std::string_view stateText(const Status& s) {
  return s.running ? "running" : "stopped";
}

inline nlohmann::json toJson(const Status& s) {
  nlohmann::json out;
  out["state"] = stateText(s);
  out["live"] = s.live ? toJson(*s.live) : nlohmann::json();
  return out;
}

using ProjectStatuses = std::map<std::string, Status>;

inline nlohmann::json toJson(const ProjectStatuses& statuses) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, status] : statuses) out[id] = toJson(status);
  return out;
}

namespace detail {
inline Status statusFrom(const service_json::Answer& a) {
  Status s;
  const std::string state = a.text("state");
  if (state != "running" && state != "stopped") throw a.refusal("state", "running or stopped");
  s.running = state == "running";
  if (std::optional<service_json::Answer> live = a.objectOrNull("live"))
    s.live = LiveRelease{live->text("id"), live->integer("created_at"), live->count("files"),
                         live->count("bytes")};
  return s;
}
}  // namespace detail

/** The answer of `project`. */
inline Status parseStatus(const nlohmann::json& answer) {
  return detail::statusFrom(service_json::Answer(answer, kService, kProject));
}

/** The answer of `projects`. */
inline ProjectStatuses parseStatuses(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kProjects);
  ProjectStatuses out;
  for (const auto& item : answer.items())
    out[item.key()] = detail::statusFrom(a.object(item.key()));
  return out;
}

inline nlohmann::json idJson(std::string_view id) {
  return {{"id", id}};
}
/** @throw Error 400 "id must be a project id". */
inline std::string parseIdRequest(const nlohmann::json& request) {
  const nlohmann::json* id = service_json::requestField(request, "id");
  if (id == nullptr || !id->is_string()) throw Error::badRequest("id must be a project id");
  return id->get<std::string>();
}

inline nlohmann::json idsJson(const std::vector<std::string>& ids) {
  return {{"ids", ids}};
}
/** @throw Error 400 "ids must be an array of project ids". */
inline std::vector<std::string> parseIdsRequest(const nlohmann::json& request) {
  return service_json::requiredTexts(request, "ids", "ids must be an array of project ids");
}

}  // namespace runtime_status

/** The typed client of runtime.status.v1. */
class RuntimeStatus {
 public:
  explicit RuntimeStatus(const Services& services) : services_(&services) {}

  /** The status of these projects; std::nullopt when no loaded plugin offers the service (the
   *  runtime plugin is not enabled). @throw Error as the service answered. */
  std::optional<runtime_status::ProjectStatuses> tryProjects(
      const std::vector<std::string>& ids) const {
    using namespace runtime_status;
    std::optional<nlohmann::json> answer = services_->tryCall(kService, kProjects, idsJson(ids));
    if (!answer) return std::nullopt;
    return parseStatuses(*answer);
  }

  /** One project's status; std::nullopt when no loaded plugin offers the service. */
  std::optional<runtime_status::Status> tryProject(std::string_view id) const {
    using namespace runtime_status;
    std::optional<nlohmann::json> answer = services_->tryCall(kService, kProject, idJson(id));
    if (!answer) return std::nullopt;
    return parseStatus(*answer);
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_STATUS_HPP
