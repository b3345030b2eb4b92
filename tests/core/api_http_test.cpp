// ctest-label: api (starts a real berthd)
// The core over real HTTP, through its nginx edge: public routes, the three authentication
// answers, unknown routes and methods, JSON body checks, Host routing, request log lines.
#include <gtest/gtest.h>

#include <thread>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;

namespace {

// berthd hears of a change to tokens or memberships through NOTIFY, a moment after it commits;
// a GET made meanwhile may still pass. Retries while it does, for at most a second.
HttpResult afterAuthChange(const ApiClient& api, const std::string& path) {
  HttpResult r = api.get(path);
  for (int i = 0; i < 100 && r.status == 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    r = api.get(path);
  }
  return r;
}

class ApiHttp : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "hello", "edgecheck"};
    startServer(options);
    token = server->createAccountWithToken("ann@example.com");
  }
  static void TearDownTestSuite() { dropServer(); }
  static std::string token;
};
std::string ApiHttp::token;

}  // namespace

TEST_F(ApiHttp, RegionsNeedNoToken) {
  auto r = server->api().get("/regions");
  ASSERT_EQ(r.status, 200) << r.body << r.error;
  auto j = r.json();
  EXPECT_EQ(j["default"], "us-central");
  EXPECT_EQ(j["regions"].size(), 13u);
  EXPECT_EQ(r.header("content-type"), "application/json");
}

TEST_F(ApiHttp, NoBearerHeaderIsSignInFirst) {
  auto r = server->api().get("/hello/accesses");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "sign in first");
  r = server->api().get("/hello/accesses", {"Authorization: Basic YTpi"});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "sign in first");
}

TEST_F(ApiHttp, UnknownTokenIsNotValid) {
  auto r = server->api("bth_" + std::string(40, 'x')).get("/hello/accesses");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "that token is not valid, or has expired");
  r = server->api("garbage").get("/hello/accesses");
  EXPECT_EQ(errorText(r), "that token is not valid, or has expired");
}

TEST_F(ApiHttp, ValidTokenPassesAndRevokedTokenStops) {
  auto t = server->admin({"token", "create", "--email", "ann@example.com", "--name", "short"});
  ASSERT_TRUE(t.status.ok()) << t.output;
  std::string short_token = t.output.substr(0, t.output.find('\n'));
  EXPECT_EQ(server->api(short_token).get("/hello/accesses").status, 200);
  auto revoke = server->admin({"token", "revoke", "--email", "ann@example.com", "--name", "short"});
  ASSERT_TRUE(revoke.status.ok()) << revoke.output;
  auto r = afterAuthChange(server->api(short_token), "/hello/accesses");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "that token is not valid, or has expired");
}

TEST_F(ApiHttp, ExpiredTokenIsNotValid) {
  auto t = server->admin({"token", "create", "--email", "ann@example.com", "--name", "expiring",
                          "--expires-in-days", "1"});
  ASSERT_TRUE(t.status.ok()) << t.output;
  std::string expiring = t.output.substr(0, t.output.find('\n'));
  EXPECT_EQ(server->api(expiring).get("/hello/accesses").status, 200);
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(5));
  db.exec("UPDATE core.tokens SET expires_at = 1 WHERE name = 'expiring'");
  EXPECT_EQ(afterAuthChange(server->api(expiring), "/hello/accesses").status, 401);
}

TEST_F(ApiHttp, UnknownRouteAndWrongMethod) {
  auto r = server->api(token).get("/no/such/thing");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no such route");
  r = server->api(token).raw("DELETE", "/regions", "");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(errorText(r), "method not allowed");
  EXPECT_EQ(r.header("allow"), "GET");
}

