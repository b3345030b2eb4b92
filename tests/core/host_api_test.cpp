// The host table driven directly, as a plugin would call it: request parts, responses,
// registration checks, services, hooks, jobs, settings and the control-plane database.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "auth/accounts.hpp"
#include "db/migrator.hpp"
#include "edge/edge_cache.hpp"
#include "plugin/host_api.hpp"
#include "plugin/plugin_state.hpp"
#include "plugin/request_bridge.hpp"
#include "support/pg_cluster.hpp"

namespace berth::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

const berth_host_api& api = hostApi();

berth_str str(std::string_view s) {
  return berth_str{s.data(), s.size()};
}

// An absent view reads as nullopt, so tests can tell "missing" from "empty".
std::optional<std::string> text(berth_str s) {
  if (s.ptr == nullptr) return std::nullopt;
  return std::string(s.ptr, s.len);
}

std::string headerValue(const HttpResponse& response, const std::string& name) {
  for (const auto& [key, value] : response.headers)
    if (key == name) return value;
  return "(none)";
}

// ---- requests ----------------------------------------------------------------------------

std::shared_ptr<HttpRequest> sampleRequest() {
  auto request = std::make_shared<HttpRequest>();
  request->method = "POST";
  request->raw_path = "/files/a%20b";
  request->path = "/files/a b";
  request->query = "tag=x&tag=y&q=hello%20world";
  request->query_params = {{"tag", "x"}, {"tag", "y"}, {"q", "hello world"}};
  request->headers = {{"content-type", "application/json"}, {"x-trace", "abc"}};
  request->body = R"({"name":"berth"})";
  request->host = "api.example.test";
  request->request_id = "req-1";
  request->peer = "10.0.0.7";
  request->path_params = {{"name", "a b"}};
  return request;
}

std::optional<std::string> part(const berth_request& request, uint32_t which,
                                std::string_view name = {}) {
  return text(api.req_get(&request, which, str(name)));
}

TEST(HostApiRequest, AnswersEveryPart) {
  berth_request request(sampleRequest());
  EXPECT_EQ(part(request, BERTH_REQ_METHOD), "POST");
  EXPECT_EQ(part(request, BERTH_REQ_PATH), "/files/a b");
  EXPECT_EQ(part(request, BERTH_REQ_RAW_PATH), "/files/a%20b");
  EXPECT_EQ(part(request, BERTH_REQ_QUERY), "tag=x&tag=y&q=hello%20world");
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM, "tag"), "x");  // the first of two
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM, "q"), "hello world");
  EXPECT_EQ(part(request, BERTH_REQ_PATH_PARAM, "name"), "a b");
  EXPECT_EQ(part(request, BERTH_REQ_HEADER, "X-Trace"), "abc");  // any case
  EXPECT_EQ(part(request, BERTH_REQ_BODY), R"({"name":"berth"})");
  EXPECT_EQ(part(request, BERTH_REQ_HOST), "api.example.test");
  EXPECT_EQ(part(request, BERTH_REQ_ID), "req-1");
  EXPECT_EQ(part(request, BERTH_REQ_PEER), "10.0.0.7");
}

TEST(HostApiRequest, QueryParamAtCountsFromZeroInOrder) {
  berth_request request(sampleRequest());
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM_AT, "0"), "tag=x");
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM_AT, "1"), "tag=y");
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM_AT, "2"), "q=hello world");
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM_AT, "3"), std::nullopt);
  for (std::string_view bad : {"", "-1", "1x", "x", " 1"})
    EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM_AT, bad), std::nullopt) << bad;
}

TEST(HostApiRequest, MissingPartsAreAbsentNotEmpty) {
  berth_request request(sampleRequest());
  EXPECT_EQ(part(request, BERTH_REQ_QUERY_PARAM, "nope"), std::nullopt);
  EXPECT_EQ(part(request, BERTH_REQ_PATH_PARAM, "nope"), std::nullopt);
  EXPECT_EQ(part(request, BERTH_REQ_HEADER, "x-nope"), std::nullopt);
  EXPECT_EQ(part(request, BERTH_REQ_BODY_FILE), std::nullopt);
  EXPECT_EQ(part(request, BERTH_REQ_ACCOUNT_ID), std::nullopt);
  EXPECT_EQ(part(request, BERTH_REQ_ACCOUNT_EMAIL), std::nullopt);
  EXPECT_EQ(part(request, BERTH_REQ_TOKEN_ID), std::nullopt);
  EXPECT_EQ(part(request, 999), std::nullopt);
  EXPECT_EQ(text(api.req_get(nullptr, BERTH_REQ_METHOD, str(""))), std::nullopt);

  auto bare = std::make_shared<HttpRequest>();
  berth_request empty(bare);
  EXPECT_EQ(part(empty, BERTH_REQ_QUERY), "");  // present, just empty
  EXPECT_EQ(part(empty, BERTH_REQ_BODY), "");
}

TEST(HostApiRequest, CallerAndSpooledBodyWhenPresent) {
  auto http = sampleRequest();
  http->caller = Caller{true, "acc1", "ada@example.test", "tok1"};
  http->body_file = "/var/spool/body-1";
  berth_request request(http);
  EXPECT_EQ(part(request, BERTH_REQ_ACCOUNT_ID), "acc1");
  EXPECT_EQ(part(request, BERTH_REQ_ACCOUNT_EMAIL), "ada@example.test");
  EXPECT_EQ(part(request, BERTH_REQ_TOKEN_ID), "tok1");
  EXPECT_EQ(part(request, BERTH_REQ_BODY_FILE), "/var/spool/body-1");
}

TEST(HostApiRequest, ViewsPointIntoTheRequestItHolds) {
  auto http = sampleRequest();
  berth_request request(http);
  const berth_str path = api.req_get(&request, BERTH_REQ_PATH, str(""));
  const berth_str pair = api.req_get(&request, BERTH_REQ_QUERY_PARAM_AT, str("2"));
  const berth_str header = api.req_get(&request, BERTH_REQ_HEADER, str("X-TRACE"));
  http.reset();  // the request object keeps its own reference
  EXPECT_EQ(text(path), "/files/a b");
  EXPECT_EQ(text(pair), "q=hello world");
  EXPECT_EQ(text(header), "abc");
  EXPECT_EQ(path.ptr, request.http->path.data());
}

// ---- handlers and responders ---------------------------------------------------------------

// A route function that keeps the responder to answer later, as an async plugin does.
struct Parked {
  const berth_request* request = nullptr;
  berth_responder* responder = nullptr;
  std::string method_seen;
};

void parkRequest(void* user, const berth_request* request, berth_responder* responder) {
  auto* parked = static_cast<Parked*>(user);
  parked->request = request;
  parked->responder = responder;
  parked->method_seen = *text(api.req_get(request, BERTH_REQ_METHOD, str("")));
}

berth_response bytesResponse(int status, std::string_view body) {
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_BYTES;
  response.status = status;
  response.content_type = str("text/plain");
  response.body = str(body);
  return response;
}

