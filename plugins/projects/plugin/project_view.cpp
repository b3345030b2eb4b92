#include "project_view.hpp"

#include "commands.hpp"

namespace berth::projects {

namespace {

struct Extras {
  nlohmann::json files;    // id -> {files_count, files_bytes}
  nlohmann::json runtime;  // id -> {state, live}
};

// Asks the plugins that own files and processes about these projects; an absent plugin leaves
// zeros and nulls.
Extras askOtherPlugins(const Context& context, const std::vector<std::string>& ids) {
  Extras extras;
  nlohmann::json request = {{"ids", ids}};
  try {
    if (auto a = context.services->tryCall("storage.stats.v1", "projects", request))
      extras.files = std::move(*a);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("storage stats unavailable: ") + e.what());
  }
  try {
    if (auto a = context.services->tryCall("runtime.status.v1", "projects", request))
      extras.runtime = std::move(*a);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("runtime status unavailable: ") + e.what());
  }
  return extras;
}

nlohmann::json render(const Context& context, const ProjectRecord& p, const berth::Account* owner,
                      const Extras& extras, ViewOptions options) {
  nlohmann::json files =
      extras.files.is_object() ? extras.files.value(p.id, nlohmann::json()) : nlohmann::json();
  nlohmann::json runtime =
      extras.runtime.is_object() ? extras.runtime.value(p.id, nlohmann::json()) : nlohmann::json();
  auto runtimeName = guessRuntime(p.cmd);
  nlohmann::json view = {
      {"name", p.name},
      {"label", p.label},
      {"host", context.hostOf(p.name)},
      {"url", context.urlOf(p.name)},
      {"state", runtime.is_object() ? runtime.value("state", "stopped") : "stopped"},
      {"cache_enabled", p.cache_enabled},
      {"cache_ttl", p.cache_ttl},
      {"region", p.region},
      {"cmd", p.cmd},
      {"ignore_dockerfile", p.ignore_dockerfile},
      {"runtime", runtimeName ? nlohmann::json(*runtimeName) : nlohmann::json()},
      {"db_bytes", p.db_bytes},
      {"files_count", options.zero_files || !files.is_object() ? 0 : files.value("files_count", 0)},
      {"files_bytes", options.zero_files || !files.is_object() ? 0 : files.value("files_bytes", 0)},
      {"live", runtime.is_object() ? runtime.value("live", nlohmann::json()) : nlohmann::json()},
      {"created_at", p.created_at},
  };
  if (owner) {
    view["owner"] = {{"id", owner->id},
                     {"email", owner->isTeam ? nlohmann::json() : nlohmann::json(owner->email)},
                     {"slug", owner->slug}};
    view["team"] = owner->isTeam ? nlohmann::json(owner->slug) : nlohmann::json();
  } else {
    view["owner"] = nullptr;
    view["team"] = nullptr;
  }
  return view;
}

}  // namespace

nlohmann::json projectView(const Context& context, const ProjectRecord& project,
                           const berth::Account* owner, ViewOptions options) {
  return render(context, project, owner, askOtherPlugins(context, {project.id}), options);
}

nlohmann::json projectViews(const Context& context, const std::vector<ProjectRecord>& projects,
                            const Access& access) {
  std::vector<std::string> ids;
  for (const auto& p : projects) ids.push_back(p.id);
  Extras extras = projects.empty() ? Extras{} : askOtherPlugins(context, ids);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : projects)
    list.push_back(render(context, p, access.account(p.account_id), extras, {}));
  return list;
}

}  // namespace berth::projects
