// SPDX-License-Identifier: MIT
/** @file
 *  scheduler.schedules.v1: a project's schedules for installers and other plugins (an
 *  installer adding the schedule that requests /wp-cron.php every fifteen minutes). Header-only,
 *  no ABI: the requests and answers, their JSON written and read once (the scheduler plugin's
 *  routes answer a Schedule with the same toJson), and a typed client.
 *
 *  Methods:
 *  - `ensure` {project_id, name, spec, path, account_id?} -> Ensured {schedule, created,
 *    updated}: idempotent by (project, name). The fields are taken exactly as
 *    POST /projects/{name}/schedules takes them, checked by the same code: `name` and `spec`
 *    with surrounding white space removed, `path` as sent (every run is a GET of it). With no
 *    schedule of that name it is made (`created`), enabled, under the same limit
 *    (scheduler.max_schedules_per_project); one whose spec or path differs is changed in place
 *    (`updated`: same id, history and enabled state; its next run is computed again from the
 *    new spec unless it is paused); one that matches is left as it is (both false). If several
 *    schedules share the name (the routes allow it), the oldest is the one ensured. `account_id`
 *    is who made it (an installer's caller, which the core sets); left out, the project's
 *    account.
 *  - `list` {project_id} -> {schedules: [Schedule]}: as GET /projects/{name}/schedules, in
 *    creation order.
 *  - `delete` {project_id, name} -> {deleted}: removes every schedule of that name (trimmed)
 *    and their run history; `deleted` is false when there was none, which is not an error.
 *
 *  A Schedule is the routes' own: {id, project, account_id, name, spec, path, enabled,
 *  created_at, next_run_at (null while paused), last_run_at, last_status, last_ms,
 *  last_error} (the last five null until a run). Times are Unix seconds of the scheduler's
 *  clock.
 *
 *  Refusals: 404 "no project called <id>"; 400 "<field> is required and must be a string";
 *  400 with the route's texts for a bad name, spec or path ("a schedule needs a name", the
 *  cron parser's message, "the path must start with /", ...); 403 "this project has <n>
 *  schedules, the limit (scheduler.max_schedules_per_project); delete one first" when ensure
 *  would make one more than the limit (a change in place is never refused by it).
 */
#ifndef BERTH_SERVICES_SCHEDULER_SCHEDULES_HPP
#define BERTH_SERVICES_SCHEDULER_SCHEDULES_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace scheduler_schedules {

inline constexpr std::string_view kService = "scheduler.schedules.v1";
inline constexpr std::string_view kEnsure = "ensure";
inline constexpr std::string_view kList = "list";
inline constexpr std::string_view kDelete = "delete";

// ---- a schedule ----------------------------------------------------------------------------

struct Schedule {
  std::string id;          ///< 48 hexadecimal characters
  std::string project;     ///< the project's name
  std::string account_id;  ///< who made it
  std::string name;
  std::string spec;  ///< five cron fields, UTC
  std::string path;  ///< requested with GET on the project's own host
  bool enabled = true;
  int64_t created_at = 0;
  std::optional<int64_t> next_run_at;  ///< null while paused
  std::optional<int64_t> last_run_at;  ///< when the last run started
  std::optional<int64_t> last_status;  ///< null when no status came
  std::optional<int64_t> last_ms;
  std::optional<std::string> last_error;

  bool operator==(const Schedule&) const = default;
};

namespace detail {
template <class T>
nlohmann::json orNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
inline std::optional<int64_t> integerOrNull(const service_json::Answer& read,
                                            std::string_view field) {
  const nlohmann::json& all = read.json();
  auto it = all.find(std::string(field));
  if (it == all.end() || !(it->is_null() || it->is_number_integer()))
    throw read.refusal(field, "an integer or null");
  if (it->is_null()) return std::nullopt;
  return it->get<int64_t>();
}
}  // namespace detail

inline nlohmann::json toJson(const Schedule& s) {
  return {{"id", s.id},
          {"project", s.project},
          {"account_id", s.account_id},
          {"name", s.name},
          {"spec", s.spec},
          {"path", s.path},
          {"enabled", s.enabled},
          {"created_at", s.created_at},
          {"next_run_at", detail::orNull(s.next_run_at)},
          {"last_run_at", detail::orNull(s.last_run_at)},
          {"last_status", detail::orNull(s.last_status)},
          {"last_ms", detail::orNull(s.last_ms)},
          {"last_error", detail::orNull(s.last_error)}};
}

