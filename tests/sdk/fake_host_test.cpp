// SPDX-License-Identifier: MIT
// The SDK's C++ layer, driven through the fake host: the hello example end to end, then the
// SDK's own rules (error mapping, async and unanswered requests, services, hooks, the
// database wrapper) through a probe plugin written for the purpose.
#include <gtest/gtest.h>
#include <berth/testing/fake_host.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "hello_plugin.hpp"

namespace {

using berth::testing::FakeDbAnswer;
using berth::testing::FakeDbCall;
using berth::testing::FakeHost;
using berth::testing::FakeRequest;
using berth::testing::FakeResponse;
using nlohmann::json;

// ---- the hello example ------------------------------------------------------------------------

class HelloTest : public ::testing::Test {
 protected:
  void SetUp() override { host.load<berth::examples::HelloPlugin>(); }
  FakeHost host;
};

TEST_F(HelloTest, DeclaresWhatTheReadmeSays) {
  std::vector<std::string> routes;
  for (const auto& route : host.routes())
    routes.push_back(std::string(berth::Registrar::methodName(route.method)) + " " + route.path);
  EXPECT_EQ(routes, (std::vector<std::string>{"GET /hello", "POST /hello/echo", "GET /hello/later",
                                              "POST /hello/visits", "GET /hello/accesses"}));
  EXPECT_EQ(host.routes()[0].flags, static_cast<uint32_t>(BERTH_ROUTE_PUBLIC));
  EXPECT_EQ(host.routes()[1].flags, static_cast<uint32_t>(BERTH_ROUTE_JSON_BODY));
  ASSERT_EQ(host.routes()[1].fields.size(), 1u);
  EXPECT_EQ(host.routes()[1].fields[0].name, "name");

  ASSERT_EQ(host.configKeys().size(), 1u);
  EXPECT_EQ(host.configKeys()[0].name, "greeting");
  EXPECT_EQ(host.configKeys()[0].type, static_cast<uint32_t>(BERTH_CONFIG_STRING));
  EXPECT_EQ(host.configKeys()[0].defaultValue, "hello");

  ASSERT_EQ(host.migrations().size(), 1u);
  EXPECT_EQ(host.migrations()[0].version, 1u);
  EXPECT_EQ(host.migrations()[0].name, "create_visits");
  EXPECT_NE(host.migrations()[0].sql.find("hello.visits"), std::string::npos);

  ASSERT_EQ(host.jobs().size(), 1u);
  EXPECT_EQ(host.jobs()[0].name, "tick");
  EXPECT_EQ(host.jobs()[0].periodMs, 1000u);
  EXPECT_EQ(host.hookEvents(), std::vector<std::string>{"edge.access"});
}

TEST_F(HelloTest, GreetsWithTheDefaultAndTheRequestId) {
  host.start();
  FakeRequest request;
  request.target = "/hello";
  request.caller = std::nullopt;  // a public route needs no token
  FakeResponse answer = host.call(request);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.contentType, "application/json");
  EXPECT_EQ(answer.json()["greeting"], "hello");
  EXPECT_EQ(answer.json()["request"].get<std::string>().rfind("req-", 0), 0u);
}

TEST_F(HelloTest, GreetsWithTheConfiguredGreeting) {
  host.start({{"greeting", "ahoy"}});
  EXPECT_EQ(host.call("GET", "/hello").json()["greeting"], "ahoy");
  EXPECT_TRUE(host.logged("hello says ahoy"));
}

TEST_F(HelloTest, UnknownConfigKeyStopsStart) {
  EXPECT_THROW(host.start({{"greting", "typo"}}), std::runtime_error);
}

TEST_F(HelloTest, EchoesAName) {
  host.start();
  FakeResponse answer = host.call("POST", "/hello/echo", R"({"name":"Ada"})");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.json(), (json{{"hello", "Ada"}}));
}

