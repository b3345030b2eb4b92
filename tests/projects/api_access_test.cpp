// ctest-label: api (starts a real berthd)
// Who reaches a project, over real HTTP: another account's project (or a team's, for someone
// outside the team) answers exactly like a missing one on every project route; team members
// read, create and change; only the owner and admins delete; and the two 401 answers.
#include <gtest/gtest.h>

#include "api_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

const std::string kMemberCannotDelete =
    "only the owner or an admin of this project's account can delete it";

struct Route {
  std::string method, path;  // {n} stands for the project's name
  json body;                 // null: no body
};

// Every route of the projects plugin that names a project. DELETE /projects/{n} comes last, so
// that a broken check cannot make the later rows pass by having removed the project.
const std::vector<Route>& projectRoutes() {
  static const std::vector<Route> routes = {
      {"GET", "/projects/{n}", nullptr},
      {"PATCH", "/projects/{n}", {{"cmd", "node stolen.js"}}},
      {"GET", "/projects/{n}/secrets", nullptr},
      {"POST", "/projects/{n}/secrets", {{"name", "API_KEY"}, {"value", "stolen"}}},
      {"DELETE", "/projects/{n}/secrets/API_KEY", nullptr},
      {"GET", "/projects/{n}/domains", nullptr},
      {"POST", "/projects/{n}/domains", {{"host", "taken-over.example.com"}}},
      {"DELETE", "/projects/{n}/domains/owned.example.com", nullptr},
      {"POST", "/projects/{n}/domains/owned.example.com/verify", nullptr},
      {"DELETE", "/projects/{n}", nullptr},
  };
  return routes;
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

HttpResult call(const ApiClient& api, const Route& route, const std::string& name) {
  std::string path = replaceAll(route.path, "{n}", name);
  if (route.method == "GET") return api.get(path);
  if (route.method == "DELETE") return api.del(path);
  if (route.method == "PATCH") return api.patch(path, route.body);
  if (route.body.is_null()) return api.raw(route.method, path, "");
  return api.post(path, route.body);
}

class ApiAccess : public ProjectsServerSuite {
 protected:
  // A project with a secret API_KEY and a domain owned.example.com, so that the routes that
  // name them would find something if the access check let the caller through.
  static void furnish(const Account& owner, const std::string& name) {
    auto r = api(owner).post("/projects/" + name + "/secrets",
                             {{"name", "API_KEY"}, {"value", "the-owners-value"}});
    ASSERT_EQ(r.status, 201) << r.body;
    r = api(owner).post("/projects/" + name + "/domains", {{"host", "owned.example.com"}});
    ASSERT_EQ(r.status, 201) << r.body;
  }

  // Every project route, for `name` (someone else's) and for `missing` (no such project):
  // both 404, the same body byte for byte but for the name, `no project called <name>`.
  static void expectLikeMissing(const Account& intruder, const std::string& name,
                                const std::string& missing) {
    for (const auto& route : projectRoutes()) {
      std::string label = route.method + " " + route.path;
      auto theirs = call(api(intruder), route, name);
      auto none = call(api(intruder), route, missing);
      EXPECT_EQ(none.status, 404) << label << ": " << none.body;
      EXPECT_EQ(errorText(none), "no project called " + missing) << label;
      EXPECT_EQ(theirs.status, 404) << label << ": " << theirs.body;
      EXPECT_EQ(theirs.body, replaceAll(none.body, missing, name)) << label;
      EXPECT_EQ(theirs.header("content-type"), none.header("content-type")) << label;
    }
  }

  // The project is as furnish() left it: nothing the intruder sent reached it.
  static void expectUntouched(const Account& owner, const std::string& name) {
    auto p = api(owner).get("/projects/" + name);
    ASSERT_EQ(p.status, 200) << p.body;
    EXPECT_EQ(p.json()["cmd"], "");
    auto secrets = api(owner).get("/projects/" + name + "/secrets").json()["secrets"];
    ASSERT_EQ(secrets.size(), 1u) << secrets.dump();
    EXPECT_EQ(secrets[0]["name"], "API_KEY");
    auto domains = api(owner).get("/projects/" + name + "/domains").json()["domains"];
    ASSERT_EQ(domains.size(), 1u) << domains.dump();
    EXPECT_EQ(domains[0]["host"], "owned.example.com");
  }
};

}  // namespace

