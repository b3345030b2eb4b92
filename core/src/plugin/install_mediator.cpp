// Installs through the core (ABI 1.3): the plugin serving the install route asks the core to
// run an installer for a project; the core checks the body, makes the install context and
// calls the installer. The context is the installer's only power: its service calls go to the
// services it declared, with the project and the caller set by the core.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "config/install_layout.hpp"
#include "http/body_checks.hpp"
#include "log/logging.hpp"
#include "plugin/abi_views.hpp"
#include "plugin/host_api.hpp"
#include "plugin/host_call.hpp"

// One install: made by runAppInstall for the call of the installer, gone when it returns.
struct berth_install_ctx {
  berth_host* runner;  // the plugin that asked for the install
  const berth::core::AppInstaller* installer;
  std::string context_json;
  std::string project_id, project_name, caller, request_id;
};

namespace berth::core {

namespace {

int32_t refuse(berth_buffer* out, int status, const std::string& message) {
  if (out != nullptr) out->bytes = nlohmann::json{{"status", status}, {"error", message}}.dump();
  return BERTH_ERR;
}

std::string missingService(const ServiceRegistry& services, const AppInstaller& installer) {
  for (const std::string& service : installer.services)
    if (!services.has(service)) return service;
  return "";
}

// The owner's payload folder: share/berth/templates/<plugin id>, beside berthd's own files.
std::string payloadDir(const AppInstaller& installer) {
  return defaultShareDir() + "/templates/" + installer.owner;
}

}  // namespace

void listAppInstallers(berth_host* host, berth_app_installer_visit_fn visit, void* ctx) noexcept {
  guardedCall(host, "list_app_installers", [&] {
    if (visit != nullptr) host->manager.installers.visitApps(host->manager.services, visit, ctx);
    return BERTH_OK;
  });
}

int32_t runAppInstall(berth_host* host, berth_str slug, berth_str context_json,
                      berth_str request_json, berth_buffer* out) noexcept {
  return guardedCall(host, "run_app_install", [&]() -> int32_t {
    if (host->kind == BERTH_KIND_TEMPLATE)
      return refuse(out, 403, "a template plugin cannot run installs");
    const AppInstaller* installer = host->manager.installers.findApp(view(slug));
    if (installer == nullptr) return refuse(out, 404, "no app template named " + copy(slug));
    if (std::string missing = missingService(host->manager.services, *installer); !missing.empty())
      return refuse(out, 503,
                    "the app template " + installer->slug + " needs the service " + missing +
                        ", which no loaded plugin offers");
    nlohmann::json body = view(request_json).empty()
                              ? nlohmann::json::object()
                              : nlohmann::json::parse(view(request_json), nullptr, false);
    if (body.is_discarded()) return refuse(out, 400, "the body is not valid JSON");
    if (auto problem = fieldProblem(body, installer->fields)) return refuse(out, 422, *problem);

    nlohmann::json context = nlohmann::json::parse(view(context_json), nullptr, false);
    if (!context.is_object() || !context.contains("project") || !context["project"].is_object() ||
        !context["project"].contains("id"))
      return refuse(out, 400, "an install needs the project it installs into");
    context["installer"] = {{"slug", installer->slug}, {"version", installer->version}};
    context["payload_dir"] = payloadDir(*installer);
    berth_install_ctx ctx{host,
                          installer,
                          context.dump(),
                          context["project"].value("id", ""),
                          context["project"].value("name", ""),
                          context.value("caller", ""),
                          context.value("request_id", "")};
    logLine(
        *host->logger, spdlog::level::info, ctx.request_id, ctx.project_name,
        "installing " + installer->slug + " " + installer->version + " (" + installer->owner + ")");
    berth_buffer answer;
    int32_t status = installer->fn(installer->user, &ctx, borrow(body.dump()), &answer);
    if (out != nullptr) out->bytes = std::move(answer.bytes);
    return status == BERTH_OK ? BERTH_OK : BERTH_ERR;
  });
}

berth_str installContext(berth_install_ctx* ctx) noexcept {
  return ctx == nullptr ? kAbsent : borrow(ctx->context_json);
}

int32_t installCall(berth_install_ctx* ctx, berth_str service, berth_str method,
                    berth_str request_json, berth_buffer* out) noexcept {
  if (ctx == nullptr) return BERTH_ERR;
  return guardedCall(ctx->runner, "install_call", [&]() -> int32_t {
    const std::vector<std::string>& declared = ctx->installer->services;
    std::string name = copy(service);
    if (std::find(declared.begin(), declared.end(), name) == declared.end())
      return refuse(
          out, 403,
          "the installer " + ctx->installer->slug + " did not declare the service " + name);
    nlohmann::json request = view(request_json).empty()
                                 ? nlohmann::json::object()
                                 : nlohmann::json::parse(view(request_json), nullptr, false);
    if (!request.is_object()) return refuse(out, 400, "the request is not a JSON object");
    // Whatever the installer wrote, it acts on its own project for its caller.
    request["project_id"] = ctx->project_id;
    request["account_id"] = ctx->caller;
    int32_t status = ctx->runner->manager.services.call(ServiceCaller::Installer, name,
                                                        view(method), request.dump(), out);
    if (status == BERTH_ERR_NOT_FOUND)
      return refuse(out, 503, "no loaded plugin offers the service " + name);
    return status;
  });
}

void installLog(berth_install_ctx* ctx, uint32_t level, berth_str message) noexcept {
  if (ctx == nullptr) return;
  guardedCall(ctx->runner, "install_log", [&] {
    logLine(*ctx->runner->logger, spdlogLevel(level), ctx->request_id, ctx->project_name,
            ctx->installer->slug + ": " + copy(message));
    return BERTH_OK;
  });
}

}  // namespace berth::core