TEST_F(HelloTest, EchoRefusalsFollowTheRouteDeclaration) {
  host.start();
  EXPECT_EQ(host.call("POST", "/hello/echo", R"({})").status, 422);
  EXPECT_EQ(host.call("POST", "/hello/echo", R"({"name":7})").status, 422);
  FakeResponse not_json = host.call("POST", "/hello/echo", "{name");
  EXPECT_EQ(not_json.status, 400);
  EXPECT_EQ(not_json.json()["error"], "the body is not valid JSON");
  EXPECT_EQ(host.call("POST", "/hello/echo", R"({"name":"Ada"})", {{"Content-Type", "text/plain"}})
                .status,
            415);
}

TEST_F(HelloTest, EchoOfAnEmptyNameIsABadRequestFromTheHandler) {
  host.start();
  FakeResponse answer = host.call("POST", "/hello/echo", R"({"name":""})");
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.kind, static_cast<uint32_t>(BERTH_RESPONSE_ERROR));
  EXPECT_EQ(answer.json(), (json{{"error", "name is empty"}}));
}

TEST_F(HelloTest, RoutesThatNeedATokenRefuseAnonymousCallers) {
  host.start();
  FakeRequest request;
  request.method = "POST";
  request.target = "/hello/echo";
  request.body = R"({"name":"Ada"})";
  request.caller = std::nullopt;
  EXPECT_EQ(host.call(request).status, 401);
}

TEST_F(HelloTest, UnknownPathsAndMethods) {
  host.start();
  EXPECT_EQ(host.call("GET", "/nope").status, 404);
  EXPECT_EQ(host.call("DELETE", "/hello").status, 405);
}

TEST_F(HelloTest, AnswersLaterFromAnotherThread) {
  host.start({{"greeting", "later"}});
  FakeResponse answer = host.call("GET", "/hello/later");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.json()["greeting"], "later");
  EXPECT_EQ(answer.json()["later"], true);
  EXPECT_FALSE(answer.json()["request"].get<std::string>().empty());
}

TEST_F(HelloTest, CountsVisitsInATransaction) {
  host.start();
  host.onDb([](const FakeDbCall& call) {
    if (call.sql.rfind("insert", 0) == 0) return FakeDbAnswer::ok(1);
    return FakeDbAnswer::table({"count"}, {{"3"}});
  });
  FakeResponse answer = host.call("POST", "/hello/visits");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.json(), (json{{"visits", 3}}));

  std::vector<FakeDbCall> calls = host.dbCalls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].sql, "BEGIN");
  EXPECT_TRUE(calls[1].inSession);
  ASSERT_EQ(calls[1].params.size(), 1u);
  EXPECT_TRUE(calls[1].params[0].has_value());
  EXPECT_EQ(calls[3].sql, "COMMIT");
  EXPECT_EQ(host.openDbResults(), 0);
  EXPECT_EQ(host.openDbSessions(), 0);
}

TEST_F(HelloTest, VisitsWithoutADatabaseAnswer503) {
  host.start();
  FakeResponse answer = host.call("POST", "/hello/visits");
  EXPECT_EQ(answer.status, 503);
  EXPECT_EQ(answer.json()["error"], "could not reach the database");
}

TEST_F(HelloTest, ARefusedStatementIsLoggedAndAnsweredAsInternalError) {
  host.start();
  host.onDb([](const FakeDbCall&) {
    return FakeDbAnswer::sqlError("relation \"hello.visits\" does not exist", "42P01");
  });
  FakeResponse answer = host.call("POST", "/hello/visits");
  EXPECT_EQ(answer.status, 500);
  EXPECT_EQ(answer.json()["error"], "internal error");  // SQL text is not for the caller
  EXPECT_TRUE(host.logged("SQLSTATE 42P01"));
  std::vector<FakeDbCall> calls = host.dbCalls();
  EXPECT_EQ(calls.back().sql, "ROLLBACK");
  EXPECT_EQ(host.openDbSessions(), 0);
}

TEST_F(HelloTest, CountsAccessEventsFromTheHook) {
  host.start();
  for (int i = 0; i < 3; ++i) host.fireHook("edge.access", {{"host", "x"}});
  EXPECT_EQ(host.call("GET", "/hello/accesses").json()["accesses"], 3);
}

