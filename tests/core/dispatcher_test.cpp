// The HTTP layer's decisions before a handler runs: host side, route, token, body.
#include "http/dispatcher.hpp"

#include <berth/abi.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace berth::core;

namespace {

struct Fixture {
  Router router;
  HostRouting hosts{"localhost"};
  TokenCheck::Result token_result = TokenCheck::Result::Ok;
  bool sessions = false;  // accept the session cookie (useSessions)
  int handled = 0;

  Fixture() {
    Route open;
    open.method = "GET";
    open.pattern = "/regions";
    open.is_public = true;
    open.owner = "t";
    open.handler = [this](std::shared_ptr<HttpRequest>, Reply reply) {
      ++handled;
      reply(HttpResponse::json(200, "{}"));
    };
    router.add(open);
    Route create;
    create.method = "POST";
    create.pattern = "/projects";
    create.owner = "t";
    create.body = BodyKind::Json;
    create.fields = {{"name", BERTH_FIELD_STRING, true}, {"team", BERTH_FIELD_STRING, false}};
    create.handler = [this](std::shared_ptr<HttpRequest> req, Reply reply) {
      ++handled;
      reply(HttpResponse::json(201, nlohmann::json{{"by", req->caller.account_id}}.dump()));
    };
    router.add(create);
    Route files;
    files.method = "*";
    files.pattern = "/_files/*path";
    files.owner = "t";
    files.project_host = true;
    files.handler = [this](std::shared_ptr<HttpRequest> req, Reply reply) {
      ++handled;
      reply(HttpResponse::json(200, nlohmann::json{{"path", req->path_params["path"]}}.dump()));
    };
    router.add(files);
  }

  HttpResponse run(std::string method, std::string path, std::string host = "127.0.0.1",
                   std::map<std::string, std::string> headers = {}, std::string body = "") {
    Dispatcher d(router, hosts, [this](const std::string& token) {
      TokenCheck c;
      c.result = token_result;
      c.caller.account_id = "acct-" + token;
      return c;
    });
    if (sessions)
      d.useSessions(
          [](const std::string& value) {
            TokenCheck c;
            c.result = value == "ended" ? TokenCheck::Result::Invalid : TokenCheck::Result::Ok;
            c.caller.account_id = "sess-" + value;
            return c;
          },
          "http://127.0.0.1:8080");
    auto req = std::make_shared<HttpRequest>();
    req->method = method;
    req->path = req->raw_path = path;
    req->host = host;
    req->headers = std::move(headers);
    req->body = std::move(body);
    HttpResponse out;
    out.status = -1;
    d.dispatch(req, [&](HttpResponse r) { out = std::move(r); });
    return out;
  }
};

std::string errorOf(const HttpResponse& r) {
  return nlohmann::json::parse(r.body).value("error", "");
}

}  // namespace

TEST(Dispatcher, UnknownRouteIs404AndWrongMethod405) {
  Fixture f;
  auto r = f.run("GET", "/nowhere");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorOf(r), "no such route");
  r = f.run("DELETE", "/regions");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.content_type, "application/json");
}

TEST(Dispatcher, PublicRouteNeedsNoToken) {
  Fixture f;
  EXPECT_EQ(f.run("GET", "/regions").status, 200);
}

TEST(Dispatcher, TheThreeAuthenticationAnswers) {
  Fixture f;
  std::map<std::string, std::string> json = {{"content-type", "application/json"}};
  auto r = f.run("POST", "/projects", "localhost", json, R"({"name":"x"})");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorOf(r), "sign in first");
  auto with = json;
  with["authorization"] = "Basic abc";
  EXPECT_EQ(errorOf(f.run("POST", "/projects", "localhost", with, "{}")), "sign in first");
  with["authorization"] = "Bearer bth_x";
  f.token_result = TokenCheck::Result::Invalid;
  r = f.run("POST", "/projects", "localhost", with, R"({"name":"x"})");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorOf(r), "that token is not valid, or has expired");
  f.token_result = TokenCheck::Result::Unavailable;
  r = f.run("POST", "/projects", "localhost", with, R"({"name":"x"})");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(errorOf(r), "could not check your session");
  f.token_result = TokenCheck::Result::Ok;
  r = f.run("POST", "/projects", "localhost", with, R"({"name":"x"})");
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(nlohmann::json::parse(r.body)["by"], "acct-bth_x");
  EXPECT_EQ(f.handled, 1);
}

TEST(Dispatcher, JsonBodyChecks) {
  Fixture f;
  std::map<std::string, std::string> auth = {{"authorization", "Bearer t"}};
  auto r = f.run("POST", "/projects", "localhost", auth, R"({"name":"x"})");
  EXPECT_EQ(r.status, 415);
  EXPECT_NE(r.content_type.find("text/plain"), std::string::npos);
  auth["content-type"] = "text/plain";
  EXPECT_EQ(f.run("POST", "/projects", "localhost", auth, R"({"name":"x"})").status, 415);
  auth["content-type"] = "Application/JSON; charset=utf-8";
  r = f.run("POST", "/projects", "localhost", auth, R"({"name":)");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.content_type, "application/json");
  r = f.run("POST", "/projects", "localhost", auth, R"({})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "missing field: name");
  r = f.run("POST", "/projects", "localhost", auth, R"({"name": 5})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "field name must be a string");
  r = f.run("POST", "/projects", "localhost", auth, R"({"name": "a", "team": true})");
  EXPECT_EQ(r.status, 422);
  r = f.run("POST", "/projects", "localhost", auth, R"(["name"])");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(f.handled, 0);
  EXPECT_EQ(f.run("POST", "/projects", "localhost", auth, R"({"name":"a"})").status, 201);
}

TEST(Dispatcher, ProjectHostsReachProjectRoutesOnly) {
  Fixture f;
  auto r = f.run("GET", "/_files/x/y.png", "blog-abcd.localhost");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["path"], "x/y.png");
  EXPECT_EQ(f.run("GET", "/regions", "blog-abcd.localhost").status, 404);
  EXPECT_EQ(f.run("GET", "/_files/x", "api.localhost").status, 404);
  EXPECT_EQ(f.run("GET", "/regions", "api.localhost").status, 200);
}