TEST(HostApiRespond, AnswersLaterFromAnotherThreadAndRequestLivesUntilThen) {
  Parked parked;
  Handler handler = makePluginHandler(parkRequest, &parked, "/data");
  std::promise<HttpResponse> replied;
  std::atomic<int> replies{0};
  handler(sampleRequest(), [&](HttpResponse response) {
    replies++;
    replied.set_value(std::move(response));
  });
  ASSERT_NE(parked.responder, nullptr);
  EXPECT_EQ(parked.method_seen, "POST");
  EXPECT_EQ(replies.load(), 0);

  std::thread answerer([&] {
    // The request is still readable from here: the handler's caller has long returned.
    const std::string body = *text(api.req_get(parked.request, BERTH_REQ_BODY, str("")));
    berth_response response = bytesResponse(201, body);
    api.respond(parked.responder, &response);
  });
  auto answer = replied.get_future();
  ASSERT_EQ(answer.wait_for(30s), std::future_status::ready);
  HttpResponse response = answer.get();
  answerer.join();
  EXPECT_EQ(replies.load(), 1);
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.content_type, "text/plain");
  EXPECT_EQ(response.body, R"({"name":"berth"})");
}

TEST(HostApiRespond, MissingResponseBecomes500) {
  Parked parked;
  Handler handler = makePluginHandler(parkRequest, &parked, "/data");
  HttpResponse got;
  handler(sampleRequest(), [&](HttpResponse response) { got = std::move(response); });
  api.respond(parked.responder, nullptr);
  EXPECT_EQ(got.status, 500);
}

// ---- toHttpResponse --------------------------------------------------------------------------

const HttpRequest& plainRequest() {
  static const HttpRequest request = [] {
    HttpRequest r;
    r.method = "GET";
    r.raw_path = "/app/a%2Fb";
    r.path = "/app/a/b";
    r.query = "x=1";
    r.request_id = "req-9";
    return r;
  }();
  return request;
}

TEST(ToHttpResponse, BytesKeepStatusTypeBodyAndHeaders) {
  berth_response response = bytesResponse(202, "queued");
  const berth_header headers[] = {{str("X-Job"), str("7")},
                                  {str("Cache-Control"), str("no-store")}};
  response.headers = headers;
  response.header_count = 2;
  HttpResponse http = toHttpResponse(response, plainRequest(), "/data");
  EXPECT_EQ(http.status, 202);
  EXPECT_EQ(http.content_type, "text/plain");
  EXPECT_EQ(http.body, "queued");
  EXPECT_EQ(headerValue(http, "X-Job"), "7");
  EXPECT_EQ(headerValue(http, "Cache-Control"), "no-store");
}

TEST(ToHttpResponse, ErrorWritesJsonWithExtraFields) {
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_ERROR;
  response.status = 409;
  response.body = str("name taken");
  response.error_extra_json = str(R"({"field":"name"})");
  HttpResponse http = toHttpResponse(response, plainRequest(), "/data");
  EXPECT_EQ(http.status, 409);
  auto body = nlohmann::json::parse(http.body);
  EXPECT_EQ(body["error"], "name taken");
  EXPECT_EQ(body["field"], "name");

  response.error_extra_json = str("[1,2]");  // not an object: dropped, the error still goes out
  http = toHttpResponse(response, plainRequest(), "/data");
  EXPECT_EQ(http.status, 409);
  EXPECT_EQ(nlohmann::json::parse(http.body), nlohmann::json({{"error", "name taken"}}));
}

berth_response fileResponse(std::string_view path) {
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_FILE;
  response.status = 200;
  response.content_type = str("image/png");
  response.body = str(path);
  return response;
}

TEST(ToHttpResponse, FileInsideDataDirGoesToTheEdge) {
  berth_response response = fileResponse("/data/blobs/p1/logo.png");
  HttpResponse http = toHttpResponse(response, plainRequest(), "/data/");
  EXPECT_EQ(http.status, 200);
  EXPECT_EQ(http.content_type, "image/png");
  EXPECT_EQ(headerValue(http, "X-Accel-Redirect"), "/_berth_file/blobs/p1/logo.png");
}

TEST(ToHttpResponse, FileOutsideDataDirIs500) {
  for (std::string_view path :
       {"/etc/passwd", "/data/../etc/passwd", "/data2/x", "data/x", "/data", ""}) {
    berth_response response = fileResponse(path);
    HttpResponse http = toHttpResponse(response, plainRequest(), "/data");
    EXPECT_EQ(http.status, 500) << path;
    EXPECT_EQ(headerValue(http, "X-Accel-Redirect"), "(none)") << path;
  }
  berth_response response = fileResponse("/data/x");
  EXPECT_EQ(toHttpResponse(response, plainRequest(), "").status, 500);  // no data_dir known
}

TEST(ToHttpResponse, ProxyKeepsRawPathAndQuery) {
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_PROXY;
  response.status = 200;
  response.body = str("4100");
  HttpResponse http = toHttpResponse(response, plainRequest(), "/data");
  EXPECT_EQ(headerValue(http, "X-Accel-Redirect"), "/_berth_proxy/4100/app/a%2Fb?x=1");

  for (std::string_view bad : {"", "0", "70000", "41a", "-1"}) {
    response.body = str(bad);
    EXPECT_EQ(toHttpResponse(response, plainRequest(), "/data").status, 500) << bad;
  }
}

TEST(ToHttpResponse, ProxyCachedGoesThroughTheCacheLocationOnlyWhenItCan) {
  const berth_header ttl60[] = {{str("X-Berth-Cache-Ttl"), str("60")}, {str("X-App"), str("1")}};
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_PROXY;
  response.status = 200;
  response.body = str("4100");
  response.headers = ttl60;
  response.header_count = 2;
  HttpRequest project = plainRequest();
  project.project_traffic = true;
  auto target = [&](const HttpRequest& request) {
    return headerValue(toHttpResponse(response, request, "/data"), "X-Accel-Redirect");
  };

  publishEdgeCacheTtls({});  // no loaded config has a cache location: a plain proxy
  EXPECT_EQ(target(project), "/_berth_proxy/4100/app/a%2Fb?x=1");
  publishEdgeCacheTtls({0, 60});
  HttpResponse http = toHttpResponse(response, project, "/data");
  EXPECT_EQ(headerValue(http, "X-Accel-Redirect"), "/_berth_cache/60/4100/app/a%2Fb?x=1");
  EXPECT_EQ(headerValue(http, "X-Berth-Cache-Ttl"), "(none)");  // the core's, not the client's
  EXPECT_EQ(headerValue(http, "X-App"), "1");

  HttpRequest head = project;
  head.method = "HEAD";
  EXPECT_EQ(target(head), "/_berth_cache/60/4100/app/a%2Fb?x=1");
  HttpRequest post = project;
  post.method = "POST";
  EXPECT_EQ(target(post), "/_berth_proxy/4100/app/a%2Fb?x=1");
  HttpRequest websocket = project;
  websocket.headers["upgrade"] = "websocket";
  EXPECT_EQ(target(websocket), "/_berth_proxy/4100/app/a%2Fb?x=1");
  EXPECT_EQ(target(plainRequest()), "/_berth_proxy/4100/app/a%2Fb?x=1");  // the API host

  // A ttl the loaded config has no location for, or no ttl at all: never an error.
  for (std::string_view value : {"5", "", "x", "-1", "99999999999"}) {
    const berth_header odd[] = {{str("x-berth-cache-ttl"), str(value)}};
    response.headers = odd;
    response.header_count = 1;
    HttpResponse plain = toHttpResponse(response, project, "/data");
    EXPECT_EQ(headerValue(plain, "X-Accel-Redirect"), "/_berth_proxy/4100/app/a%2Fb?x=1") << value;
    EXPECT_EQ(headerValue(plain, "x-berth-cache-ttl"), "(none)") << value;
  }
  publishEdgeCacheTtls({});
}

