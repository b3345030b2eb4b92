#include "tenants/tenant_databases_service.hpp"

#include <berth/error.hpp>
#include <berth/services/core_tenant_databases.hpp>

#include <stdexcept>
#include <string>

#include "log/logging.hpp"
#include "plugin/abi_views.hpp"
#include "plugin/buffer.hpp"

namespace berth::core {
namespace {

namespace contract = berth::core_tenant_databases;

std::string errorAnswer(int status, const std::string& message) {
  return nlohmann::json{{"status", status}, {"error", message}}.dump();
}

// The berth_service_fn of the service; user is the TenantDatabases. Nothing is thrown through
// it: every failure becomes the {"status", "error"} answer the ABI expects.
int32_t serveTenantDatabases(void* user, berth_str method, berth_str request_json,
                             berth_buffer* out) noexcept {
  try {
    const std::string method_name = copy(method);
    try {
      nlohmann::json request = view(request_json).empty()
                                   ? nlohmann::json::object()
                                   : nlohmann::json::parse(view(request_json), nullptr, false);
      if (request.is_discarded()) throw berth::Error::badRequest("the request is not valid JSON");
      out->bytes =
          answerTenantDatabases(*static_cast<TenantDatabases*>(user), method_name, request).dump();
      return BERTH_OK;
    } catch (const berth::Error& error) {
      out->bytes = errorAnswer(error.status(), error.message());
    } catch (const std::invalid_argument& error) {
      out->bytes = errorAnswer(400, error.what());
    } catch (const std::exception& error) {
      // The caller logs it where it belongs (the project's lines); the core keeps a line too,
      // as an administrator looks for a cluster's failures in the core's log.
      logLine(*getLogger("core"), spdlog::level::err, "", "",
              std::string(contract::kService) + " " + method_name + " failed: " + error.what());
      out->bytes = errorAnswer(500, error.what());
    }
  } catch (...) {
    out->bytes = R"({"status":500,"error":"internal error"})";
  }
  return BERTH_ERR;
}

}  // namespace

nlohmann::json answerTenantDatabases(TenantDatabases& databases, std::string_view method,
                                     const nlohmann::json& request) {
  if (method == contract::kCreate) {
    TenantDatabase made = databases.create(contract::parseCreateRequest(request));
    return contract::toJson(contract::Database{made.database, made.role, made.password});
  }
  if (method == contract::kDrop) {
    contract::DropRequest drop = contract::parseDropRequest(request);
    databases.drop(drop.database, drop.role);
    return nlohmann::json::object();
  }
  if (method == contract::kSize)
    return contract::sizeJson(databases.sizeBytes(contract::parseSizeRequest(request)));
  if (method == contract::kCloseOthers) {
    databases.closeOtherDatabases();
    return nlohmann::json::object();
  }
  if (method == contract::kUrl) {
    contract::Database db = contract::parseUrlRequest(request);
    return contract::urlJson(databases.projectUrl({db.database, db.role, db.password}));
  }
  throw berth::Error::notFound("service " + std::string(contract::kService) + " has no method " +
                               std::string(method));
}

void offerTenantDatabases(ServiceRegistry& registry, TenantDatabases& databases) {
  registry.offer(std::string(contract::kService), "the core", serveTenantDatabases, &databases,
                 ServiceCallers::FeaturePlugins);
}

}  // namespace berth::core
