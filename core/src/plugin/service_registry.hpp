// Services offered by plugins to each other, by versioned name ("storage.blobs.v1"), and the
// core's own (core.tenant_databases.v1).
#pragma once
#include <map>
#include <string>
#include <string_view>

#include <berth/abi.h>

#include "plugin/buffer.hpp"

namespace berth::core {

// Who may call a service: anyone who reaches the registry, or only the core and feature
// plugins' own calls (never an installer's install_call, whoever made the installer).
enum class ServiceCallers { Anyone, FeaturePlugins };

// Who is calling. Template plugins never get here: call_service refuses them first.
enum class ServiceCaller { Core, FeaturePlugin, Installer };

class ServiceRegistry {
 public:
  // Only during registration (main thread). A name offered twice is refused, naming both owners.
  void offer(const std::string& name, const std::string& owner, berth_service_fn fn, void* user,
             ServiceCallers callers = ServiceCallers::Anyone);

  // BERTH_ERR_NOT_FOUND (out untouched) when nobody offers the name; BERTH_ERR with a 403
  // answer when the service does not answer this caller; otherwise what the service answers,
  // with its JSON answer appended to out.
  int32_t call(ServiceCaller caller, std::string_view name, std::string_view method,
               std::string_view request_json, berth_buffer* out) const;

  bool has(std::string_view name) const { return services_.find(name) != services_.end(); }

 private:
  struct Service {
    std::string owner;
    berth_service_fn fn;
    void* user;
    ServiceCallers callers;
  };
  std::map<std::string, Service, std::less<>> services_;
};

}  // namespace berth::core
