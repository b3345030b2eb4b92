// core.tenant_databases.v1 (berth/services/core_tenant_databases.hpp): the core's service over
// TenantDatabases, so that the plugin that owns projects makes and drops their databases
// without ever holding the tenants cluster's superuser URL. Feature plugins only.
#pragma once
#include <string_view>

#include <nlohmann/json.hpp>

#include "plugin/service_registry.hpp"
#include "tenants/tenant_databases.hpp"

namespace berth::core {

// One call of the service: its JSON answer. Throws berth::Error for a refusal (400 for bad
// input, 404 for an unknown method), std::invalid_argument for a name that is not a project's,
// and std::runtime_error when the cluster refuses.
nlohmann::json answerTenantDatabases(TenantDatabases& databases, std::string_view method,
                                     const nlohmann::json& request);

// Offers the service in the plugins' registry (PluginManager::offerCoreServices), owned by
// "the core", for feature plugins only (ServiceCallers): never an installer's install_call.
// `databases` must outlive the registry.
void offerTenantDatabases(ServiceRegistry& registry, TenantDatabases& databases);

}  // namespace berth::core