inline Schedule readSchedule(const service_json::Answer& read) {
  Schedule s;
  s.id = read.text("id");
  s.project = read.text("project");
  s.account_id = read.text("account_id");
  s.name = read.text("name");
  s.spec = read.text("spec");
  s.path = read.text("path");
  s.enabled = read.flag("enabled");
  s.created_at = read.integer("created_at");
  s.next_run_at = detail::integerOrNull(read, "next_run_at");
  s.last_run_at = detail::integerOrNull(read, "last_run_at");
  s.last_status = detail::integerOrNull(read, "last_status");
  s.last_ms = detail::integerOrNull(read, "last_ms");
  s.last_error = read.textOrNull("last_error");
  return s;
}

/** {schedules: [Schedule]}: the answer of `list` and of the routes' lists. */
inline nlohmann::json listJson(const std::vector<Schedule>& schedules) {
  nlohmann::json list = nlohmann::json::array();
  for (const Schedule& s : schedules) list.push_back(toJson(s));
  return {{"schedules", std::move(list)}};
}

inline std::vector<Schedule> parseList(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kList);
  std::vector<Schedule> out;
  const nlohmann::json& list = read.array("schedules");
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(readSchedule(
        service_json::Answer(list[i], kService, kList, "schedules/" + std::to_string(i))));
  return out;
}

// ---- ensure ----------------------------------------------------------------------------------

struct EnsureRequest {
  std::string project_id;
  std::string name;
  std::string spec;
  std::string path;
  std::string account_id;  ///< empty: the project's account
};

inline nlohmann::json toJson(const EnsureRequest& r) {
  nlohmann::json request = {
      {"project_id", r.project_id}, {"name", r.name}, {"spec", r.spec}, {"path", r.path}};
  if (!r.account_id.empty()) request["account_id"] = r.account_id;
  return request;
}

inline EnsureRequest parseEnsureRequest(const nlohmann::json& request) {
  EnsureRequest r;
  r.project_id = service_json::requiredText(request, "project_id");
  r.name = service_json::requiredText(request, "name");
  r.spec = service_json::requiredText(request, "spec");
  r.path = service_json::requiredText(request, "path");
  r.account_id = service_json::optionalText(request, "account_id").value_or("");
  return r;
}

struct Ensured {
  Schedule schedule;     ///< as it is now
  bool created = false;  ///< made by this call
  bool updated = false;  ///< there already, its spec or path changed by this call

  bool operator==(const Ensured&) const = default;
};

inline nlohmann::json toJson(const Ensured& e) {
  return {{"schedule", toJson(e.schedule)}, {"created", e.created}, {"updated", e.updated}};
}

inline Ensured parseEnsured(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kEnsure);
  return {readSchedule(read.object("schedule")), read.flag("created"), read.flag("updated")};
}

// ---- delete ----------------------------------------------------------------------------------

struct DeleteRequest {
  std::string project_id;
  std::string name;
};

inline nlohmann::json toJson(const DeleteRequest& r) {
  return {{"project_id", r.project_id}, {"name", r.name}};
}

inline DeleteRequest parseDeleteRequest(const nlohmann::json& request) {
  return {service_json::requiredText(request, "project_id"),
          service_json::requiredText(request, "name")};
}

inline nlohmann::json deletedJson(bool deleted) {
  return {{"deleted", deleted}};
}

inline bool parseDeleted(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kDelete).flag("deleted");
}

/** The project_id of `list`. */
inline std::string parseListRequest(const nlohmann::json& request) {
  return service_json::requiredText(request, "project_id");
}

}  // namespace scheduler_schedules

/** scheduler.schedules.v1 through Services::call. Errors pass through as the service answered
 *  them; a missing scheduler plugin is Error 500 "service scheduler.schedules.v1 is not
 *  available". */
class SchedulerSchedules {
 public:
  explicit SchedulerSchedules(const Services& services) : services_(&services) {}

  scheduler_schedules::Ensured ensure(const scheduler_schedules::EnsureRequest& request) const {
    using namespace scheduler_schedules;
    return parseEnsured(services_->call(kService, kEnsure, toJson(request)));
  }
  std::vector<scheduler_schedules::Schedule> list(std::string_view project_id) const {
    using namespace scheduler_schedules;
    return parseList(services_->call(kService, kList, {{"project_id", project_id}}));
  }
  /** @return whether a schedule of that name was there. */
  bool remove(std::string_view project_id, std::string_view name) const {
    using namespace scheduler_schedules;
    return parseDeleted(services_->call(
        kService, kDelete, toJson(DeleteRequest{std::string(project_id), std::string(name)})));
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_SCHEDULER_SCHEDULES_HPP