// The edge's server block decides, not the Host a client shows: what came through the project
// block (project_listen, or an absolute URI naming a project host) never reaches management.
TEST(Dispatcher, TheEdgesProjectBlockMakesProjectTrafficWhateverTheHost) {
  Fixture f;
  std::map<std::string, std::string> project{{"x-berth-edge", "project"}};
  auto r = f.run("GET", "/regions", "localhost", project);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorOf(r), "nothing is served here");
  EXPECT_EQ(f.run("GET", "/regions", "api.localhost", project).status, 404);
  EXPECT_EQ(f.run("GET", "/_files/a", "localhost", project).status, 200);
  std::map<std::string, std::string> api{{"x-berth-edge", "api"}};
  EXPECT_EQ(f.run("GET", "/regions", "localhost", api).status, 200);
  EXPECT_EQ(f.run("GET", "/regions", "blog-abcd.localhost", api).status, 404);
}

TEST(BearerToken, ParsesTheScheme) {
  std::string h = "Bearer bth_abc";
  EXPECT_EQ(bearerToken(&h), "bth_abc");
  h = "bearer   bth_abc  ";
  EXPECT_EQ(bearerToken(&h), "bth_abc");
  h = "Token bth_abc";
  EXPECT_EQ(bearerToken(&h), "");
  EXPECT_EQ(bearerToken(nullptr), "");
}

TEST(Dispatcher, SessionCookieAuthenticatesOnlyWhenSessionsAreOn) {
  Fixture f;
  std::map<std::string, std::string> h = {{"cookie", "a=b; __Host-berth_session=s1"},
                                          {"content-type", "application/json"},
                                          {"sec-fetch-site", "same-origin"},
                                          {"x-berth-console", "1"}};
  EXPECT_EQ(f.run("POST", "/projects", "127.0.0.1", h, R"({"name":"x"})").status, 401);
  f.sessions = true;
  auto r = f.run("POST", "/projects", "127.0.0.1", h, R"({"name":"x"})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["by"], "sess-s1");
  h["cookie"] = "__Host-berth_session=ended";
  r = f.run("POST", "/projects", "127.0.0.1", h, R"({"name":"x"})");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorOf(r), "your session has ended; sign in again");
}

TEST(Dispatcher, ACookieRequestThatChangesThingsMustComeFromTheConsole) {
  Fixture f;
  f.sessions = true;
  const std::string body = R"({"name":"x"})";
  auto post = [&](std::map<std::string, std::string> extra) {
    extra["cookie"] = "__Host-berth_session=s1";
    extra["content-type"] = "application/json";
    return f.run("POST", "/projects", "127.0.0.1", extra, body);
  };
  for (const auto& refused : std::vector<std::map<std::string, std::string>>{
           {},
           {{"x-berth-console", "1"}},
           {{"sec-fetch-site", "same-origin"}},
           {{"sec-fetch-site", "same-site"}, {"x-berth-console", "1"}},
           {{"origin", "http://blog.localhost"}, {"x-berth-console", "1"}},
           {{"sec-fetch-site", "same-origin"}, {"x-berth-console", "true"}}}) {
    auto r = post(refused);
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(errorOf(r),
              "a request signed in by the session cookie must come from the console "
              "(Sec-Fetch-Site: same-origin or the API's Origin, and X-Berth-Console: 1)");
  }
  EXPECT_EQ(f.handled, 0);
  EXPECT_EQ(post({{"sec-fetch-site", "same-origin"}, {"x-berth-console", "1"}}).status, 201);
  EXPECT_EQ(post({{"origin", "http://127.0.0.1:8080"}, {"x-berth-console", "1"}}).status, 201);
}

TEST(Dispatcher, ACookieBesideAnAuthorizationHeaderIsRefused) {
  Fixture f;
  f.sessions = true;
  auto r = f.run("POST", "/projects", "127.0.0.1",
                 {{"cookie", "__Host-berth_session=s1"},
                  {"authorization", "Bearer tok"},
                  {"content-type", "application/json"},
                  {"sec-fetch-site", "same-origin"},
                  {"x-berth-console", "1"}},
                 R"({"name":"x"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorOf(r), "send either the session cookie or an Authorization header, not both");
  EXPECT_EQ(f.handled, 0);
}

TEST(Dispatcher, TheCookieIsNotReadOnProjectTraffic) {
  Fixture f;
  f.sessions = true;
  auto r = f.run("POST", "/_files/a", "blog.localhost",
                 {{"cookie", "__Host-berth_session=s1"}, {"authorization", "Bearer tok"}});
  EXPECT_EQ(r.status, 200) << r.body;  // neither refused nor signed in: the project's request
  r = f.run("POST", "/projects", "127.0.0.1",
            {{"cookie", "__Host-berth_session=s1"},
             {"content-type", "application/json"},
             {"sec-fetch-site", "same-origin"},
             {"x-berth-console", "1"},
             {"x-berth-edge", "project"}},
            R"({"name":"x"})");
  EXPECT_EQ(r.status, 404);
}
