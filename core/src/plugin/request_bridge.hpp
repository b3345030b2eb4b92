// The HTTP side of the ABI: berth_request over the core's HttpRequest, berth_responder over its
// Reply, and the route handler that hands both to a plugin.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <berth/abi.h>

#include "http/http_types.hpp"

namespace berth::core {
struct Exchange;
}

struct berth_request {
  explicit berth_request(std::shared_ptr<const berth::core::HttpRequest> request);

  std::shared_ptr<const berth::core::HttpRequest> http;
  // "name=value" per query parameter, built up front so QUERY_PARAM_AT can hand out views that
  // live as long as the request.
  std::vector<std::string> query_pairs;
};

struct berth_responder {
  berth::core::Reply reply;
  std::string data_dir;  // FILE answers must stay inside it
  berth::core::Exchange* exchange;
};

namespace berth::core {

// One request in flight: allocated when the handler runs, freed by respond(). The ABI promises
// the request lives until its responder answered, so both live and die together.
struct Exchange {
  Exchange(std::shared_ptr<const HttpRequest> request, Reply reply, std::string data_dir)
      : request(std::move(request)), responder{std::move(reply), std::move(data_dir), this} {}
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  berth_request request;
  berth_responder responder;
};

// The core Handler for a plugin route: it allocates the exchange and calls fn; the plugin answers
// through respond(), now or later from any thread.
Handler makePluginHandler(berth_route_fn fn, void* user, std::string data_dir);

// host_api->req_get. Views point into the request object; absent (ptr NULL) when the part is
// missing.
berth_str requestPart(const berth_request* request, uint32_t part, berth_str name) noexcept;

// host_api->respond: converts, replies, and frees the exchange. The responder is gone afterwards.
void respond(berth_responder* responder, const berth_response* response) noexcept;

}  // namespace berth::core
