// ctest-label: api (starts a real berthd)
// The core's account routes over real HTTP: /me, tokens made, listed, used and revoked, and
// the team routes as an owner, an admin, a member and a stranger.
#include <gtest/gtest.h>

#include "auth/accounts.hpp"
#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;

namespace {

class ApiAccounts : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "hello"};
    startServer(options);
    owner = server->createAccountWithToken("owner@example.com", "hobby");
    admin = server->createAccountWithToken("admin@example.com");
    member = server->createAccountWithToken("member@example.com");
    stranger = server->createAccountWithToken("stranger@example.com");
    server->createAccountWithToken("newbie@example.com");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"team", "create", "--slug", "crew1", "--owner", "owner@example.com", "--plan", "pro"},
             {"team", "add", "--team", "crew1", "--email", "admin@example.com", "--role", "admin"},
             {"team", "add", "--team", "crew1", "--email", "member@example.com", "--role",
              "member"}}) {
      auto r = server->admin(args);
      ASSERT_TRUE(r.status.ok()) << r.output;
    }
  }
  static void TearDownTestSuite() { dropServer(); }
  static std::string idOf(const std::string& token) {
    return server->api(token).get("/me").json().value("id", "");
  }
  static std::string owner, admin, member, stranger;
};
std::string ApiAccounts::owner, ApiAccounts::admin, ApiAccounts::member, ApiAccounts::stranger;

TEST_F(ApiAccounts, MeShowsPlanUsageAndTeams) {
  auto created = server->api(owner).post("/projects", {{"name", "blog"}});
  ASSERT_EQ(created.status, 201) << created.body;
  auto r = server->api(owner).get("/me");
  ASSERT_EQ(r.status, 200) << r.body;
  auto me = r.json();
  EXPECT_EQ(me["email"], "owner@example.com");
  EXPECT_EQ(me["plan"], "hobby");
  EXPECT_EQ(me["project_limit"], 10);
  EXPECT_EQ(me["projects_used"], 1);
  EXPECT_EQ(me["slug"].get<std::string>().size() >= 4, true);
  EXPECT_FALSE(me["id"].get<std::string>().empty());
  ASSERT_EQ(me["teams"].size(), 1u) << r.body;
  EXPECT_EQ(me["teams"][0]["slug"], "crew1");
  EXPECT_EQ(me["teams"][0]["role"], "owner");

  auto m = server->api(member).get("/me").json();
  EXPECT_EQ(m["plan"], "free");
  EXPECT_EQ(m["project_limit"], 3);
  EXPECT_EQ(m["projects_used"], 0);
  ASSERT_EQ(m["teams"].size(), 1u);
  EXPECT_EQ(m["teams"][0]["role"], "member");
  EXPECT_EQ(server->api(stranger).get("/me").json()["teams"].size(), 0u);
  EXPECT_EQ(server->api().get("/me").status, 401);
}

