#include "http/router.hpp"

#include <gtest/gtest.h>

using namespace berth::core;

namespace {
Route route(std::string method, std::string pattern, std::string owner = "t",
            bool project = false) {
  Route r;
  r.method = std::move(method);
  r.pattern = std::move(pattern);
  r.owner = std::move(owner);
  r.project_host = project;
  r.handler = [](std::shared_ptr<HttpRequest>, Reply) {};
  return r;
}
}  // namespace

TEST(Router, MatchesLiteralAndParameters) {
  Router router;
  router.add(route("GET", "/projects"));
  router.add(route("GET", "/projects/:name"));
  router.add(route("GET", "/projects/available"));
  auto m = router.match("GET", "/projects/foo-abcd", false);
  ASSERT_EQ(m.kind, RouteMatch::Kind::Found);
  EXPECT_EQ(m.route->pattern, "/projects/:name");
  EXPECT_EQ(m.params.at("name"), "foo-abcd");
  // A literal segment wins over a parameter.
  m = router.match("GET", "/projects/available", false);
  ASSERT_EQ(m.kind, RouteMatch::Kind::Found);
  EXPECT_EQ(m.route->pattern, "/projects/available");
}

TEST(Router, RestParameterTakesTheRestOfThePath) {
  Router router;
  router.add(route("POST", "/projects/:name/files/*path"));
  auto m = router.match("POST", "/projects/p/files/a/b/c.txt", false);
  ASSERT_EQ(m.kind, RouteMatch::Kind::Found);
  EXPECT_EQ(m.params.at("path"), "a/b/c.txt");
  EXPECT_EQ(router.match("POST", "/projects/p/files/", false).kind, RouteMatch::Kind::NotFound);
  EXPECT_EQ(router.match("POST", "/projects/p/files", false).kind, RouteMatch::Kind::NotFound);
}

TEST(Router, WrongMethodIs405WithAllowedMethods) {
  Router router;
  router.add(route("GET", "/regions"));
  router.add(route("POST", "/regions"));
  auto m = router.match("DELETE", "/regions", false);
  EXPECT_EQ(m.kind, RouteMatch::Kind::MethodNotAllowed);
  EXPECT_EQ(m.allowed.size(), 2u);
  EXPECT_EQ(router.match("GET", "/nowhere", false).kind, RouteMatch::Kind::NotFound);
  EXPECT_EQ(router.match("GET", "/regions/", false).kind, RouteMatch::Kind::NotFound);
}

TEST(Router, HeadIsAnsweredByGet) {
  Router router;
  router.add(route("GET", "/regions"));
  EXPECT_EQ(router.match("HEAD", "/regions", false).kind, RouteMatch::Kind::Found);
}

TEST(Router, DuplicateRouteNamesBothOwners) {
  Router router;
  router.add(route("GET", "/hello", "first"));
  try {
    router.add(route("GET", "/hello", "second"));
    FAIL() << "a duplicate route was accepted";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("first"), std::string::npos) << msg;
    EXPECT_NE(msg.find("second"), std::string::npos) << msg;
  }
}

TEST(Router, ProjectHostRoutesAreSeparate) {
  Router router;
  router.add(route("*", "/_files/*path", "storage", true));
  EXPECT_EQ(router.match("GET", "/_files/a.txt", false).kind, RouteMatch::Kind::NotFound);
  auto m = router.match("GET", "/_files/a.txt", true);
  ASSERT_EQ(m.kind, RouteMatch::Kind::Found);
  EXPECT_EQ(m.params.at("path"), "a.txt");
}

TEST(Router, MalformedPatternsAreRefused) {
  Router router;
  EXPECT_THROW(router.add(route("GET", "nope")), std::runtime_error);
  EXPECT_THROW(router.add(route("GET", "/a/*rest/b")), std::runtime_error);
  EXPECT_THROW(router.add(route("GET", "/a/:")), std::runtime_error);
}