TEST_F(ApiAccess, AnotherAccountsProjectAnswersLikeAMissingOneOnEveryRoute) {
  auto owner = makeAccount(*server, "acowner");
  auto intruder = makeAccount(*server, "acintr");
  mustCreate(api(owner), "private");
  const std::string name = "private-acowner";
  furnish(owner, name);
  expectLikeMissing(intruder, name, "nosuch-acowner");
  expectUntouched(owner, name);
  EXPECT_FALSE(contains(listedNames(api(intruder)), name));
  // The intruder's own project of the same label is theirs alone.
  EXPECT_EQ(mustCreate(api(intruder), "private")["name"], "private-acintr");
}

TEST_F(ApiAccess, ATeamProjectAnswersLikeAMissingOneOutsideTheTeam) {
  auto owner = makeAccount(*server, "tmowner");
  auto outsider = makeAccount(*server, "tmoutsid");
  makeTeam(*server, "secretco", owner.email);
  mustCreate(api(owner), "intranet", "secretco");
  const std::string name = "intranet-secretco";
  // The domain used by furnish() is on the project of the test above when both run in one
  // server, so this team project gets its own.
  auto r = api(owner).post("/projects/" + name + "/secrets",
                           {{"name", "API_KEY"}, {"value", "team-value"}});
  ASSERT_EQ(r.status, 201) << r.body;
  for (const auto& route : projectRoutes()) {
    std::string label = route.method + " " + route.path;
    auto theirs = call(api(outsider), route, name);
    auto none = call(api(outsider), route, "nosuch-secretco");
    EXPECT_EQ(theirs.status, 404) << label << ": " << theirs.body;
    EXPECT_EQ(errorText(none), "no project called nosuch-secretco") << label;
    EXPECT_EQ(theirs.body, replaceAll(none.body, "nosuch-secretco", name)) << label;
  }
  auto p = api(owner).get("/projects/" + name);
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_EQ(p.json()["cmd"], "");
  EXPECT_EQ(api(owner).get("/projects/" + name + "/secrets").json()["secrets"].size(), 1u);
  EXPECT_FALSE(contains(listedNames(api(outsider)), name));
}

TEST_F(ApiAccess, MembersReadCreateAndChangeTheTeamsProjects) {
  auto owner = makeAccount(*server, "mbowner");
  auto member = makeAccount(*server, "mbmember");
  makeTeam(*server, "makers", owner.email);
  addToTeam(*server, "makers", member.email, "member");

  auto p = mustCreate(api(member), "site", "makers");
  EXPECT_EQ(p["name"], "site-makers");
  EXPECT_EQ(p["label"], "site");
  EXPECT_EQ(p["host"], "site-makers.localhost");
  EXPECT_EQ(p["team"], "makers");
  ASSERT_TRUE(p["owner"].is_object()) << p.dump();
  EXPECT_EQ(p["owner"]["slug"], "makers");
  ASSERT_TRUE(p["owner"].contains("email")) << p.dump();
  EXPECT_TRUE(p["owner"]["email"].is_null()) << p.dump();

  // Both see it; the member also sees the owner's team project, and their own.
  mustCreate(api(owner), "docs", "makers");
  mustCreate(api(member), "mine");
  EXPECT_EQ(listedNames(api(member)),
            (std::vector<std::string>{"docs-makers", "mine-mbmember", "site-makers"}));
  EXPECT_EQ(listedNames(api(owner)), (std::vector<std::string>{"docs-makers", "site-makers"}));

  auto r = api(member).get("/projects/docs-makers");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["team"], "makers");
  r = api(member).patch("/projects/docs-makers", {{"cmd", "node docs.js"}, {"region", "eu-west"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(api(owner).get("/projects/docs-makers").json()["cmd"], "node docs.js");
  r = api(member).post("/projects/docs-makers/secrets", {{"name", "TOKEN"}, {"value", "x"}});
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(api(member).get("/projects/docs-makers/secrets").status, 200);
  r = api(member).post("/projects/docs-makers/domains", {{"host", "docs.makers.example"}});
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(api(member).get("/projects/docs-makers/domains").status, 200);

  // The team's name check answers for the team's account.
  r = api(member).get("/projects/available?name=site&team=makers");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["available"], false);
  EXPECT_EQ(r.json()["host"], r.json()["suggestion"].get<std::string>() + "-makers.localhost");
  r = api(member).get("/projects/available?name=site");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["available"], true);
  EXPECT_EQ(r.json()["host"], "site-mbmember.localhost");

  // A name clash in the team is the team's.
  r = createProject(api(owner), "site", "makers");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(errorText(r), "you already have a project called site");
}

