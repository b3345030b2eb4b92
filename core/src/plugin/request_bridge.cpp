#include "plugin/request_bridge.hpp"

#include <cctype>
#include <charconv>
#include <exception>
#include <stdexcept>

#include "log/logging.hpp"
#include "plugin/abi_views.hpp"
#include "plugin/plugin_manager.hpp"
#include "util/ascii.hpp"

berth_request::berth_request(std::shared_ptr<const berth::core::HttpRequest> request)
    : http(std::move(request)) {
  query_pairs.reserve(http->query_params.size());
  for (const auto& [name, value] : http->query_params) query_pairs.push_back(name + "=" + value);
}

namespace berth::core {
namespace {

berth_str presentUnlessEmpty(const std::string& s) {
  return s.empty() ? kAbsent : borrow(s);
}

berth_str mapped(const std::map<std::string, std::string>& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? kAbsent : borrow(it->second);
}

berth_str queryParamAt(const berth_request& request, std::string_view index_text) {
  size_t index = 0;
  const char* end = index_text.data() + index_text.size();
  auto [stop, error] = std::from_chars(index_text.data(), end, index);
  if (index_text.empty() || error != std::errc() || stop != end) return kAbsent;
  if (index >= request.query_pairs.size()) return kAbsent;
  return borrow(request.query_pairs[index]);
}

// The client still gets an answer; the details stay in the log.
void answerInternalError(berth_responder& responder, const HttpRequest& request,
                         std::string_view why) noexcept {
  try {
    logLine(*getLogger("http"), spdlog::level::err, request.request_id, "",
            "answering a plugin response failed: " + std::string(why));
    responder.reply(HttpResponse::error(500, "internal error"));
  } catch (...) {
    // Nothing left to tell anyone.
  }
}

berth_str callerPart(const Caller& caller, const std::string& value) {
  return caller.authenticated ? presentUnlessEmpty(value) : kAbsent;
}

}  // namespace

berth_str requestPart(const berth_request* request, uint32_t part, berth_str name) noexcept {
  if (request == nullptr) return kAbsent;
  try {
    const HttpRequest& http = *request->http;
    switch (part) {
      case BERTH_REQ_METHOD:
        return borrow(http.method);
      case BERTH_REQ_PATH:
        return borrow(http.path);
      case BERTH_REQ_RAW_PATH:
        return borrow(http.raw_path);
      case BERTH_REQ_QUERY:
        return borrow(http.query);
      case BERTH_REQ_QUERY_PARAM: {
        const std::string* value = http.queryParam(copy(name));
        return value == nullptr ? kAbsent : borrow(*value);
      }
      case BERTH_REQ_PATH_PARAM:
        return mapped(http.path_params, copy(name));
      case BERTH_REQ_HEADER: {
        return mapped(http.headers, asciiLower(copy(name)));
      }
      case BERTH_REQ_BODY:
        return borrow(http.body);
      case BERTH_REQ_BODY_FILE:
        return presentUnlessEmpty(http.body_file);
      case BERTH_REQ_HOST:
        return borrow(http.host);
      case BERTH_REQ_ID:
        return borrow(http.request_id);
      case BERTH_REQ_ACCOUNT_ID:
        return callerPart(http.caller, http.caller.account_id);
      case BERTH_REQ_ACCOUNT_EMAIL:
        return callerPart(http.caller, http.caller.email);
      case BERTH_REQ_TOKEN_ID:
        return callerPart(http.caller, http.caller.token_id);
      case BERTH_REQ_PEER:
        return borrow(http.peer);
      case BERTH_REQ_QUERY_PARAM_AT:
        return queryParamAt(*request, view(name));
      default:
        return kAbsent;
    }
  } catch (...) {
    // Only the lookup keys are allocated here; failing to allocate them means "not found".
    return kAbsent;
  }
}

Handler makePluginHandler(berth_route_fn fn, void* user, std::string data_dir) {
  return [fn, user, data_dir = std::move(data_dir)](std::shared_ptr<HttpRequest> request,
                                                    Reply reply) {
    // Ownership passes to the plugin here and comes back in respond(), which frees it.
    auto exchange = std::make_unique<Exchange>(std::move(request), std::move(reply), data_dir);
    Exchange* in_flight = exchange.release();
    fn(user, &in_flight->request, &in_flight->responder);
  };
}

void respond(berth_responder* responder, const berth_response* response) noexcept {
  if (responder == nullptr) return;
  // Owned from here: whatever happens below, the exchange is freed when this returns.
  std::unique_ptr<Exchange> exchange(responder->exchange);
  const HttpRequest& request = *exchange->request.http;
  try {
    if (response == nullptr) throw std::invalid_argument("respond was given no response");
    responder->reply(toHttpResponse(*response, request, responder->data_dir));
  } catch (const std::exception& e) {
    answerInternalError(*responder, request, e.what());
  } catch (...) {
    answerInternalError(*responder, request, "unknown exception");
  }
}

}  // namespace berth::core
