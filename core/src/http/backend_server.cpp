#include "http/backend_server.hpp"

#include <berth/util/percent_decode.hpp>
#include <berth/util/spooled_body.hpp>

#include <pistache/endpoint.h>
#include <pistache/http.h>

#include <sstream>
#include <thread>

#include "auth/accounts.hpp"
#include "http/edge_trust.hpp"
#include "http/host_routing.hpp"
#include "log/logging.hpp"
#include "util/ascii.hpp"

namespace berth::core {

using namespace Pistache;

namespace {

// Pistache only writes typed headers; this one carries any name and value.
class AnyHeader final : public Http::Header::Header {
 public:
  AnyHeader(std::string name, std::string value)
      : name_(std::move(name)), value_(std::move(value)) {}
  const char* name() const override { return name_.c_str(); }
  uint64_t hash() const override { return 0; }
  void parse(const std::string& data) override { value_ = data; }
  void write(std::ostream& os) const override { os << value_; }

 private:
  std::string name_, value_;
};

std::shared_ptr<HttpRequest> copyRequest(const Http::Request& req) {
  auto out = std::make_shared<HttpRequest>();
  out->method = Http::methodString(req.method());
  // One stream per thread: making a stream (its locale) costs more than writing a header.
  thread_local std::ostringstream value;
  for (const auto& h : req.headers().list()) {
    value.str(std::string());
    value.clear();
    h->write(value);
    out->headers[asciiLower(h->name())] = value.str();
  }
  for (const auto& [name, raw] : req.headers().rawList())
    out->headers[asciiLower(name)] = raw.value();
  // Checked already; no handler or plugin ever sees it.
  out->headers.erase("x-berth-edge-proof");

  // The edge passes the URI exactly as the client sent it, so repeated and ordered query
  // parameters survive (Pistache keeps them in a hash map).
  std::string uri;
  if (const auto* sent = out->header("x-berth-uri")) uri = *sent;
  if (uri.empty()) {
    uri = req.resource();
    std::string q = req.query().as_str();
    if (!q.empty()) uri += (q[0] == '?' ? "" : "?") + q;
  }
  auto qmark = uri.find('?');
  out->raw_path = uri.substr(0, qmark);
  out->query = qmark == std::string::npos ? "" : uri.substr(qmark + 1);
  out->path = berth::requestPathDecoded(out->raw_path);
  out->query_params = berth::requestQueryDecoded(out->query);

  if (const auto* host = out->header("host")) out->host = HostRouting::normalise(*host);
  if (const auto* id = out->header("x-berth-request-id")) out->request_id = *id;
  if (out->request_id.empty()) out->request_id = randomHex(8);
  if (const auto* peer = out->header("x-real-ip"))
    out->peer = *peer;
  else
    out->peer = req.address().host();
  if (const auto* file = out->header("x-berth-body-file")) out->body_file = *file;
  out->body = req.body();
  return out;
}

}  // namespace

struct BackendState {
  const Dispatcher* dispatcher = nullptr;
  std::string edge_proof;
  std::string body_dir;
  std::atomic<bool> draining{false};
  std::atomic<int> in_flight{0};
};

namespace {

class BackendHandler : public Http::Handler {
 public:
  HTTP_PROTOTYPE(BackendHandler)
  explicit BackendHandler(std::shared_ptr<BackendState> state) : state_(std::move(state)) {}