TEST_F(ApiAccounts, TokenShownOnceNeverListedUsableAndRevokedAtOnce) {
  auto api = server->api(stranger);
  auto made = api.post("/tokens", {{"name", "laptop"}, {"expires_in_days", 30}});
  ASSERT_EQ(made.status, 201) << made.body;
  EXPECT_EQ(made.header("cache-control"), "no-store");
  auto record = made.json();
  std::string token = record.value("token", "");
  ASSERT_EQ(token.rfind("bth_", 0), 0u) << made.body;
  EXPECT_EQ(token.size(), 44u);
  EXPECT_EQ(record["name"], "laptop");
  EXPECT_TRUE(record["expires_at"].is_number());
  EXPECT_TRUE(record["last_used_at"].is_null());
  std::string id = record["id"];

  // Usable, as the account that made it.
  auto me = server->api(token).get("/me");
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.json()["email"], "stranger@example.com");

  // Listed by name, never with its value.
  auto list = api.get("/tokens");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.body.find(token), std::string::npos);
  EXPECT_EQ(list.body.find(token.substr(4)), std::string::npos);
  bool found = false;
  auto listed = list.json();
  for (const auto& t : listed["tokens"]) {
    EXPECT_FALSE(t.contains("token"));
    if (t["id"] == id) {
      found = true;
      EXPECT_EQ(t["name"], "laptop");
      EXPECT_TRUE(t["last_used_at"].is_number());  // used above
    }
  }
  EXPECT_TRUE(found) << list.body;

  // Only the digest is stored.
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(5));
  auto stored = db.exec("SELECT count(*) FROM core.tokens WHERE digest = $1",
                        {berth::core::sha256Hex(token)});
  EXPECT_EQ(stored.value(0, 0), "1");
  EXPECT_EQ(db.exec("SELECT count(*) FROM core.tokens WHERE digest = $1", {token}).value(0, 0),
            "0");

  // Another account cannot revoke it.
  EXPECT_EQ(server->api(member).del("/tokens/" + id).status, 404);
  EXPECT_EQ(server->api(token).get("/me").status, 200);  // and it is in this node's cache now

  // Revoked by itself: the very next request is refused, with no wait for NOTIFY.
  auto revoked = server->api(token).del("/tokens/" + id);
  EXPECT_EQ(revoked.status, 204) << revoked.body;
  auto after = server->api(token).get("/me");
  EXPECT_EQ(after.status, 401);
  EXPECT_EQ(errorText(after), "that token is not valid, or has expired");
  list = api.get("/tokens");
  EXPECT_EQ(list.body.find(id), std::string::npos);
  EXPECT_EQ(api.del("/tokens/" + id).status, 404);

  // The name is free again once its token is revoked.
  EXPECT_EQ(api.post("/tokens", {{"name", "laptop"}}).status, 201);
}

// Without the node's own eviction the next request races the NOTIFY and often wins: ten rounds
// make that race show.
TEST_F(ApiAccounts, RevokingAnotherTokenRefusesItAtOnce) {
  auto api = server->api(admin);
  for (int round = 0; round < 10; ++round) {
    auto made = api.post("/tokens", {{"name", "ci"}});
    ASSERT_EQ(made.status, 201) << made.body;
    std::string token = made.json()["token"];
    std::string id = made.json()["id"];
    ASSERT_EQ(server->api(token).get("/teams").status, 200);  // now in the cache
    ASSERT_EQ(api.del("/tokens/" + id).status, 204);
    ASSERT_EQ(server->api(token).get("/teams").status, 401) << "round " << round;
  }
}

TEST_F(ApiAccounts, NameInUseIsAConflict) {
  auto api = server->api(member);
  ASSERT_EQ(api.post("/tokens", {{"name", "deploy"}}).status, 201);
  auto again = api.post("/tokens", {{"name", "deploy"}});
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(errorText(again), "a token named deploy already exists");
  // Another account may use the name.
  EXPECT_EQ(server->api(admin).post("/tokens", {{"name", "deploy"}}).status, 201);
}

TEST_F(ApiAccounts, ExpiredTokenIsRefused) {
  auto made = server->api(member).post("/tokens", {{"name", "brief"}, {"expires_in_days", 1}});
  ASSERT_EQ(made.status, 201) << made.body;
  std::string token = made.json()["token"];
  ASSERT_EQ(server->api(token).get("/me").status, 200);
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(5));
  db.exec("UPDATE core.tokens SET expires_at = extract(epoch FROM now())::bigint - 1 WHERE id = $1",
          {made.json()["id"].get<std::string>()});
  auto r = server->api(token).get("/me");
  for (int i = 0; i < 100 && r.status == 200; ++i) r = server->api(token).get("/me");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "that token is not valid, or has expired");
}