TEST(ToHttpResponse, FastCgiAnswersNameAScriptBelowDataDir) {
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_PROXY;
  response.status = 200;
  response.body = str("4200");
  auto answer = [&](const char* root, const char* script) {
    const berth_header headers[] = {{str("X-Berth-FastCGI-Root"), str(root)},
                                    {str("X-Berth-FastCGI-Script"), str(script)},
                                    {str("X-App"), str("1")}};
    response.headers = headers;
    response.header_count = 3;
    return toHttpResponse(response, plainRequest(), "/data");
  };
  HttpResponse http = answer("/data/runtime/releases/r 1/", "/index.php");
  EXPECT_EQ(headerValue(http, "X-Accel-Redirect"),
            "/_berth_fcgi/4200/runtime/releases/r%201/_berth_script/index.php?x=1");
  EXPECT_EQ(headerValue(http, "X-Berth-FastCGI-Root"), "(none)");  // the core's
  EXPECT_EQ(headerValue(http, "X-Berth-FastCGI-Script"), "(none)");
  EXPECT_EQ(headerValue(http, "X-App"), "1");

  EXPECT_EQ(answer("/etc", "/passwd").status, 500);                // outside data_dir
  EXPECT_EQ(answer("/data/../etc", "/passwd").status, 500);        // climbs out
  EXPECT_EQ(answer("/data", "/index.php").status, 500);            // data_dir itself
  EXPECT_EQ(answer("/data/r", "index.php").status, 500);           // not absolute
  EXPECT_EQ(answer("/data/r", "/../x.php").status, 500);           // climbs out
  EXPECT_EQ(answer("/data/r", "/a/./b.php").status, 500);          // not plain
  EXPECT_EQ(answer("/data/_berth_script", "/x.php").status, 500);  // the edge's marker
  // With a ttl the loaded config has, a GET of project traffic goes through the FastCGI cache.
  const berth_header cached_headers[] = {{str("X-Berth-Cache-Ttl"), str("60")},
                                         {str("X-Berth-FastCGI-Root"), str("/data/r")},
                                         {str("X-Berth-FastCGI-Script"), str("/index.php")}};
  response.headers = cached_headers;
  response.header_count = 3;
  HttpRequest project = plainRequest();
  project.project_traffic = true;
  publishEdgeCacheTtls({60});
  EXPECT_EQ(headerValue(toHttpResponse(response, project, "/data"), "X-Accel-Redirect"),
            "/_berth_fcgi_cache/60/4200/r/_berth_script/index.php?x=1");
  HttpRequest post = project;
  post.method = "POST";
  EXPECT_EQ(headerValue(toHttpResponse(response, post, "/data"), "X-Accel-Redirect"),
            "/_berth_fcgi/4200/r/_berth_script/index.php?x=1");
  publishEdgeCacheTtls({});
  EXPECT_EQ(headerValue(toHttpResponse(response, project, "/data"), "X-Accel-Redirect"),
            "/_berth_fcgi/4200/r/_berth_script/index.php?x=1");

  const berth_header half[] = {{str("X-Berth-FastCGI-Root"), str("/data/r")}};
  response.headers = half;
  response.header_count = 1;
  EXPECT_EQ(toHttpResponse(response, plainRequest(), "/data").status, 500);
}

TEST(ToHttpResponse, MalformedResponsesAre500) {
  berth_response response = bytesResponse(200, "x");
  response.status = 42;
  EXPECT_EQ(toHttpResponse(response, plainRequest(), "/data").status, 500);

  response = bytesResponse(200, "x");
  response.kind = 17;
  EXPECT_EQ(toHttpResponse(response, plainRequest(), "/data").status, 500);

  response = bytesResponse(200, "x");
  response.struct_size = 8;
  EXPECT_EQ(toHttpResponse(response, plainRequest(), "/data").status, 500);

  response = bytesResponse(200, "x");
  const berth_header injected[] = {{str("X-A"), str("1\r\nSet-Cookie: evil=1")}};
  response.headers = injected;
  response.header_count = 1;
  EXPECT_EQ(toHttpResponse(response, plainRequest(), "/data").status, 500);
}

// ---- registration, services and hooks --------------------------------------------------------

class HostApiPlugins : public ::testing::Test {
 protected:
  HostApiPlugins() : manager(CoreParts{&settings, nullptr, nullptr, {}}) {
    settings.data_dir = "/srv/berth";
    settings.apps_domain = "apps.example.test";
    settings.listen = ListenAddress{"127.0.0.1", 9100};
    settings.database.url = "postgresql://configured/berth";
    settings.database.tenants_url = "postgresql://tenants-admin:secret@tenants/postgres";
    settings.plugins.dir = "/usr/lib/berth";
    settings.plans = {{"free", 3}, {"unlimited", std::nullopt}};
  }

  // A plugin as loadAll would adopt it, with registration open.
  berth_host& plugin(const std::string& id) {
    PluginLibrary library;
    library.id = id;
    berth_host& host = manager.adopt(std::move(library));
    host.registering = true;
    return host;
  }

  Settings settings;
  PluginManager::Impl manager;
  Router router;
};

// Service and hook functions: user is a small script of what to answer.
struct Script {
  int32_t status = BERTH_OK;
  std::string answer;
  std::vector<std::string>* calls = nullptr;
  std::string name{};
};

int32_t scriptedService(void* user, berth_str method, berth_str request, berth_buffer* out) {
  auto* script = static_cast<Script*>(user);
  if (script->calls) script->calls->push_back(script->name + ":" + *text(method));
  api.buffer_append(out, str(script->answer + *text(request)));
  return script->status;
}

int32_t scriptedHook(void* user, berth_str event, berth_str payload, berth_buffer* out) {
  auto* script = static_cast<Script*>(user);
  if (script->calls) script->calls->push_back(script->name + ":" + *text(event) + *text(payload));
  api.buffer_append(out, str(script->answer));
  return script->status;
}

std::pair<int32_t, std::string> callService(berth_host& host, std::string_view name,
                                            std::string_view request) {
  berth_buffer* out = api.buffer_new();
  const int32_t status = api.call_service(&host, str(name), str("get"), str(request), out);
  std::string answer = *text(api.buffer_view(out));
  api.buffer_free(out);
  return {status, answer};
}