TEST_F(HelloTest, TheTickJobLogs) {
  host.start();
  host.runJob("tick");
  host.runJob("tick");
  EXPECT_TRUE(host.logged("tick 2"));
}

// ---- the SDK's rules, through a probe plugin ---------------------------------------------------

// Handlers may take their arguments by reference too.
void answerWithPath(const berth::Request& req, berth::Responder& resp) {
  resp.json(200, {{"path", req.path()}});
}

class ProbePlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configBool("enabled", true, "a flag");
    r.configInt("max_rows", 50, "rows", berth::IntRange{1, 200});
    r.configStringList("regions", {"us-central"}, "regions");
    r.configIntMap("plans", {{"free", 3}, {"pro", std::nullopt}}, "project limits");

    r.get("/by-reference", answerWithPath);
    r.get("/silent", [](berth::Request, berth::Responder) {});
    r.get("/boom", [](berth::Request, berth::Responder) { throw std::runtime_error("kaboom"); });
    r.get("/refuse", [](berth::Request, berth::Responder) {
      throw berth::Error::tooManyRequests("slow down", {{"suggestion", "wait"}})
          .withHeader("Retry-After", "5");
    });
    r.get("/twice", [](berth::Request, berth::Responder resp) {
      resp.json(200, {{"first", true}});
      resp.json(201, {{"first", false}});
      EXPECT_TRUE(resp.answered());
    });
    r.get("/answer-then-throw", [](berth::Request, berth::Responder resp) {
      resp.noContent();
      throw berth::Error::conflict("too late");
    });
    r.get("/files/:owner/*rest", [](berth::Request req, berth::Responder resp) {
      resp.json(200, {{"owner", req.param("owner")}, {"rest", req.param("rest")}});
    });
    r.get("/missing-param", [](berth::Request req, berth::Responder resp) {
      resp.json(200, {{"x", req.param("x")}});
    });
    r.get("/query", [](berth::Request req, berth::Responder resp) {
      json pairs = json::array();
      for (const auto& [name, value] : req.queryParams()) pairs.push_back({name, value});
      resp.json(200, {{"pairs", pairs},
                      {"a", req.queryParam("a").value_or("-")},
                      {"none", req.queryParam("none").has_value()},
                      {"raw", req.query()},
                      {"header", req.header("x-probe").value_or("-")}});
    });
    r.get("/whoami",
          [](berth::Request req, berth::Responder resp) {
            berth::Caller caller = req.caller();
            resp.json(200, {{"signedIn", caller.authenticated()},
                            {"account", caller.accountId},
                            {"email", caller.email}});
          },
          {.publicRoute = true});
    r.get("/bytes", [](berth::Request, berth::Responder resp) {
      resp.bytes(200, "text/plain", "plain text", {{"X-Probe", "1"}});
    });
    r.get("/file", [](berth::Request, berth::Responder resp) {
      resp.file("/var/lib/berth/x.txt", "text/plain");
    });
    r.get("/proxy", [](berth::Request, berth::Responder resp) { resp.proxy(41234); });
    r.get("/call/:service", [this](berth::Request req, berth::Responder resp) {
      resp.json(200, services().call(req.param("service"), "double", {{"n", 21}}));
    });
    r.get("/try/:service", [this](berth::Request req, berth::Responder resp) {
      resp.json(200, {{"found", services().tryCall(req.param("service"), "x", {}).has_value()}});
    });
    r.post("/fire", [this](berth::Request req, berth::Responder resp) {
      services().fire("project.deleting", req.json());
      resp.noContent();
    });
    r.post("/raw",
           [](berth::Request req, berth::Responder resp) {
             resp.json(200, {{"bytes", req.body().size()}, {"file", req.bodyFile().value_or("")}});
           },
           {.rawBody = true, .maxBodyBytes = 8});

    r.service("probe.v1", berth::ServiceMethods{
                              {"double",
                               [](const json& request) {
                                 return json{{"n", request.at("n").get<int>() * 2}};
                               }},
                              {"refuse",
                               [](const json&) -> json {
                                 throw berth::Error::forbidden("not yours", {{"who", "probe"}});
                               }},
                          });
    r.hook("project.deleting", [](const json& payload) {
      if (payload.value("name", "") == "keep") throw berth::Error::conflict("keep is protected");
    });
  }

  void start(berth::Services& services) override {
    maxRows = services.config().at("max_rows").get<int>();
    services.setCustomHosts({"www.example.com"});
  }

  void stop() override { stopped = true; }

  int maxRows = 0;
  bool stopped = false;
};

class ProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    probe = &host.load<ProbePlugin>();
    host.start({{"max_rows", 100}});
  }
  FakeHost host;
  ProbePlugin* probe = nullptr;
};

TEST_F(ProbeTest, ConfigKeysCarryTheirTypesDefaultsAndRanges) {
  const auto& keys = host.configKeys();
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys[0].defaultValue, true);
  EXPECT_GT(keys[0].min, keys[0].max);  // unbounded
  EXPECT_EQ(keys[1].type, static_cast<uint32_t>(BERTH_CONFIG_INT));
  EXPECT_EQ(keys[1].min, 1);
  EXPECT_EQ(keys[1].max, 200);
  EXPECT_EQ(keys[2].defaultValue, json::array({"us-central"}));
  EXPECT_EQ(keys[3].defaultValue, (json{{"free", 3}, {"pro", nullptr}}));
  EXPECT_EQ(probe->maxRows, 100);
  EXPECT_EQ(host.customHosts(), std::vector<std::string>{"www.example.com"});
}

TEST_F(ProbeTest, AHandlerMayTakeItsArgumentsByReference) {
  EXPECT_EQ(host.call("GET", "/by-reference").json(), (json{{"path", "/by-reference"}}));
}

TEST_F(ProbeTest, AHandlerThatNeverAnswersGets500AndALogLine) {
  FakeResponse answer = host.call("GET", "/silent");
  EXPECT_EQ(answer.status, 500);
  EXPECT_EQ(answer.json()["error"], "the handler did not answer");
  EXPECT_TRUE(host.logged("the handler did not answer"));
}

TEST_F(ProbeTest, AnUnexpectedExceptionIsLoggedAndAnswered500) {
  FakeResponse answer = host.call("GET", "/boom");
  EXPECT_EQ(answer.status, 500);
  EXPECT_EQ(answer.json()["error"], "internal error");
  EXPECT_TRUE(host.logged("GET /boom failed: kaboom"));
}

TEST_F(ProbeTest, AnErrorBecomesItsStatusExtraFieldsAndHeaders) {
  FakeResponse answer = host.call("GET", "/refuse");
  EXPECT_EQ(answer.status, 429);
  EXPECT_EQ(answer.json(), (json{{"error", "slow down"}, {"suggestion", "wait"}}));
  EXPECT_EQ(answer.header("retry-after"), "5");
}

TEST_F(ProbeTest, TheFirstAnswerWins) {
  FakeResponse answer = host.call("GET", "/twice");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.json()["first"], true);
  EXPECT_EQ(host.call("GET", "/answer-then-throw").status, 204);
  EXPECT_EQ(host.doubleAnswers(), 0);
}

TEST_F(ProbeTest, PathParametersIncludingTheRest) {
  FakeResponse answer = host.call("GET", "/files/ada/docs/a%20b.txt");
  EXPECT_EQ(answer.json(), (json{{"owner", "ada"}, {"rest", "docs/a b.txt"}}));
  EXPECT_EQ(host.call("GET", "/missing-param").status, 500);
}

TEST_F(ProbeTest, QueryParametersInOrderAndHeaders) {
  FakeResponse answer = host.call("GET", "/query?a=1&b=x%20y&a=2", "", {{"X-Probe", "hi"}});
  EXPECT_EQ(answer.json()["pairs"], json::array({json::array({"a", "1"}), json::array({"b", "x y"}),
                                                 json::array({"a", "2"})}));
  EXPECT_EQ(answer.json()["a"], "1");
  EXPECT_EQ(answer.json()["none"], false);
  EXPECT_EQ(answer.json()["raw"], "a=1&b=x%20y&a=2");
  EXPECT_EQ(answer.json()["header"], "hi");
}

