// A service method called over the plugin ABI through the serviceprobe fixture plugin
// (tests/core/fixtures/serviceprobe_plugin.cpp), which berthd must load: the request as the
// JSON body of POST /serviceprobe/{service}/{method}, the service's answer or its refusal
// (status and words) back. For the tests of service contracts.
#pragma once
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

#include "support/berthd_process.hpp"
#include "support/http_client.hpp"

namespace berth::testing {

// `timeout_ms` for a method that may wait (a release's build, a command).
inline HttpResult callService(const BerthdProcess& server, const std::string& service,
                              const std::string& method, const nlohmann::json& request,
                              long timeout_ms = 30000) {
  HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = server.baseUrl() + "/serviceprobe/" + service + "/" + method;
  spec.body = request.dump();
  spec.headers = {"Content-Type: application/json"};
  spec.timeout_ms = timeout_ms;
  return send(spec);
}

// The answer of a call that must succeed. @throw std::runtime_error with the refusal.
inline nlohmann::json mustCallService(const BerthdProcess& server, const std::string& service,
                                      const std::string& method, const nlohmann::json& request,
                                      long timeout_ms = 30000) {
  HttpResult r = callService(server, service, method, request, timeout_ms);
  if (r.status != 200)
    throw std::runtime_error(service + " " + method + " " + request.dump() + ": " +
                             std::to_string(r.status) + " " + r.body);
  return r.json();
}

}  // namespace berth::testing