TEST_F(HostApiPlugins, ServicesAnswerRefuseAndMayBeMissing) {
  Script ok{BERTH_OK, "answer:"};
  Script refusing{BERTH_ERR, R"({"status":404,"error":"no such blob"})"};
  berth_host& storage = plugin("storage");
  ASSERT_EQ(api.offer_service(&storage, str("storage.blobs.v1"), scriptedService, &ok), BERTH_OK);
  ASSERT_EQ(api.offer_service(&storage, str("storage.fail.v1"), scriptedService, &refusing),
            BERTH_OK);
  berth_host& caller = plugin("projects");

  EXPECT_EQ(callService(caller, "storage.blobs.v1", "{}"),
            std::make_pair(int32_t{BERTH_OK}, std::string("answer:{}")));
  auto [status, answer] = callService(caller, "storage.fail.v1", "");
  EXPECT_EQ(status, BERTH_ERR);
  EXPECT_EQ(answer, R"({"status":404,"error":"no such blob"})");
  EXPECT_EQ(callService(caller, "nobody.v1", "{}"),
            std::make_pair(int32_t{BERTH_ERR_NOT_FOUND}, std::string()));
  // Without an out buffer the service still runs.
  EXPECT_EQ(api.call_service(&caller, str("storage.blobs.v1"), str("get"), str("{}"), nullptr),
            BERTH_OK);
}

TEST_F(HostApiPlugins, ServiceNameOfferedTwiceIsRefusedNamingBoth) {
  Script ok;
  berth_host& first = plugin("storage");
  berth_host& second = plugin("mirror");
  ASSERT_EQ(api.offer_service(&first, str("blobs.v1"), scriptedService, &ok), BERTH_OK);
  EXPECT_EQ(api.offer_service(&second, str("blobs.v1"), scriptedService, &ok), BERTH_ERR);
  EXPECT_THAT(second.first_refusal, HasSubstr("storage"));
  EXPECT_THAT(second.first_refusal, HasSubstr("mirror"));
  EXPECT_TRUE(first.first_refusal.empty());
}

TEST_F(HostApiPlugins, HooksRunInLoadOrderAndStopAtTheFirstRefusal) {
  std::vector<std::string> calls;
  Script a{BERTH_OK, "", &calls, "a"};
  Script b{BERTH_ERR, R"({"status":409,"error":"busy"})", &calls, "b"};
  Script c{BERTH_OK, "", &calls, "c"};
  berth_host& first = plugin("alpha");
  berth_host& second = plugin("beta");
  berth_host& third = plugin("gamma");
  ASSERT_EQ(api.add_hook(&first, str("project.deleting"), scriptedHook, &a), BERTH_OK);
  ASSERT_EQ(api.add_hook(&second, str("project.deleting"), scriptedHook, &b), BERTH_OK);
  ASSERT_EQ(api.add_hook(&third, str("project.deleting"), scriptedHook, &c), BERTH_OK);
  ASSERT_EQ(api.add_hook(&third, str("project.created"), scriptedHook, &c), BERTH_OK);

  berth_buffer* out = api.buffer_new();
  EXPECT_EQ(api.fire_hook(&first, str("project.deleting"), str("{1}"), out), BERTH_ERR);
  EXPECT_EQ(text(api.buffer_view(out)), R"({"status":409,"error":"busy"})");
  EXPECT_THAT(calls, ElementsAre("a:project.deleting{1}", "b:project.deleting{1}"));
  api.buffer_free(out);

  calls.clear();
  EXPECT_EQ(api.fire_hook(&first, str("project.created"), str("{2}"), nullptr), BERTH_OK);
  EXPECT_THAT(calls, ElementsAre("c:project.created{2}"));
  EXPECT_EQ(api.fire_hook(&first, str("nobody.listens"), str("{}"), nullptr), BERTH_OK);
}

// The core's "pg." events (<berth/pg_notify_events.hpp>): hooked on a channel it can LISTEN on,
// fired by the core alone, and told to every subscriber whatever one answers.
TEST_F(HostApiPlugins, PgEventsAreHookedOnValidChannelsAndFiredByTheCoreAlone) {
  std::vector<std::string> calls;
  Script refusing{BERTH_ERR, R"({"status":500,"error":"broken"})", &calls, "a"};
  Script ok{BERTH_OK, "", &calls, "b"};
  berth_host& first = plugin("alpha");
  berth_host& second = plugin("beta");
  ASSERT_EQ(api.add_hook(&first, str("pg.notify:berth_projects"), scriptedHook, &refusing),
            BERTH_OK);
  ASSERT_EQ(api.add_hook(&second, str("pg.notify:berth_projects"), scriptedHook, &ok), BERTH_OK);
  ASSERT_EQ(api.add_hook(&second, str("pg.notify:_x1"), scriptedHook, &ok), BERTH_OK);
  ASSERT_EQ(api.add_hook(&first, str("pg.listening"), scriptedHook, &refusing), BERTH_OK);
  ASSERT_EQ(api.add_hook(&second, str("pg.listening"), scriptedHook, &ok), BERTH_OK);
  ASSERT_EQ(api.add_hook(&second, str("pg.not_listening"), scriptedHook, &ok), BERTH_OK);
  EXPECT_THAT(manager.hooks.eventsStartingWith("pg.notify:"),
              ElementsAre("pg.notify:_x1", "pg.notify:berth_projects"));

  berth_host& third = plugin("gamma");
  EXPECT_EQ(api.add_hook(&third, str("pg.notify:Berth"), scriptedHook, &ok), BERTH_ERR);
  EXPECT_THAT(third.first_refusal, HasSubstr("lower-case identifier"));
  for (const char* bad : {"pg.notify:", "pg.notify:a;b", "pg.notify:1a"})
    EXPECT_EQ(api.add_hook(&third, str(bad), scriptedHook, &ok), BERTH_ERR) << bad;
  EXPECT_EQ(api.add_hook(&third, str("pg.listen"), scriptedHook, &ok), BERTH_ERR);
  EXPECT_EQ(api.add_hook(&third, str("pg.notify:" + std::string(64, 'a')), scriptedHook, &ok),
            BERTH_ERR);

  for (const char* event : {"pg.listening", "pg.notify:berth_projects", "pg.not_listening"}) {
    berth_buffer* out = api.buffer_new();
    EXPECT_EQ(api.fire_hook(&third, str(event), str("{}"), out), BERTH_ERR) << event;
    EXPECT_THAT(*text(api.buffer_view(out)), HasSubstr("403"));
    api.buffer_free(out);
  }
  EXPECT_TRUE(calls.empty()) << "no plugin reaches the hooks of pg. events";

  manager.hooks.tell("pg.listening", "{}");
  EXPECT_THAT(calls, ElementsAre("a:pg.listening{}", "b:pg.listening{}"))
      << "a refusal does not keep the others from hearing";
}

int32_t noInstall(void*, berth_str, berth_buffer*) {
  return BERTH_OK;
}

berth_installer installer(std::string_view slug, std::string_view name, berth_install_fn fn) {
  berth_installer i{};
  i.struct_size = sizeof(berth_installer);
  i.slug = str(slug);
  i.name = str(name);
  i.description = str("a starter");
  i.fn = fn;
  return i;
}