TEST_F(ProbeTest, TheCallerIsEmptyOnAPublicRouteWithoutAToken) {
  EXPECT_EQ(host.call("GET", "/whoami").json(),
            (json{{"signedIn", true}, {"account", "acc_test"}, {"email", "test@example.com"}}));
  FakeRequest anonymous;
  anonymous.target = "/whoami";
  anonymous.caller = std::nullopt;
  EXPECT_EQ(host.call(anonymous).json()["signedIn"], false);
}

TEST_F(ProbeTest, BytesFilesAndProxies) {
  FakeResponse bytes = host.call("GET", "/bytes");
  EXPECT_EQ(bytes.body, "plain text");
  EXPECT_EQ(bytes.contentType, "text/plain");
  EXPECT_EQ(bytes.header("X-Probe"), "1");
  FakeResponse file = host.call("GET", "/file");
  EXPECT_EQ(file.kind, static_cast<uint32_t>(BERTH_RESPONSE_FILE));
  EXPECT_EQ(file.body, "/var/lib/berth/x.txt");
  FakeResponse proxy = host.call("GET", "/proxy");
  EXPECT_EQ(proxy.kind, static_cast<uint32_t>(BERTH_RESPONSE_PROXY));
  EXPECT_EQ(proxy.body, "41234");
}

TEST_F(ProbeTest, RawBodiesHaveALimitAndMayComeAsAFile) {
  EXPECT_EQ(host.call("POST", "/raw", "12345", {{"Content-Type", "text/plain"}}).json()["bytes"],
            5);
  EXPECT_EQ(host.call("POST", "/raw", "123456789", {{"Content-Type", "text/plain"}}).status, 413);
  FakeRequest spooled;
  spooled.method = "POST";
  spooled.target = "/raw";
  spooled.bodyFile = "/tmp/spooled";
  EXPECT_EQ(host.call(spooled).json()["file"], "/tmp/spooled");
}

TEST_F(ProbeTest, OwnServiceByMethodTable) {
  EXPECT_EQ(host.callService("probe.v1", "double", {{"n", 4}}), (json{{"n", 8}}));
  try {
    host.callService("probe.v1", "refuse", {});
    FAIL() << "expected a refusal";
  } catch (const berth::Error& error) {
    EXPECT_EQ(error.status(), 403);
    EXPECT_EQ(error.message(), "not yours");
    EXPECT_EQ(error.extra(), (json{{"who", "probe"}}));
  }
  try {
    host.callService("probe.v1", "nosuchmethod", {});
    FAIL() << "expected a refusal";
  } catch (const berth::Error& error) {
    EXPECT_EQ(error.status(), 404);
  }
}

TEST_F(ProbeTest, CallsAFakedServiceAndPassesItsRefusalOn) {
  host.fakeService("other.v1", [](std::string_view method, const json& request) -> json {
    if (method != "double") throw berth::Error::notFound("no such method");
    if (request.at("n") == 21) return {{"n", 42}};
    throw berth::Error::badRequest("bad n");
  });
  EXPECT_EQ(host.call("GET", "/call/other.v1").json(), (json{{"n", 42}}));
  // The service exists, so its refusal of method "x" is an error, not "not found".
  FakeResponse unknown_method = host.call("GET", "/try/other.v1");
  EXPECT_EQ(unknown_method.status, 404);
  EXPECT_EQ(unknown_method.json()["error"], "no such method");
  host.fakeService("strict.v1", [](std::string_view, const json&) -> json {
    throw berth::Error::badRequest("bad n");
  });
  FakeResponse refused = host.call("GET", "/call/strict.v1");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.json()["error"], "bad n");
}