TEST_F(ApiAccounts, TokenBodiesAreChecked) {
  auto api = server->api(member);
  auto r = api.raw("POST", "/tokens", R"({"name":"x"})", {"Content-Type: text/plain"});
  EXPECT_EQ(r.status, 415);
  r = api.post("/tokens", nlohmann::json::object());
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "missing field: name");
  r = api.post("/tokens", {{"name", "x"}, {"expires_in_days", "soon"}});
  EXPECT_EQ(r.status, 422);
  r = api.post("/tokens", {{"name", "x"}, {"expires_in_days", 0}});
  EXPECT_EQ(r.status, 400);
  r = api.post("/tokens", {{"name", ""}});
  EXPECT_EQ(r.status, 400);
  r = api.raw("POST", "/tokens", R"({"name":)", {"Content-Type: application/json"});
  EXPECT_EQ(r.status, 400);
  // The account routes' own limit (16 KB), well below the JSON limit of every route (2 MB).
  r = api.post("/tokens", {{"name", "big"}, {"padding", std::string(17 * 1024, 'x')}});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(errorText(r), "the request body is too large for this route (limit 16 KB)");
  r = api.post("/teams/crew1/members", {{"email", std::string(17 * 1024, 'x')}, {"role", "admin"}});
  EXPECT_EQ(r.status, 413);
  // None of the refusals made a token.
  auto tokens = api.get("/tokens").json();
  for (const auto& t : tokens["tokens"]) EXPECT_NE(t["name"], "x");
}

TEST_F(ApiAccounts, TeamsListedWithRoleAndPlan) {
  auto r = server->api(admin).get("/teams");
  ASSERT_EQ(r.status, 200) << r.body;
  auto teams = r.json()["teams"];
  ASSERT_EQ(teams.size(), 1u);
  EXPECT_EQ(teams[0]["slug"], "crew1");
  EXPECT_EQ(teams[0]["role"], "admin");
  EXPECT_EQ(teams[0]["plan"], "pro");
  EXPECT_EQ(server->api(stranger).get("/teams").json()["teams"].size(), 0u);
}