  void onRequest(const Http::Request& req, Http::ResponseWriter writer) override {
    auto out = std::make_shared<Http::ResponseWriter>(std::move(writer));
    // Only nginx knows the proof: everything else a request says (the edge's headers above
    // all) is believed only after it.
    auto proof = req.headers().tryGetRaw("X-Berth-Edge-Proof");
    if (!proof || !sameSecret(proof->value(), state_->edge_proof)) {
      out->headers().add(std::make_shared<AnyHeader>("Content-Type", "application/json"));
      out->send(Http::Code::Forbidden,
                R"({"error":"requests reach berthd through its edge only"})");
      return;
    }
    if (state_->draining.load()) {
      out->headers().add(std::make_shared<AnyHeader>("Retry-After", "1"));
      out->headers().add(std::make_shared<AnyHeader>("Connection", "close"));
      out->headers().add(std::make_shared<AnyHeader>("Content-Type", "application/json"));
      out->send(Http::Code::Service_Unavailable, R"({"error":"berthd is shutting down"})");
      return;
    }
    std::shared_ptr<HttpRequest> request;
    try {
      request = copyRequest(req);
    } catch (const std::exception& e) {
      out->send(Http::Code::Bad_Request, R"({"error":"malformed request"})");
      return;
    }
    // A body file is one nginx spooled, or the request is refused before any route runs.
    if (!request->body_file.empty() &&
        !berth::isSpooledBody(state_->body_dir, request->body_file)) {
      out->headers().add(std::make_shared<AnyHeader>("Content-Type", "application/json"));
      out->send(Http::Code::Bad_Request, R"({"error":"the request body could not be read"})");
      return;
    }
    state_->in_flight.fetch_add(1);
    auto started = std::chrono::steady_clock::now();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    auto state = state_;
    Reply reply = [out, answered, state, started, request](HttpResponse response) {
      if (answered->exchange(true)) return;
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - started)
                    .count();
      if (!response.content_type.empty())
        out->headers().add(std::make_shared<AnyHeader>("Content-Type", response.content_type));
      for (auto& [name, value] : response.headers)
        out->headers().add(std::make_shared<AnyHeader>(name, value));
      out->send(static_cast<Http::Code>(response.status), response.body)
          .then([](ssize_t) {}, [](std::exception_ptr) {});
      std::string line = request->method + " " + request->raw_path + " " +
                         std::to_string(response.status) + " " + std::to_string(ms) + "ms";
      if (!request->caller.account_id.empty()) line += " account=" + request->caller.account_id;
      if (request->project_traffic) line += " host=" + request->host;
      logLine(*getLogger("http"), spdlog::level::info, request->request_id, "", line);
      state->in_flight.fetch_sub(1);
    };
    try {
      state_->dispatcher->dispatch(request, reply);
    } catch (const std::exception& e) {
      logLine(*getLogger("http"), spdlog::level::err, request->request_id, "",
              std::string("unhandled: ") + e.what());
      reply(HttpResponse::error(500, "internal error"));
    }
  }

 private:
  std::shared_ptr<BackendState> state_;
};

}  // namespace

BackendServer::BackendServer(const Dispatcher& dispatcher, int threads, size_t max_request_bytes,
                             std::string edge_proof, std::string body_dir)
    : state_(std::make_shared<BackendState>()),
      threads_(threads),
      max_request_bytes_(max_request_bytes) {
  state_->dispatcher = &dispatcher;
  state_->edge_proof = std::move(edge_proof);
  state_->body_dir = std::move(body_dir);
}

BackendServer::~BackendServer() {
  stop();
}

void BackendServer::start(uint16_t port) {
  endpoint_ = std::make_unique<Http::Endpoint>(Address(IP::loopback(), Port(port)));
  auto options = Http::Endpoint::options()
                     .threads(threads_)
                     .maxRequestSize(max_request_bytes_)
                     .flags(Tcp::Options::ReuseAddr);
  endpoint_->init(options);
  endpoint_->setHandler(Http::make_handler<BackendHandler>(state_));
  endpoint_->serveThreaded();
  port_ = static_cast<uint16_t>(endpoint_->getPort());
}

void BackendServer::beginDrain() {
  state_->draining.store(true);
}

bool BackendServer::waitIdle(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (state_->in_flight.load() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

void BackendServer::stop() {
  if (!endpoint_) return;
  // Responses already queued need a moment to reach the reactor before it stops.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  endpoint_->shutdown();
  endpoint_.reset();
}

int BackendServer::inFlight() const {
  return state_->in_flight.load();
}

}  // namespace berth::core
