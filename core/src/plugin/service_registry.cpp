#include "plugin/service_registry.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace berth::core {

void ServiceRegistry::offer(const std::string& name, const std::string& owner, berth_service_fn fn,
                            void* user, ServiceCallers callers) {
  if (name.empty()) throw std::invalid_argument("a service needs a name");
  if (fn == nullptr) throw std::invalid_argument("service " + name + " has no function");
  auto [it, inserted] = services_.try_emplace(name, Service{owner, fn, user, callers});
  if (!inserted)
    throw std::invalid_argument("service " + name + " is offered by both " + it->second.owner +
                                " and " + owner);
}

int32_t ServiceRegistry::call(ServiceCaller caller, std::string_view name, std::string_view method,
                              std::string_view request_json, berth_buffer* out) const {
  auto it = services_.find(name);
  if (it == services_.end()) return BERTH_ERR_NOT_FOUND;
  // An installer acts for whoever runs the install, with the project the core set in its
  // request: a service that takes any database name must not be in its reach.
  if (it->second.callers == ServiceCallers::FeaturePlugins && caller == ServiceCaller::Installer) {
    if (out != nullptr)
      out->bytes = nlohmann::json{{"status", 403},
                                  {"error", "the service " + it->first +
                                                " answers feature plugins only; an installer "
                                                "cannot call it"}}
                       .dump();
    return BERTH_ERR;
  }
  // A caller that ignores the answer still gives the service somewhere to write.
  berth_buffer scratch;
  return it->second.fn(it->second.user, berth_str{method.data(), method.size()},
                       berth_str{request_json.data(), request_json.size()},
                       out != nullptr ? out : &scratch);
}

}  // namespace berth::core
