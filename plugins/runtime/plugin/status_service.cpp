// runtime.logs.v1 (a platform line in a project's log, berth/services/runtime_logs.hpp),
// runtime.status.v1 (<berth/services/runtime_status.hpp>): `project {id}` -> {state, live};
// `projects {ids}` -> {<id>: {state, live}} with the live releases of all the ids read in one
// query; and the same status as the answer to the projects plugin's projects.view.v1 hook
// (<berth/services/projects_view.hpp>), a Project's `state` and `live`.
#include <berth/services/projects_view.hpp>
#include <berth/services/runtime_logs.hpp>
#include <berth/services/runtime_status.hpp>

#include <chrono>

#include "parts.hpp"
#include "project_status.hpp"

namespace berth::runtime {

namespace {

namespace contract = berth::runtime_status;

contract::Status statusOf(const Context& ctx, const std::string& id,
                          const std::map<std::string, ReleaseRecord>& live) {
  std::optional<LiveRelease> shown;
  if (auto it = live.find(id); it != live.end())
    shown = LiveRelease{it->second.id, it->second.created_at, it->second.files, it->second.bytes};
  return projectStatus(ctx.apps ? ctx.apps->state(id) : std::nullopt, shown);
}

}  // namespace

void registerStatusService(berth::Registrar& r, Context& context) {
  const Context* ctx = &context;
  berth::ServiceMethods methods;
  methods[std::string(contract::kProject)] = [ctx](const nlohmann::json& request) {
    std::string id = contract::parseIdRequest(request);
    return contract::toJson(statusOf(*ctx, id, ctx->releases->liveOf({id})));
  };
  methods[std::string(contract::kProjects)] = [ctx](const nlohmann::json& request) {
    std::vector<std::string> ids = contract::parseIdsRequest(request);
    auto live = ctx->releases->liveOf(ids);
    contract::ProjectStatuses out;
    for (const auto& id : ids) out[id] = statusOf(*ctx, id, live);
    return contract::toJson(out);
  };
  r.service(std::string(contract::kService), std::move(methods));

  // The same status as the Project's state and live: the projects plugin asks whoever owns
  // them through projects.view.v1, once for every project it shows.
  r.hookAnswer(std::string(berth::projects_view::kEvent), [ctx](const nlohmann::json& payload) {
    std::vector<std::string> ids = berth::projects_view::parseIds(payload);
    if (!ctx->releases) return nlohmann::json();  // not started yet
    try {
      auto live = ctx->releases->liveOf(ids);
      nlohmann::json answer = nlohmann::json::object();
      for (const auto& id : ids) {
        contract::Status s = statusOf(*ctx, id, live);
        answer[id] = berth::projects_view::stateJson(s.running, s.live);
      }
      return answer;
    } catch (const std::exception& e) {
      // Answering nothing shows "stopped" and null; a refusal would also stop the answers
      // after this one.
      ctx->logger().warn(std::string("status of projects unavailable: ") + e.what());
      return nlohmann::json();
    }
  });

  // runtime.logs.v1 (<berth/services/runtime_logs.hpp>): a platform line in a project's log.
  berth::ServiceMethods log_methods;
  Context* logs_ctx = &context;
  log_methods[std::string(berth::runtime_logs::kPlatform)] =
      [logs_ctx](const nlohmann::json& request) {
        berth::runtime_logs::PlatformLine line = berth::runtime_logs::parsePlatformLine(request);
        LogEntry entry;
        entry.at = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
        entry.kind = "platform";
        entry.message = std::move(line.message);
        logs_ctx->logs.add(line.project_id, std::move(entry));
        return nlohmann::json::object();
      };
  r.service(std::string(berth::runtime_logs::kService), std::move(log_methods));
}

}  // namespace berth::runtime