TEST_F(ProbeTest, AMissingServiceIsAnErrorForCallAndNulloptForTryCall) {
  EXPECT_EQ(host.call("GET", "/try/nosuch.v1").json()["found"], false);
  FakeResponse answer = host.call("GET", "/call/nosuch.v1");
  EXPECT_EQ(answer.status, 500);
  EXPECT_EQ(answer.json()["error"], "service nosuch.v1 is not available");
}

TEST_F(ProbeTest, HooksMayRefuseAndTheRefusalReachesTheFiringPlugin) {
  EXPECT_EQ(host.call("POST", "/fire", R"({"name":"blog"})").status, 204);
  FakeResponse refused = host.call("POST", "/fire", R"({"name":"keep"})");
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.json()["error"], "keep is protected");
  ASSERT_EQ(host.firedEvents().size(), 2u);
  EXPECT_EQ(host.firedEvents()[1].second, (json{{"name", "keep"}}));

  host.fakeHook("project.deleting",
                [](const json&) { throw berth::Error::forbidden("another plugin says no"); });
  EXPECT_EQ(host.call("POST", "/fire", R"({"name":"blog"})").status, 403);
}

TEST_F(ProbeTest, StopIsCalled) {
  host.stop();
  EXPECT_TRUE(probe->stopped);
}

// ---- services of the core ---------------------------------------------------------------------

TEST(ServicesTest, AccountsMembershipsAndPlans) {
  FakeHost host;
  berth::Account ada{"acc_1", "ada", "ada@example.com", "free", false, berth::Role::Owner, 10};
  berth::Account team{"acc_2", "team", "", "pro", true, berth::Role::Admin, 20};
  host.addAccount(ada);
  host.addAccount(team);
  host.addMembership("acc_1", team);
  host.setPlanLimit("free", 3);
  host.setPlanLimit("pro", std::nullopt);
  host.setCoreSetting("server.apps_domain", "apps.test");
  berth::Services services = host.services();

  ASSERT_TRUE(services.account("ada").has_value());
  EXPECT_EQ(services.account("ada")->email, "ada@example.com");
  EXPECT_TRUE(services.account("acc_2")->isTeam);
  EXPECT_FALSE(services.account("nobody").has_value());

  std::vector<berth::Account> memberships = services.memberships("acc_1");
  ASSERT_EQ(memberships.size(), 2u);
  EXPECT_EQ(memberships[0].role, berth::Role::Owner);
  EXPECT_EQ(memberships[1].slug, "team");
  EXPECT_EQ(memberships[1].role, berth::Role::Admin);
  EXPECT_TRUE(memberships[1].canManage());

  EXPECT_EQ(services.planProjectLimit("free"), 3);
  EXPECT_EQ(services.planProjectLimit("pro"), std::nullopt);
  EXPECT_THROW(services.planProjectLimit("gold"), berth::Error);

  EXPECT_EQ(services.coreSetting("server.apps_domain"), "apps.test");
  EXPECT_EQ(services.coreSetting("nope"), std::nullopt);
}

TEST(DbTest, ParametersTravelAsTextAndNullStaysNull) {
  FakeHost host;
  host.onDb([](const FakeDbCall&) { return FakeDbAnswer::ok(1); });
  std::optional<std::string> none;
  host.services().db().exec("insert", "text", std::string("s"), std::string_view("v"), 42,
                            int64_t{-7}, true, false, 2.5, nullptr, none, std::optional<int>(5),
                            json{{"a", 1}});
  std::vector<FakeDbCall> calls = host.dbCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].inSession);
  std::vector<std::optional<std::string>> expected{
      "text",  "s",   "v",          "42",         "-7", "true",
      "false", "2.5", std::nullopt, std::nullopt, "5",  R"({"a":1})"};
  EXPECT_EQ(calls[0].params, expected);
}