TEST_F(ApiHttp, JsonBodyChecks) {
  auto api = server->api(token);
  auto r = api.raw("POST", "/hello/echo", R"({"name":"x"})", {"Content-Type: text/plain"});
  EXPECT_EQ(r.status, 415);
  EXPECT_NE(r.header("content-type").find("text/plain"), std::string::npos);
  r = api.raw("POST", "/hello/echo", R"({"name":"x"})");
  EXPECT_EQ(r.status, 415);
  r = api.raw("POST", "/hello/echo", R"({"name":)", {"Content-Type: application/json"});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "the body is not valid JSON");
  r = api.post("/hello/echo", nlohmann::json::object());
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "missing field: name");
  r = api.post("/hello/echo", {{"name", 42}});
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "field name must be a string");
  r = api.post("/hello/echo", {{"name", ""}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "name is empty");
  r = api.raw("POST", "/hello/echo", R"({"name":"ann"})",
              {"Content-Type: application/json; charset=utf-8"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json()["hello"], "ann");
}

TEST_F(ApiHttp, AsyncAnswersAndTheDatabaseThroughThePlugin) {
  auto r = server->api(token).get("/hello/later");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.json()["later"].get<bool>());
  auto first = server->api(token).post("/hello/visits", nlohmann::json::object());
  auto second = server->api(token).raw("POST", "/hello/visits", "");
  ASSERT_EQ(first.status, 200) << first.body;
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json()["visits"].get<int>(), first.json()["visits"].get<int>() + 1);
}

TEST_F(ApiHttp, HostDecidesBetweenApiAndProject) {
  auto api = server->api();
  auto r = api.get("/regions", {"Host: blog-abcd.localhost"});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.json()["host"], "blog-abcd.localhost") << "project traffic reached the API";
  EXPECT_EQ(r.json()["path"], "/regions");
  r = api.get("/regions", {"Host: api.localhost"});
  EXPECT_EQ(r.json()["regions"].size(), 13u);
  r = api.get("/regions", {"Host: localhost:8080"});
  EXPECT_EQ(r.json()["regions"].size(), 13u);
  r = api.get("/some/page?x=1", {"Host: Shop-ABCD.localhost:8080"});
  EXPECT_EQ(r.json()["host"], "shop-abcd.localhost");
  EXPECT_EQ(r.json()["path"], "/some/page");
  // Project hosts need no token: the project decides.
  EXPECT_EQ(api.raw("POST", "/x", "", {"Host: blog-abcd.localhost"}).status, 200);
}

TEST_F(ApiHttp, QueryParametersKeepOrderRepeatsAndEncoding) {
  auto r = server->api().get("/edgecheck/query?age=gte.18&age=lte.30&name=eq.a%20b%26c");
  ASSERT_EQ(r.status, 200) << r.body;
  auto params = r.json()["params"];
  ASSERT_EQ(params.size(), 3u) << r.body;
  EXPECT_EQ(params[0][1], "gte.18");
  EXPECT_EQ(params[1][1], "lte.30");
  EXPECT_EQ(params[2][1], "eq.a b&c");
  r = server->api().get("/edgecheck/query?x=1", {});
  EXPECT_EQ(r.json()["raw"], "x=1");
}

TEST_F(ApiHttp, EveryRequestGetsALogLine) {
  auto r = server->api(token).get("/hello/accesses");
  ASSERT_EQ(r.status, 200);
  std::string out = server->output();
  EXPECT_NE(out.find("GET /hello/accesses 200"), std::string::npos) << out;
  EXPECT_NE(out.find("account="), std::string::npos);
  EXPECT_NE(out.find("[req="), std::string::npos);
}

TEST_F(ApiHttp, TheEdgeAccessLogReachesPlugins) {
  for (int i = 0; i < 3; ++i) server->api().get("/regions");
  int64_t accesses = 0;
  for (int i = 0; i < 100 && accesses < 3; ++i) {
    accesses = server->api(token).get("/hello/accesses").json().value("accesses", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE(accesses, 3);
}

TEST(ApiPlugins, ADisabledPluginsRoutesAnswer404) {
  BerthdOptions options;
  options.plugins = {"projects"};
  BerthdProcess server(options);
  server.start();
  std::string token = server.createAccountWithToken("bo@example.com");
  auto r = server.api(token).get("/hello");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.json()["error"], "no such route");
  EXPECT_EQ(server.api().get("/regions").status, 200);
}