void collectInstaller(void* ctx, const berth_installer* installer) {
  static_cast<std::vector<std::string>*>(ctx)->push_back(*text(installer->slug) + "|" +
                                                         *text(installer->name) + "|" +
                                                         (installer->fn ? "fn" : "catalogue"));
}

TEST_F(HostApiPlugins, InstallersAreListedInRegistrationOrder) {
  berth_host& wordpress = plugin("tpl_wordpress");
  berth_host& n8n = plugin("tpl_n8n");
  berth_installer wp = installer("wordpress", "WordPress", noInstall);
  berth_installer flows = installer("n8n", "n8n", nullptr);
  ASSERT_EQ(api.add_installer(&wordpress, &wp), BERTH_OK);
  ASSERT_EQ(api.add_installer(&n8n, &flows), BERTH_OK);
  EXPECT_EQ(api.add_installer(&n8n, &wp), BERTH_ERR);  // slug taken
  EXPECT_THAT(n8n.first_refusal, HasSubstr("tpl_wordpress"));

  std::vector<std::string> seen;
  api.list_installers(&n8n, collectInstaller, &seen);
  EXPECT_THAT(seen, ElementsAre("wordpress|WordPress|fn", "n8n|n8n|catalogue"));
  std::vector<InstallerDecl> listed = manager.installers.list();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].owner, "tpl_wordpress");
  EXPECT_TRUE(listed[0].installable);
  EXPECT_FALSE(listed[1].installable);
}

berth_route route(uint32_t method, std::string_view path, uint32_t flags = 0,
                  uint64_t max_body = 0) {
  berth_route r{};
  r.struct_size = sizeof(berth_route);
  r.method = method;
  r.path = str(path);
  r.flags = flags;
  r.max_body_bytes = max_body;
  r.fn = parkRequest;
  return r;
}

TEST_F(HostApiPlugins, RoutesBecomeCoreRoutesOwnedByThePlugin) {
  manager.router = &router;
  berth_host& host = plugin("hello");
  const berth_field fields[] = {{str("name"), BERTH_FIELD_STRING, 1}};
  berth_route echo = route(BERTH_POST, "/hello/echo", BERTH_ROUTE_JSON_BODY);
  echo.fields = fields;
  echo.field_count = 1;
  ASSERT_EQ(api.add_route(&host, &echo), BERTH_OK);
  berth_route upload =
      route(BERTH_PUT, "/_files/*path",
            BERTH_ROUTE_RAW_BODY | BERTH_ROUTE_PROJECT_HOST | BERTH_ROUTE_PUBLIC, 1 << 20);
  ASSERT_EQ(api.add_route(&host, &upload), BERTH_OK);
  berth_route any = route(BERTH_ANY, "/_data/*rest", BERTH_ROUTE_PROJECT_HOST);
  ASSERT_EQ(api.add_route(&host, &any), BERTH_OK);

  ASSERT_EQ(router.routes().size(), 3u);
  const Route& json = *router.routes()[0];
  EXPECT_EQ(json.method, "POST");
  EXPECT_EQ(json.pattern, "/hello/echo");
  EXPECT_EQ(json.owner, "hello");
  EXPECT_EQ(json.body, BodyKind::Json);
  EXPECT_EQ(json.max_body_bytes, 2u * 1024 * 1024);
  EXPECT_FALSE(json.is_public);
  ASSERT_EQ(json.fields.size(), 1u);
  EXPECT_EQ(json.fields[0].name, "name");
  EXPECT_TRUE(json.fields[0].required);
  const Route& raw = *router.routes()[1];
  EXPECT_EQ(raw.body, BodyKind::Raw);
  EXPECT_EQ(raw.max_body_bytes, 1u << 20);
  EXPECT_TRUE(raw.project_host);
  EXPECT_TRUE(raw.is_public);
  EXPECT_EQ(router.routes()[2]->method, "*");
  EXPECT_TRUE(host.first_refusal.empty());
}

TEST_F(HostApiPlugins, MalformedRoutesAreRefused) {
  manager.router = &router;
  berth_host& host = plugin("hello");
  berth_route raw_without_limit = route(BERTH_PUT, "/up", BERTH_ROUTE_RAW_BODY);
  EXPECT_EQ(api.add_route(&host, &raw_without_limit), BERTH_ERR);
  EXPECT_THAT(host.first_refusal, HasSubstr("max_body_bytes"));
  berth_route any_on_api = route(BERTH_ANY, "/x");
  EXPECT_EQ(api.add_route(&host, &any_on_api), BERTH_ERR);
  berth_route both_bodies =
      route(BERTH_POST, "/x", BERTH_ROUTE_RAW_BODY | BERTH_ROUTE_JSON_BODY, 9);
  EXPECT_EQ(api.add_route(&host, &both_bodies), BERTH_ERR);
  berth_route no_fn = route(BERTH_GET, "/x");
  no_fn.fn = nullptr;
  EXPECT_EQ(api.add_route(&host, &no_fn), BERTH_ERR);
  berth_route relative = route(BERTH_GET, "x");
  EXPECT_EQ(api.add_route(&host, &relative), BERTH_ERR);
  EXPECT_EQ(api.add_route(&host, nullptr), BERTH_ERR);
  EXPECT_TRUE(router.routes().empty());
}

TEST_F(HostApiPlugins, RegistrationIsClosedOutsideRegister) {
  manager.router = &router;
  berth_host& host = plugin("late");
  host.registering = false;
  berth_route r = route(BERTH_GET, "/late");
  EXPECT_EQ(api.add_route(&host, &r), BERTH_ERR);
  Script ok;
  EXPECT_EQ(api.offer_service(&host, str("late.v1"), scriptedService, &ok), BERTH_ERR);
  EXPECT_EQ(api.add_hook(&host, str("e"), scriptedHook, &ok), BERTH_ERR);
  EXPECT_EQ(api.add_migration(&host, 1, str("init"), str("SELECT 1")), BERTH_ERR);
  EXPECT_TRUE(router.routes().empty());
  EXPECT_TRUE(host.migrations.empty());
  EXPECT_EQ(callService(host, "late.v1", "").first, BERTH_ERR_NOT_FOUND);
}

TEST_F(HostApiPlugins, MigrationsAndConfigKeysAreRecordedAndChecked) {
  berth_host& host = plugin("hello");
  EXPECT_EQ(api.add_migration(&host, 1, str("init"), str("CREATE TABLE t (x int)")), BERTH_OK);
  EXPECT_EQ(api.add_migration(&host, 1, str("again"), str("SELECT 1")), BERTH_ERR);
  EXPECT_EQ(api.add_migration(&host, 0, str("zero"), str("SELECT 1")), BERTH_ERR);
  ASSERT_EQ(host.migrations.size(), 1u);
  EXPECT_EQ(host.migrations[0].owner, "hello");
  EXPECT_EQ(host.migrations[0].version, 1);
  EXPECT_EQ(host.migrations[0].name, "init");

  berth_config_key key{};
  key.struct_size = sizeof(berth_config_key);
  key.name = str("greeting");
  key.type = BERTH_CONFIG_STRING;
  key.default_json = str(R"("hi")");
  ASSERT_EQ(api.declare_config(&host, &key), BERTH_OK);
  EXPECT_EQ(api.declare_config(&host, &key), BERTH_ERR);  // declared twice
  key.name = str("broken");
  key.default_json = str("{not json");
  EXPECT_EQ(api.declare_config(&host, &key), BERTH_ERR);
  ASSERT_EQ(host.config_keys.size(), 1u);
  EXPECT_EQ(host.config_keys[0].default_value, "hi");
}

