#include "plugin/service_registry.hpp"

#include <stdexcept>

namespace berth::core {

void ServiceRegistry::offer(const std::string& name, const std::string& owner, berth_service_fn fn,
                            void* user) {
  if (name.empty()) throw std::invalid_argument("a service needs a name");
  if (fn == nullptr) throw std::invalid_argument("service " + name + " has no function");
  auto [it, inserted] = services_.try_emplace(name, Service{owner, fn, user});
  if (!inserted)
    throw std::invalid_argument("service " + name + " is offered by both " + it->second.owner +
                                " and " + owner);
}

int32_t ServiceRegistry::call(std::string_view name, std::string_view method,
                              std::string_view request_json, berth_buffer* out) const {
  auto it = services_.find(name);
  if (it == services_.end()) return BERTH_ERR_NOT_FOUND;
  // A caller that ignores the answer still gives the service somewhere to write.
  berth_buffer scratch;
  return it->second.fn(it->second.user, berth_str{method.data(), method.size()},
                       berth_str{request_json.data(), request_json.size()},
                       out != nullptr ? out : &scratch);
}

}  // namespace berth::core