TEST(DbTest, ResultsConvertAndRefuseWhatDoesNotFit) {
  FakeHost host;
  host.onDb([](const FakeDbCall&) {
    return FakeDbAnswer::table({"name", "n", "ok", "x", "nothing", "doc"},
                               {{"ada", "42", "t", "2.5", std::nullopt, R"({"a":1})"}});
  });
  berth::DbResult result = host.services().db().exec("select");
  EXPECT_EQ(result.rows(), 1);
  EXPECT_EQ(result.columns(), 6);
  EXPECT_EQ(result.columnName(1), "n");
  EXPECT_EQ(result.get<std::string>(0, "name"), "ada");
  EXPECT_EQ(result.get<int64_t>(0, 1), 42);
  EXPECT_EQ(result.get<int>(0, "n"), 42);
  EXPECT_TRUE(result.get<bool>(0, "ok"));
  EXPECT_DOUBLE_EQ(result.get<double>(0, "x"), 2.5);
  EXPECT_EQ(result.get<std::optional<std::string>>(0, "nothing"), std::nullopt);
  EXPECT_EQ(result.get<std::optional<int64_t>>(0, "n"), 42);
  EXPECT_TRUE(result.isNull(0, 4));
  EXPECT_EQ(result.get<json>(0, "doc"), (json{{"a", 1}}));
  EXPECT_THROW(result.get<std::string>(0, "nothing"), berth::Error);
  EXPECT_THROW(result.get<int64_t>(0, "name"), berth::Error);
  EXPECT_THROW(result.get<bool>(0, "n"), berth::Error);
  EXPECT_THROW(result.value(1, 0), berth::Error);
  EXPECT_THROW(result.column("nosuch"), berth::Error);
  EXPECT_EQ(host.openDbResults(), 1);
  { berth::DbResult moved = std::move(result); }
  EXPECT_EQ(host.openDbResults(), 0);
}

TEST(DbTest, SqlErrorsCarryTheirSqlstate) {
  FakeHost host;
  host.onDb([](const FakeDbCall&) {
    return FakeDbAnswer::sqlError("duplicate key value violates unique constraint", "23505");
  });
  try {
    host.services().db().exec("insert");
    FAIL() << "expected a DbError";
  } catch (const berth::DbError& error) {
    EXPECT_TRUE(error.isUniqueViolation());
    EXPECT_EQ(error.sqlstate(), "23505");
    EXPECT_EQ(error.status(), 500);
  }
  EXPECT_EQ(host.openDbResults(), 0);
}

TEST(DbTest, ATransactionRollsBackWhenItsWorkThrows) {
  FakeHost host;
  host.onDb([](const FakeDbCall&) { return FakeDbAnswer::ok(1); });
  EXPECT_THROW(host.services().db().transaction([](berth::Transaction& tx) {
    tx.exec("insert one");
    throw berth::Error::conflict("changed my mind");
  }),
               berth::Error);
  std::vector<FakeDbCall> calls = host.dbCalls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].sql, "BEGIN");
  EXPECT_EQ(calls[2].sql, "ROLLBACK");
  EXPECT_EQ(host.openDbSessions(), 0);
}

TEST(DbTest, WithoutADatabaseEverythingIs503) {
  FakeHost host;
  try {
    host.services().db().begin();
    FAIL() << "expected an Error";
  } catch (const berth::Error& error) {
    EXPECT_EQ(error.status(), 503);
  }
}

// ---- registration and start failures ----------------------------------------------------------

class ThrowsInRegister final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar&) override { throw berth::Error("no registration today"); }
};

class DeclaresARouteTwice final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.get("/a", [](berth::Request, berth::Responder resp) { resp.noContent(); });
    r.get("/a", [](berth::Request, berth::Responder resp) { resp.noContent(); });
  }
};

class ThrowsOnStart final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar&) override {}
  void start(berth::Services&) override { throw berth::Error("cannot start: testing"); }
};

template <class P>
std::string loadError() {
  FakeHost host;
  try {
    host.load<P>();
    host.start();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(LifecycleTest, FailuresReachTheHostWithTheirMessage) {
  EXPECT_NE(loadError<ThrowsInRegister>().find("no registration today"), std::string::npos);
  EXPECT_NE(loadError<DeclaresARouteTwice>().find("GET /a is declared twice"), std::string::npos);
  EXPECT_NE(loadError<ThrowsOnStart>().find("cannot start: testing"), std::string::npos);
}

}  // namespace