TEST_F(HostApiPlugins, ConfigJsonIsEmptyObjectBeforeApplyConfig) {
  berth_host& host = plugin("hello");
  EXPECT_EQ(text(api.config_json(&host)), "{}");
}

TEST_F(HostApiPlugins, CoreSettingsByDottedName) {
  berth_host& host = plugin("hello");
  auto setting = [&](std::string_view key) { return text(api.core_setting(&host, str(key))); };
  EXPECT_EQ(setting("server.apps_domain"), "apps.example.test");
  EXPECT_EQ(setting("server.listen"), "127.0.0.1:9100");
  EXPECT_EQ(setting("data_dir"), "/srv/berth");
  // No plugin gets a superuser's URL, a feature plugin included: project databases are the
  // core's service core.tenant_databases.v1 (tenant_databases_service_test.cpp).
  EXPECT_EQ(setting("database.url"), std::nullopt);
  EXPECT_EQ(setting("database.tenants_url"), std::nullopt);
  EXPECT_EQ(setting("plugins.dir"), "/usr/lib/berth");
  EXPECT_EQ(setting("edge.body_dir"), "/srv/berth/edge/client_body");
  // The node proof: 32 random bytes in hex, the same for the life of the process.
  auto proof = setting("server.node_proof");
  ASSERT_TRUE(proof.has_value());
  EXPECT_EQ(proof->size(), 64u);
  EXPECT_EQ(proof->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(setting("server.node_proof"), proof);
  EXPECT_EQ(setting("database.password"), std::nullopt);
  // Nor does a template plugin, which never reaches the control plane.
  host.kind = BERTH_KIND_TEMPLATE;
  EXPECT_EQ(setting("database.url"), std::nullopt);
  EXPECT_EQ(setting("database.tenants_url"), std::nullopt);
  EXPECT_EQ(setting("data_dir"), "/srv/berth");
  // Views stay valid: asking again hands out the same storage.
  EXPECT_EQ(api.core_setting(&host, str("server.listen")).ptr,
            api.core_setting(&host, str("server.listen")).ptr);
}

TEST_F(HostApiPlugins, PlanLimitsWithoutTheDatabase) {
  berth_host& host = plugin("projects");
  EXPECT_EQ(api.plan_project_limit(&host, str("free")), 3);
  EXPECT_EQ(api.plan_project_limit(&host, str("unlimited")), -1);
  EXPECT_EQ(api.plan_project_limit(&host, str("gold")), -2);
}

void ignoreAccount(void*, const berth_account*) {}

TEST_F(HostApiPlugins, DatabaseCallsBeforeTheDatabaseIsUpFail) {
  berth_host& host = plugin("projects");
  EXPECT_EQ(api.account_get(&host, str("x"), ignoreAccount, nullptr), BERTH_ERR);
  berth_db_session* session = reinterpret_cast<berth_db_session*>(&host);  // must be reset
  EXPECT_EQ(api.db_session_open(&host, &session), BERTH_ERR);
  EXPECT_EQ(session, nullptr);
  berth_db_result* result = api.db_exec(&host, nullptr, str("SELECT 1"), nullptr, 0);
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(api.db_result_status(result), BERTH_DB_UNAVAILABLE);
  EXPECT_EQ(api.db_result_rows(result), 0);
  EXPECT_EQ(text(api.db_result_value(result, 0, 0)), std::nullopt);
  api.db_result_free(result);
}

struct JobProbe {
  std::vector<int> seen;
};

void probeJob(void* user, berth_job_ctx* ctx) {
  static_cast<JobProbe*>(user)->seen.push_back(api.job_stop_requested(ctx));
}

TEST_F(HostApiPlugins, JobsRunWithTheStopFlagTheCoreHolds) {
  berth_host& host = plugin("hello");
  JobProbe probe;
  berth_job job{};
  job.struct_size = sizeof(berth_job);
  job.name = str("tick");
  job.period_ms = 60000;
  job.run_on_start = 1;
  job.fn = probeJob;
  job.user = &probe;
  ASSERT_EQ(api.add_job(&host, &job), BERTH_OK);
  EXPECT_EQ(api.add_job(&host, &job), BERTH_ERR);  // same name twice
  job.name = str("never");
  job.period_ms = 0;
  EXPECT_EQ(api.add_job(&host, &job), BERTH_ERR);

  ASSERT_EQ(host.jobs.size(), 1u);
  const JobDecl& declared = host.jobs[0];
  EXPECT_EQ(declared.id, "hello.tick");
  EXPECT_EQ(declared.period, 60000ms);
  EXPECT_TRUE(declared.run_on_start);
  std::atomic<bool> stop{false};
  declared.run(stop);
  stop = true;
  declared.run(stop);
  EXPECT_THAT(probe.seen, ElementsAre(0, 1));
}

TEST_F(HostApiPlugins, CustomHostsAreTheUnionOverPlugins) {
  std::vector<std::vector<std::string>> updates;
  manager.parts.on_custom_hosts = [&](const std::vector<std::string>& hosts) {
    updates.push_back(hosts);
  };
  berth_host& projects = plugin("projects");
  berth_host& other = plugin("other");
  const berth_str mine[] = {str("Shop.Example.com"), str("b.example.com")};
  ASSERT_EQ(api.set_custom_hosts(&projects, mine, 2), BERTH_OK);
  const berth_str theirs[] = {str("a.example.org"), str("b.example.com")};
  ASSERT_EQ(api.set_custom_hosts(&other, theirs, 2), BERTH_OK);
  ASSERT_EQ(api.set_custom_hosts(&projects, nullptr, 0), BERTH_OK);
  const berth_str bad[] = {str("evil.com; return 200")};
  EXPECT_EQ(api.set_custom_hosts(&other, bad, 1), BERTH_ERR);

  ASSERT_EQ(updates.size(), 3u);
  EXPECT_THAT(updates[0], ElementsAre("b.example.com", "shop.example.com"));
  EXPECT_THAT(updates[1], ElementsAre("a.example.org", "b.example.com", "shop.example.com"));
  EXPECT_THAT(updates[2], ElementsAre("a.example.org", "b.example.com"));
}

TEST_F(HostApiPlugins, EdgeFileTreesAndAppRoutesAreMergedOverPluginsAndChecked) {
  std::vector<std::vector<EdgeFilesRule>> trees;
  manager.parts.on_edge_files = [&](const std::vector<EdgeFilesRule>& rules) {
    trees.push_back(rules);
  };
  std::vector<std::vector<EdgeAppRule>> apps;
  manager.parts.on_edge_apps = [&](const std::vector<EdgeAppRule>& rules) {
    apps.push_back(rules);
  };
  berth_host& storage = plugin("storage");
  berth_host& runtime = plugin("runtime");
  auto tree = [](const char* prefix, const char* root, const char* index = "") {
    return berth_edge_files_rule{sizeof(berth_edge_files_rule), str(prefix), str(root), str(index),
                                 str("")};
  };
  const berth_edge_files_rule files[] = {tree("/_files/", "/srv/berth/blobs/edge/hosts/")};
  ASSERT_EQ(api.set_edge_files(&storage, files, 1), BERTH_OK);
  // The first plugin in load order keeps a prefix both name.
  const berth_edge_files_rule sites[] = {tree("/", "/srv/berth/runtime/edge", "index.html"),
                                         tree("/_files/", "/srv/berth/other")};
  ASSERT_EQ(api.set_edge_files(&runtime, sites, 2), BERTH_OK);
  for (const auto& bad : {tree("/a/b/", "/srv/berth/x"), tree("/_files/", "/etc"),
                          tree("/_files/", "/srv/berth/x;y"), tree("/x/", "/srv/berth/x", "../i")})
    EXPECT_EQ(api.set_edge_files(&runtime, &bad, 1), BERTH_ERR) << *text(bad.prefix);
  const berth_edge_files_rule twice[] = {tree("/a/", "/srv/berth/a"), tree("/a/", "/srv/berth/b")};
  EXPECT_EQ(api.set_edge_files(&runtime, twice, 2), BERTH_ERR);
  ASSERT_EQ(trees.size(), 2u);
  EXPECT_THAT(trees[0],
              ElementsAre(EdgeFilesRule{"/_files/", "/srv/berth/blobs/edge/hosts", "", ""}));
  EXPECT_THAT(trees[1],
              ElementsAre(EdgeFilesRule{"/_files/", "/srv/berth/blobs/edge/hosts", "", ""},
                          EdgeFilesRule{"/", "/srv/berth/runtime/edge", "index.html", ""}));

  auto app = [](const char* host, uint32_t port) {
    return berth_edge_app_rule{sizeof(berth_edge_app_rule), str(host), port};
  };
  const berth_edge_app_rule running[] = {app("Shop.Example.com.", 40001),
                                         app("b.example.com", 40002)};
  ASSERT_EQ(api.set_edge_apps(&runtime, running, 2), BERTH_OK);
  for (const auto& bad :
       {app("evil.com; return 200", 40001), app("c.example.com", 80), app("c.example.com", 70000)})
    EXPECT_EQ(api.set_edge_apps(&runtime, &bad, 1), BERTH_ERR) << *text(bad.host);
  const berth_edge_app_rule again[] = {app("c.example.com", 40001), app("C.example.com", 40002)};
  EXPECT_EQ(api.set_edge_apps(&runtime, again, 2), BERTH_ERR);
  ASSERT_EQ(api.set_edge_apps(&runtime, nullptr, 0), BERTH_OK);
  ASSERT_EQ(apps.size(), 2u);
  EXPECT_THAT(apps[0], ElementsAre(EdgeAppRule{"shop.example.com", 40001},
                                   EdgeAppRule{"b.example.com", 40002}));
  EXPECT_TRUE(apps[1].empty());
}

TEST_F(HostApiPlugins, EdgeCacheRulesAreMergedOverPluginsAndChecked) {
  std::vector<std::vector<EdgeCacheRule>> updates;
  manager.parts.on_edge_cache = [&](const std::vector<EdgeCacheRule>& rules) {
    updates.push_back(rules);
  };
  berth_host& runtime = plugin("runtime");
  berth_host& other = plugin("other");
  auto rule = [](const char* host, const char* key, uint32_t ttl) {
    return berth_edge_cache_rule{sizeof(berth_edge_cache_rule), str(host), str(key), ttl};
  };
  const berth_edge_cache_rule mine[] = {rule("Shop.Example.com", "r1.0", 60),
                                        rule("blog.example.com", "r2.0", 0)};
  ASSERT_EQ(api.set_edge_cache(&runtime, mine, 2), BERTH_OK);
  // The first plugin in load order keeps a host both name.
  const berth_edge_cache_rule theirs[] = {rule("shop.example.com", "x", 5),
                                          rule("a.example.org", "y", 5)};
  ASSERT_EQ(api.set_edge_cache(&other, theirs, 2), BERTH_OK);

  // Refusals change nothing and call nothing.
  const berth_edge_cache_rule bad_key[] = {rule("c.example.com", "a;b", 5)};
  EXPECT_EQ(api.set_edge_cache(&other, bad_key, 1), BERTH_ERR);
  const berth_edge_cache_rule bad_host[] = {rule("evil.com; return 200", "k", 5)};
  EXPECT_EQ(api.set_edge_cache(&other, bad_host, 1), BERTH_ERR);
  const berth_edge_cache_rule twice[] = {rule("c.example.com", "k", 5),
                                         rule("C.example.com.", "j", 5)};
  EXPECT_EQ(api.set_edge_cache(&other, twice, 2), BERTH_ERR);
  const berth_edge_cache_rule too_long[] = {rule("c.example.com", "k", 365u * 24 * 3600 + 1)};
  EXPECT_EQ(api.set_edge_cache(&other, too_long, 1), BERTH_ERR);
  berth_edge_cache_rule small = rule("c.example.com", "k", 5);
  small.struct_size = 8;
  EXPECT_EQ(api.set_edge_cache(&other, &small, 1), BERTH_ERR);
  EXPECT_EQ(api.set_edge_cache(&other, nullptr, 1), BERTH_ERR);

  // A plugin built for a later minor, with a longer rule: read at its own stride.
  struct LongerRule {
    berth_edge_cache_rule v11;
    uint64_t later_field;
  };
  LongerRule later[] = {{rule("d.example.com", "k1", 7), 1}, {rule("e.example.com", "k2", 8), 2}};
  for (auto& entry : later) entry.v11.struct_size = sizeof(LongerRule);
  ASSERT_EQ(api.set_edge_cache(&other, &later[0].v11, 2), BERTH_OK);
  ASSERT_EQ(api.set_edge_cache(&runtime, nullptr, 0), BERTH_OK);

  ASSERT_EQ(updates.size(), 4u);
  EXPECT_THAT(updates[0], ElementsAre(EdgeCacheRule{"shop.example.com", "r1.0", 60},
                                      EdgeCacheRule{"blog.example.com", "r2.0", 0}));
  EXPECT_THAT(updates[1], ElementsAre(EdgeCacheRule{"shop.example.com", "r1.0", 60},
                                      EdgeCacheRule{"blog.example.com", "r2.0", 0},
                                      EdgeCacheRule{"a.example.org", "y", 5}));
  EXPECT_THAT(updates[2], ElementsAre(EdgeCacheRule{"shop.example.com", "r1.0", 60},
                                      EdgeCacheRule{"blog.example.com", "r2.0", 0},
                                      EdgeCacheRule{"d.example.com", "k1", 7},
                                      EdgeCacheRule{"e.example.com", "k2", 8}));
  EXPECT_THAT(updates[3], ElementsAre(EdgeCacheRule{"d.example.com", "k1", 7},
                                      EdgeCacheRule{"e.example.com", "k2", 8}));
}

TEST(HostApiBuffers, AppendAndView) {
  berth_buffer* buffer = api.buffer_new();
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(text(api.buffer_view(buffer)), "");
  api.buffer_append(buffer, str("ab"));
  api.buffer_append(buffer, str(""));
  api.buffer_append(buffer, str("c"));
  EXPECT_EQ(text(api.buffer_view(buffer)), "abc");
  api.buffer_free(buffer);
  api.buffer_free(nullptr);
}

TEST(HostApiTable, DescribesItself) {
  EXPECT_EQ(api.struct_size, sizeof(berth_host_api));
  EXPECT_EQ(api.abi_major, BERTH_ABI_MAJOR);
  EXPECT_EQ(api.abi_minor, BERTH_ABI_MINOR);
  // Every slot is filled: a plugin never calls a null pointer.
  const auto* slots = reinterpret_cast<const char*>(&api.log);
  const auto* end = reinterpret_cast<const char*>(&api) + sizeof(berth_host_api);
  for (; slots < end; slots += sizeof(void*)) {
    void* slot = nullptr;
    std::memcpy(&slot, slots, sizeof slot);
    EXPECT_NE(slot, nullptr) << "slot at offset " << (slots - reinterpret_cast<const char*>(&api));
  }
}

// ---- the control-plane database --------------------------------------------------------------

class HostApiDatabase : public HostApiPlugins {
 protected:
  HostApiDatabase()
      : pool(test::sharedCluster().createDatabase("hostapi"), 1, 30s), accounts(pool, settings) {
    settings.plan_order = {"free", "unlimited"};
    manager.parts.pool = &pool;
    manager.parts.accounts = &accounts;
    applyMigrations(pool, coreMigrations());
  }

  struct Rows {
    uint32_t status;
    std::vector<std::vector<std::optional<std::string>>> values;
    std::vector<std::string> columns;
    std::optional<std::string> error, sqlstate;
    int64_t affected;
  };

  Rows exec(berth_host& host, berth_db_session* session, std::string_view sql,
            std::vector<berth_str> params = {}) {
    berth_db_result* result = api.db_exec(&host, session, str(sql), params.data(), params.size());
    Rows rows{api.db_result_status(result),
              {},
              {},
              text(api.db_result_error(result)),
              text(api.db_result_sqlstate(result)),
              api.db_result_affected(result)};
    for (int32_t c = 0; c < api.db_result_columns(result); ++c)
      rows.columns.push_back(*text(api.db_result_column_name(result, c)));
    for (int64_t r = 0; r < api.db_result_rows(result); ++r) {
      rows.values.emplace_back();
      for (int32_t c = 0; c < api.db_result_columns(result); ++c)
        rows.values.back().push_back(text(api.db_result_value(result, r, c)));
    }
    api.db_result_free(result);
    return rows;
  }

  Pool pool;
  Accounts accounts;
};

TEST_F(HostApiDatabase, StatementsWithParametersNullsAndErrors) {
  berth_host& host = plugin("hello");
  ASSERT_EQ(exec(host, nullptr, "CREATE TABLE notes (id int PRIMARY KEY, body text)").status,
            BERTH_DB_OK);
  Rows inserted = exec(host, nullptr, "INSERT INTO notes VALUES ($1, $2), ($3, $4)",
                       {str("1"), str("it's"), str("2"), berth_str{nullptr, 0}});
  EXPECT_EQ(inserted.status, BERTH_DB_OK);
  EXPECT_EQ(inserted.affected, 2);
  EXPECT_EQ(inserted.error, std::nullopt);

  Rows rows = exec(host, nullptr, "SELECT id, body FROM notes ORDER BY id");
  EXPECT_THAT(rows.columns, ElementsAre("id", "body"));
  ASSERT_EQ(rows.values.size(), 2u);
  EXPECT_EQ(rows.values[0][1], "it's");
  EXPECT_EQ(rows.values[1][1], std::nullopt);  // SQL NULL is absent

  Rows duplicate = exec(host, nullptr, "INSERT INTO notes VALUES (1, 'again')");
  EXPECT_EQ(duplicate.status, BERTH_DB_SQL_ERROR);
  EXPECT_EQ(duplicate.sqlstate, "23505");
  EXPECT_THAT(duplicate.error.value_or(""), HasSubstr("duplicate key"));
}

TEST_F(HostApiDatabase, ClosingASessionRollsBackWhatWasLeftOpen) {
  berth_host& host = plugin("hello");
  exec(host, nullptr, "CREATE TABLE items (id int)");
  berth_db_session* session = nullptr;
  ASSERT_EQ(api.db_session_open(&host, &session), BERTH_OK);
  ASSERT_NE(session, nullptr);
  exec(host, session, "BEGIN");
  EXPECT_EQ(exec(host, session, "INSERT INTO items VALUES (1)").affected, 1);
  api.db_session_close(session);  // no COMMIT

  // The pool has one connection, so this runs on the one the session gave back.
  Rows count = exec(host, nullptr, "SELECT count(*) FROM items");
  EXPECT_EQ(count.status, BERTH_DB_OK);
  EXPECT_EQ(count.values.at(0).at(0), "0");

  // A transaction broken by an error is rolled back too, leaving the connection usable.
  ASSERT_EQ(api.db_session_open(&host, &session), BERTH_OK);
  exec(host, session, "BEGIN");
  EXPECT_EQ(exec(host, session, "SELECT * FROM missing_table").status, BERTH_DB_SQL_ERROR);
  api.db_session_close(session);
  EXPECT_EQ(exec(host, nullptr, "SELECT 1").values.at(0).at(0), "1");
}

struct SeenAccounts {
  std::vector<std::string> lines;
};

void collectAccount(void* ctx, const berth_account* account) {
  static_cast<SeenAccounts*>(ctx)->lines.push_back(
      *text(account->slug) + "|" + text(account->email).value_or("(none)") + "|" +
      *text(account->plan) + "|" + std::to_string(account->is_team) + "|" +
      std::to_string(account->role));
}

TEST_F(HostApiDatabase, AccountsAndMemberships) {
  berth_host& host = plugin("projects");
  Account ada = accounts.createAccount("ada@example.test", "free", "adalove");
  accounts.createTeam("team1", "ada@example.test", "unlimited");

  SeenAccounts seen;
  EXPECT_EQ(api.account_get(&host, str("adalove"), collectAccount, &seen), BERTH_OK);
  EXPECT_EQ(api.account_get(&host, str(ada.id), collectAccount, &seen), BERTH_OK);
  EXPECT_EQ(api.account_get(&host, str("nobody"), collectAccount, &seen), BERTH_ERR_NOT_FOUND);
  EXPECT_THAT(seen.lines, ElementsAre("adalove|ada@example.test|free|0|2",
                                      "adalove|ada@example.test|free|0|2"));

  seen.lines.clear();
  EXPECT_EQ(api.account_memberships(&host, str(ada.id), collectAccount, &seen), BERTH_OK);
  EXPECT_THAT(seen.lines,
              ElementsAre("adalove|ada@example.test|free|0|2", "team1|(none)|unlimited|1|2"));
}

}  // namespace
}  // namespace berth::core