// POST /teams: the caller owns the new team at once, on the first plan; a slug taken or
// malformed is refused; a person makes at most 10 teams this way (each is an account with its
// own project limit), so the eleventh is refused and not made.
TEST_F(ApiAccounts, NewTeamOwnedByTheCallerAtMostTen) {
  std::string founder = server->createAccountWithToken("founder@example.com");
  auto api = server->api(founder);
  auto r = api.post("/teams", {{"slug", "found1"}});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json(), (nlohmann::json{{"slug", "found1"}, {"role", "owner"}, {"plan", "free"}}));
  auto teams = api.get("/teams").json()["teams"];
  ASSERT_EQ(teams.size(), 1u);
  EXPECT_EQ(teams[0]["slug"], "found1");
  EXPECT_EQ(teams[0]["role"], "owner");
  auto members = api.get("/teams/found1/members").json()["members"];
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0]["email"], "founder@example.com");

  r = api.post("/teams", {{"slug", "crew1"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "the slug crew1 is taken");
  r = api.post("/teams", {{"slug", "Ab"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "a slug is 4 to 12 characters of a-z and 0-9: Ab");
  r = api.post("/teams", nlohmann::json::object());
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "missing field: slug");

  for (int i = 2; i <= 10; ++i) {
    r = api.post("/teams", {{"slug", "found" + std::to_string(i)}});
    ASSERT_EQ(r.status, 201) << i << ": " << r.body;
  }
  r = api.post("/teams", {{"slug", "found11"}});
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(errorText(r),
            "you own 10 teams, the most one account may make through the API; the operator can "
            "make more with berthd team create");
  EXPECT_EQ(api.get("/teams").json()["teams"].size(), 10u);
  EXPECT_EQ(server->api(stranger).get("/teams/found11/members").status, 404);
}

TEST_F(ApiAccounts, MembersSeenByEveryMemberAndNotByAStranger) {
  for (const std::string& token : {owner, admin, member}) {
    auto r = server->api(token).get("/teams/crew1/members");
    ASSERT_EQ(r.status, 200) << r.body;
    auto members = r.json()["members"];
    ASSERT_GE(members.size(), 3u);
    EXPECT_EQ(members[0]["email"], "owner@example.com");
    EXPECT_EQ(members[0]["role"], "owner");
    EXPECT_EQ(members[0]["account"], idOf(owner));
  }
  auto r = server->api(stranger).get("/teams/crew1/members");
  EXPECT_EQ(r.status, 404);
  auto missing = server->api(stranger).get("/teams/nosuch1/members");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(errorText(r), "no team called crew1");
  EXPECT_EQ(errorText(missing), "no team called nosuch1");
}

TEST_F(ApiAccounts, MemberAndStrangerCannotChangeMembers) {
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(5));
  auto count = [&] {
    return db
        .exec(
            "SELECT count(*) FROM core.memberships m JOIN core.accounts a ON a.id = "
            "m.team_id WHERE a.slug = 'crew1'")
        .value(0, 0);
  };
  std::string before = count();
  auto r = server->api(member).post("/teams/crew1/members",
                                    {{"email", "newbie@example.com"}, {"role", "member"}});
  EXPECT_EQ(r.status, 403);
  r = server->api(member).raw("DELETE", "/teams/crew1/members/" + idOf(admin), "");
  EXPECT_EQ(r.status, 403);
  r = server->api(stranger).post("/teams/crew1/members",
                                 {{"email", "stranger@example.com"}, {"role", "admin"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no team called crew1");
  r = server->api(stranger).raw("DELETE", "/teams/crew1/members/" + idOf(member), "");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(count(), before);
  EXPECT_EQ(server->api(stranger).get("/teams").json()["teams"].size(), 0u);
}

TEST_F(ApiAccounts, OwnerAndAdminManageMembersByTheAdminRules) {
  std::string newbie_id;
  // The admin adds a member; the new member sees the team at once.
  auto r = server->api(admin).post("/teams/crew1/members",
                                   {{"email", "newbie@example.com"}, {"role", "member"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto added = r.json();
  for (const auto& m : added["members"])
    if (m["email"] == "newbie@example.com") newbie_id = m["account"];
  ASSERT_FALSE(newbie_id.empty()) << r.body;
  // The owner makes them an admin.
  r = server->api(owner).post("/teams/crew1/members",
                              {{"email", "newbie@example.com"}, {"role", "admin"}});
  ASSERT_EQ(r.status, 200) << r.body;
  // The rules of the admin subcommands: a role is admin or member, the owner's role stays,
  // the owner cannot leave, an unknown e-mail is refused.
  r = server->api(owner).post("/teams/crew1/members",
                              {{"email", "newbie@example.com"}, {"role", "owner"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "a role is admin or member, not owner");
  r = server->api(admin).post("/teams/crew1/members",
                              {{"email", "owner@example.com"}, {"role", "member"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "owner@example.com owns the team crew1; the owner's role stays");
  r = server->api(admin).raw("DELETE", "/teams/crew1/members/" + idOf(owner), "");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "the owner cannot leave the team");
  r = server->api(admin).post("/teams/crew1/members",
                              {{"email", "nobody@example.com"}, {"role", "member"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "no account with e-mail nobody@example.com");
  // Bodies are checked before any rule.
  r = server->api(admin).post("/teams/crew1/members", {{"email", "newbie@example.com"}});
  EXPECT_EQ(r.status, 422);
  r = server->api(admin).raw("POST", "/teams/crew1/members", "{}", {"Content-Type: text/plain"});
  EXPECT_EQ(r.status, 415);
  // The admin removes them; a second removal finds nobody.
  r = server->api(admin).raw("DELETE", "/teams/crew1/members/" + newbie_id, "");
  EXPECT_EQ(r.status, 204) << r.body;
  r = server->api(admin).raw("DELETE", "/teams/crew1/members/" + newbie_id, "");
  EXPECT_EQ(r.status, 404);
  auto left = server->api(owner).get("/teams/crew1/members").json();
  for (const auto& m : left["members"]) EXPECT_NE(m["email"], "newbie@example.com");
}

}  // namespace
