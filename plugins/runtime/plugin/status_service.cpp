// runtime.status.v1, asked by the projects plugin for a Project's `state` and `live`:
// `project {id}` -> {state, live}; `projects {ids}` -> {<id>: {state, live}} with the live
// releases of all the ids read in one query.
#include "parts.hpp"
#include "project_status.hpp"

namespace berth::runtime {

namespace {

nlohmann::json statusOf(const Context& ctx, const std::string& id,
                        const std::map<std::string, ReleaseRecord>& live) {
  std::optional<LiveRelease> shown;
  if (auto it = live.find(id); it != live.end())
    shown = LiveRelease{it->second.id, it->second.created_at, it->second.files, it->second.bytes};
  return projectStatusJson(ctx.apps ? ctx.apps->state(id) : std::nullopt, shown);
}

std::vector<std::string> idsOf(const nlohmann::json& request) {
  auto it = request.find("ids");
  if (it == request.end() || !it->is_array())
    throw berth::Error::badRequest("ids must be an array of project ids");
  std::vector<std::string> ids;
  for (const auto& id : *it) {
    if (!id.is_string()) throw berth::Error::badRequest("ids must be an array of project ids");
    ids.push_back(id.get<std::string>());
  }
  return ids;
}

}  // namespace

void registerStatusService(berth::Registrar& r, Context& context) {
  const Context* ctx = &context;
  berth::ServiceMethods methods;
  methods["project"] = [ctx](const nlohmann::json& request) {
    auto it = request.find("id");
    if (it == request.end() || !it->is_string())
      throw berth::Error::badRequest("id must be a project id");
    std::string id = it->get<std::string>();
    return statusOf(*ctx, id, ctx->releases->liveOf({id}));
  };
  methods["projects"] = [ctx](const nlohmann::json& request) {
    std::vector<std::string> ids = idsOf(request);
    auto live = ctx->releases->liveOf(ids);
    nlohmann::json out = nlohmann::json::object();
    for (const auto& id : ids) out[id] = statusOf(*ctx, id, live);
    return out;
  };
  r.service("runtime.status.v1", std::move(methods));
}

}  // namespace berth::runtime
