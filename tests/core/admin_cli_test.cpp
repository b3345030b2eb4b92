// ctest-label: api (starts a real berthd)
// The admin subcommands (README.md, A curl tour), run as a user would, with their refusals.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;

namespace {

class AdminCli : public BerthdSuite {
 protected:
  static void SetUpTestSuite() { server = std::make_unique<BerthdProcess>(BerthdOptions{}); }
  static void TearDownTestSuite() { dropServer(); }
  static berth::core::RunResult run(std::vector<std::string> args) { return server->admin(args); }
  static nlohmann::json json(const berth::core::RunResult& r) {
    return nlohmann::json::parse(r.output, nullptr, false);
  }
};

}  // namespace

TEST_F(AdminCli, AccountCreatePrintsTheAccount) {
  auto r =
      run({"account", "create", "--email", "Zed@Example.com", "--plan", "hobby", "--slug", "zed1"});
  ASSERT_TRUE(r.status.ok()) << r.output;
  auto j = json(r);
  EXPECT_EQ(j["email"], "zed@example.com");
  EXPECT_EQ(j["plan"], "hobby");
  EXPECT_EQ(j["slug"], "zed1");
  r = run({"account", "create", "--email", "auto@example.com"});
  ASSERT_TRUE(r.status.ok()) << r.output;
  std::string slug = json(r)["slug"];
  EXPECT_GE(slug.size(), 4u);
  EXPECT_LE(slug.size(), 12u);
  EXPECT_EQ(json(r)["plan"], "free");
}

TEST_F(AdminCli, Refusals) {
  ASSERT_TRUE(
      run({"account", "create", "--email", "dup@example.com", "--slug", "dupe"}).status.ok());
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"account", "create", "--email", "dup@example.com"}, "already exists"},
      {{"account", "create", "--email", "new@example.com", "--slug", "dupe"}, "is taken"},
      {{"account", "create", "--email", "new@example.com", "--plan", "gold"}, "unknown plan"},
      {{"account", "create"}, "needs --email"},
      {{"token", "create", "--email", "ghost@example.com"}, "no account with e-mail"},
      {{"token", "revoke", "--email", "dup@example.com", "--name", "nope"}, "no active token"},
      {{"team", "create", "--slug", "tm01", "--owner", "ghost@example.com"}, "no account"},
      {{"team", "add", "--team", "nope", "--email", "dup@example.com", "--role", "admin"},
       "no team"},
      {{"frobnicate"}, "unknown command"},
  };
  for (const auto& c : cases) {
    auto r = run(c.args);
    EXPECT_FALSE(r.status.ok()) << c.args[0] << " " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
  }
}

TEST_F(AdminCli, TeamsAndRoles) {
  ASSERT_TRUE(run({"account", "create", "--email", "boss@example.com"}).status.ok());
  ASSERT_TRUE(run({"account", "create", "--email", "crew@example.com"}).status.ok());
  auto r =
      run({"team", "create", "--slug", "crew", "--owner", "boss@example.com", "--plan", "pro"});
  ASSERT_TRUE(r.status.ok()) << r.output;
  EXPECT_EQ(json(r)["kind"], "team");
  r = run({"team", "create", "--slug", "crew", "--owner", "boss@example.com"});
  EXPECT_FALSE(r.status.ok());
  r = run({"team", "add", "--team", "crew", "--email", "crew@example.com", "--role", "captain"});
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.output.find("admin or member"), std::string::npos) << r.output;
  r = run({"team", "add", "--team", "crew", "--email", "crew@example.com", "--role", "member"});
  ASSERT_TRUE(r.status.ok()) << r.output;
  EXPECT_EQ(json(r)["role"], "member");
  r = run({"team", "remove", "--team", "crew", "--email", "crew@example.com"});
  ASSERT_TRUE(r.status.ok()) << r.output;
  r = run({"team", "remove", "--team", "crew", "--email", "crew@example.com"});
  EXPECT_FALSE(r.status.ok());
}

TEST_F(AdminCli, TokenCreatePrintsTheTokenAlone) {
  ASSERT_TRUE(run({"account", "create", "--email", "tok@example.com"}).status.ok());
  auto r = run({"token", "create", "--email", "tok@example.com", "--name", "ci"});
  ASSERT_TRUE(r.status.ok()) << r.output;
  std::string out = r.output;
  ASSERT_EQ(out.back(), '\n');
  out.pop_back();
  EXPECT_EQ(out.find('\n'), std::string::npos) << "more than the token was printed: " << r.output;
  EXPECT_EQ(out.rfind("bth_", 0), 0u);
  EXPECT_EQ(out.size(), 44u);
  r = run({"token", "create", "--email", "tok@example.com", "--name", "ci"});
  EXPECT_FALSE(r.status.ok());
  r = run({"token", "create", "--email", "tok@example.com", "--expires-in-days", "soon"});
  EXPECT_FALSE(r.status.ok());
}