TEST_F(ApiAccess, OnlyTheOwnerAndAdminsDeleteTeamProjects) {
  auto owner = makeAccount(*server, "dlowner");
  auto admin = makeAccount(*server, "dladmin");
  auto member = makeAccount(*server, "dlmember");
  makeTeam(*server, "deleters", owner.email);
  addToTeam(*server, "deleters", admin.email, "admin");
  addToTeam(*server, "deleters", member.email, "member");
  for (std::string label : {"first", "second"}) mustCreate(api(member), label, "deleters");

  for (std::string name : {"first-deleters", "second-deleters"}) {
    auto r = api(member).del("/projects/" + name);
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(errorText(r), kMemberCannotDelete);
    EXPECT_EQ(api(member).get("/projects/" + name).status, 200);
  }
  auto r = api(admin).del("/projects/first-deleters");
  EXPECT_EQ(r.status, 204) << r.body;
  r = api(owner).del("/projects/second-deleters");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_TRUE(listedNames(api(member)).empty());

  // A member is the owner of their own account.
  mustCreate(api(member), "personal");
  EXPECT_EQ(api(member).del("/projects/personal-dlmember").status, 204);

  // Being an admin of one team says nothing about another.
  makeTeam(*server, "elsewhere", owner.email);
  addToTeam(*server, "elsewhere", admin.email, "member");
  mustCreate(api(owner), "there", "elsewhere");
  r = api(admin).del("/projects/there-elsewhere");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kMemberCannotDelete);
}

TEST_F(ApiAccess, ATeamTheCallerIsNotInIsNoTeam) {
  auto owner = makeAccount(*server, "ntowner");
  auto outsider = makeAccount(*server, "ntoutsid");
  makeTeam(*server, "closed", owner.email);
  for (std::string team : {"closed", "ghostteam"}) {
    auto r = createProject(api(outsider), "sneaky", team);
    EXPECT_EQ(r.status, 404) << team << ": " << r.body;
    EXPECT_EQ(errorText(r), "no team called " + team);
  }
  EXPECT_TRUE(listedNames(api(owner)).empty());
  EXPECT_TRUE(listedNames(api(outsider)).empty());
  // An account that is not a team is no team either.
  auto r = createProject(api(owner), "sneaky", "ntoutsid");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no team called ntoutsid");
}

TEST_F(ApiAccess, ListsHoldEveryTeamTheCallerBelongsTo) {
  auto a = makeAccount(*server, "ltowna");
  auto b = makeAccount(*server, "ltownb");
  auto joiner = makeAccount(*server, "ltjoiner");
  makeTeam(*server, "teamone", a.email);
  makeTeam(*server, "teamtwo", b.email);
  makeTeam(*server, "teamthree", b.email);
  addToTeam(*server, "teamone", joiner.email, "member");
  addToTeam(*server, "teamtwo", joiner.email, "admin");
  mustCreate(api(a), "web", "teamone");
  mustCreate(api(b), "web", "teamtwo");
  mustCreate(api(b), "web", "teamthree");
  mustCreate(api(b), "web");
  EXPECT_EQ(listedNames(api(joiner)), (std::vector<std::string>{"web-teamone", "web-teamtwo"}));
}

TEST_F(ApiAccess, RequestsWithoutAValidTokenAre401) {
  auto a = makeAccount(*server, "tokens1");
  mustCreate(api(a), "locked");
  const std::vector<Route> routes = {
      {"GET", "/projects", nullptr},
      {"POST", "/projects", {{"name", "anon"}}},
      {"GET", "/projects/available?name=anon", nullptr},
      {"GET", "/projects/suggest", nullptr},
      {"GET", "/projects/{n}", nullptr},
      {"PATCH", "/projects/{n}", {{"cmd", "node x.js"}}},
      {"GET", "/projects/{n}/secrets", nullptr},
      {"GET", "/projects/{n}/domains", nullptr},
      {"DELETE", "/projects/{n}", nullptr},
  };
  for (const auto& route : routes) {
    std::string label = route.method + " " + route.path;
    auto r = call(server->api(), route, "locked-tokens1");
    EXPECT_EQ(r.status, 401) << label << ": " << r.body;
    EXPECT_EQ(errorText(r), "sign in first") << label;
    r = call(server->api("bth_" + std::string(40, 'Z')), route, "locked-tokens1");
    EXPECT_EQ(r.status, 401) << label << ": " << r.body;
    EXPECT_EQ(errorText(r), "that token is not valid, or has expired") << label;
  }
  auto r = server->api().get("/projects", {"Authorization: Basic YTpi"});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "sign in first");
  EXPECT_EQ(api(a).get("/projects/locked-tokens1").status, 200) << "the project is still there";
  EXPECT_EQ(server->api().get("/regions").status, 200) << "regions need no token";
}
