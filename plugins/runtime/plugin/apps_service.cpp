// runtime.apps.v1 (<berth/services/runtime_apps.hpp>): a project's start options. Stored in
// runtime.start_options (start_options.*), used by the gateway whenever it builds an app's spec
// (gateway_app_spec.cpp); a running app restarts with new ones (Gateway::startOptionsChanged).
#include <berth/services/projects_directory.hpp>
#include <berth/services/runtime_apps.hpp>

#include "gateway.hpp"
#include "parts.hpp"
#include "start_options.hpp"

namespace berth::runtime {

namespace {

namespace contract = berth::runtime_apps;

}  // namespace

void registerAppsService(berth::Registrar& r, Context& context) {
  Context* ctx = &context;
  berth::ServiceMethods methods;
  methods[std::string(contract::kSetStartOptions)] = [ctx](const nlohmann::json& request) {
    StartOptions options = contract::parseSetRequest(request);
    // 404 "no project called <id>"
    const auto project = berth::ProjectsDirectory(*ctx->services).getById(options.project_id);
    options.project_id = project.id;
    checkStartOptions(options, ctx->config.shared_dir);
    writeStartOptions(*ctx->services, options);
    if (ctx->gateway) ctx->gateway->startOptionsChanged(project.id, project.name);
    ctx->logger().withProject(project.name).info("start options set");
    return contract::toJson(options);
  };
  methods[std::string(contract::kStartOptions)] = [ctx](const nlohmann::json& request) {
    const std::string id = berth::service_json::requiredText(request, "project_id");
    const auto project = berth::ProjectsDirectory(*ctx->services).getById(id);  // 404
    return contract::toJson(readStartOptions(*ctx->services, project.id));
  };
  r.service(std::string(contract::kService), std::move(methods));

  // A deleted project's options go with it (deleted again for a set that raced the delete).
  auto forget = [ctx](const nlohmann::json& payload) {
    const std::string id = payload.value("id", "");
    if (!id.empty()) removeStartOptions(*ctx->services, id);
  };
  r.hook("project.deleting", forget);
  r.hook("project.deleted", forget);
}

}  // namespace berth::runtime
