// ctest-label: api (starts real berthd processes)
// A revocation is in force on every node before the command or route that made it returns
// (cluster/auth_nodes.hpp): a token cached by one or two berthd on one database is refused on
// the very next request, with no retry; a removed member likewise. A node paused by SIGSTOP
// makes a short wait fail, saying which node, and a default wait finds it gone once its
// heartbeat is stale; resumed, it refuses the revoked tokens at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"
#include "support/process_pause.hpp"

using namespace berth::testing;

namespace {

using Clock = std::chrono::steady_clock;

// The JSON line an admin command printed (its output may hold log lines too).
nlohmann::json printed(const berth::core::RunResult& r) {
  std::istringstream in(r.output);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.front() == '{') last = line;
  return nlohmann::json::parse(last, nullptr, false);
}

std::string newToken(BerthdProcess& server, const std::string& email, const std::string& name) {
  auto r = server.admin({"token", "create", "--email", email, "--name", name});
  if (!r.status.ok()) throw std::runtime_error("token create: " + r.output);
  std::string t = r.output;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

int64_t nodeRows(const BerthdProcess& server) {
  berth::core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(5));
  return std::stoll(db.exec("SELECT count(*) FROM core.nodes").value(0, 0));
}

// The rows of core.nodes once they number `expected` (a node registers at its first beat, a
// moment after it starts), or what they number after 5 s.
int64_t nodeRowsBecome(const BerthdProcess& server, int64_t expected) {
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  int64_t rows = nodeRows(server);
  while (rows != expected && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    rows = nodeRows(server);
  }
  return rows;
}

BerthdOptions sharing(const BerthdProcess& first) {
  BerthdOptions options;
  options.plugins = {};
  options.set = {"database.url=" + first.databaseUrl()};
  return options;
}

class ApiAuthInForce : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {};
    startServer(options);
    server->createAccountWithToken("ann@example.com");
  }
  static void TearDownTestSuite() { dropServer(); }
};

}  // namespace

// The bug: `berthd token revoke` returned before this node's cache had heard of it, and the
// next request still answered 200. Fifty fresh tokens, so that the race would show.
TEST_F(ApiAuthInForce, RevokedTokenIsRefusedOnTheVeryNextRequest) {
  int64_t longest = 0, total = 0;
  const int kRounds = 50;
  for (int i = 0; i < kRounds; ++i) {
    std::string name = "race" + std::to_string(i);
    std::string token = newToken(*server, "ann@example.com", name);
    auto api = server->api(token);
    ASSERT_EQ(api.get("/me").status, 200);
    ASSERT_EQ(api.get("/me").status, 200);  // from the cache now
    auto revoke = server->admin({"token", "revoke", "--email", "ann@example.com", "--name", name});
    ASSERT_TRUE(revoke.status.ok()) << revoke.output;
    auto in_force = printed(revoke)["in_force"];
    EXPECT_EQ(in_force.value("nodes", 0), 1) << revoke.output;
    longest = std::max<int64_t>(longest, in_force.value("waited_ms", 0));
    total += in_force.value("waited_ms", 0);
    auto r = api.get("/me");
    ASSERT_EQ(r.status, 401) << "round " << i << ": " << r.body;
  }
  std::cout << "token revoke waited " << total / kRounds << " ms on average, " << longest
            << " ms at most, for one node\n";
}

// Revoked over HTTP, by the token itself: refused at once.
TEST_F(ApiAuthInForce, RevokedByTheRouteIsRefusedOnTheVeryNextRequest) {
  for (int i = 0; i < 10; ++i) {
    std::string token = newToken(*server, "ann@example.com", "self" + std::to_string(i));
    auto api = server->api(token);
    auto list = api.get("/tokens").json()["tokens"];
    std::string id;
    for (const auto& t : list)
      if (t["name"] == "self" + std::to_string(i)) id = t["id"];
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(api.get("/me").status, 200);
    ASSERT_EQ(api.del("/tokens/" + id).status, 204);
    ASSERT_EQ(api.get("/me").status, 401) << "round " << i;
  }
}

// Two berthd on one database: a token cached by both is refused by both the moment the command
// that revoked it through one returns; so is a member removed, and a token revoked over HTTP on
// the other node.
TEST_F(ApiAuthInForce, EveryNodeRefusesOnTheVeryNextRequest) {
  BerthdProcess second(sharing(*server));
  second.start();
  EXPECT_EQ(nodeRowsBecome(*server, 2), 2);

  int64_t longest = 0;
  for (int i = 0; i < 10; ++i) {
    std::string name = "both" + std::to_string(i);
    std::string token = newToken(*server, "ann@example.com", name);
    for (auto* node : {server.get(), &second}) {
      ASSERT_EQ(node->api(token).get("/me").status, 200);
      ASSERT_EQ(node->api(token).get("/me").status, 200);
    }
    auto revoke = server->admin({"token", "revoke", "--email", "ann@example.com", "--name", name});
    ASSERT_TRUE(revoke.status.ok()) << revoke.output;
    auto in_force = printed(revoke)["in_force"];
    EXPECT_EQ(in_force.value("nodes", 0), 2) << revoke.output;
    longest = std::max<int64_t>(longest, in_force.value("waited_ms", 0));
    EXPECT_EQ(second.api(token).get("/me").status, 401) << "round " << i;
    EXPECT_EQ(server->api(token).get("/me").status, 401) << "round " << i;
  }

  std::cout << "token revoke waited " << longest << " ms at most for two nodes\n";

  // Over HTTP on the second node, a token cached by the first.
  std::string caller = newToken(*server, "ann@example.com", "caller");
  std::string victim = newToken(*server, "ann@example.com", "victim");
  ASSERT_EQ(server->api(victim).get("/me").status, 200);
  auto listed = second.api(caller).get("/tokens");
  ASSERT_EQ(listed.status, 200) << listed.body;
  std::string id;
  nlohmann::json tokens = listed.json()["tokens"];
  for (const auto& t : tokens)
    if (t["name"] == "victim") id = t["id"];
  ASSERT_FALSE(id.empty()) << listed.body;
  auto deleted = second.api(caller).del("/tokens/" + id);
  ASSERT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_EQ(server->api(victim).get("/me").status, 401);

  // A member removed by the command: the team is gone for them on both nodes at once.
  std::string member = server->createAccountWithToken("mem@example.com");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"team", "create", "--slug", "crew1", "--owner", "ann@example.com"},
           {"team", "add", "--team", "crew1", "--email", "mem@example.com", "--role", "member"}})
    ASSERT_TRUE(server->admin(args).status.ok());
  for (auto* node : {server.get(), &second})
    ASSERT_EQ(node->api(member).get("/teams/crew1/members").status, 200);
  auto removed = server->admin({"team", "remove", "--team", "crew1", "--email", "mem@example.com"});
  ASSERT_TRUE(removed.status.ok()) << removed.output;
  for (auto* node : {server.get(), &second})
    EXPECT_EQ(node->api(member).get("/teams/crew1/members").status, 404);

  // A clean stop takes the node off the list: the next revoke waits for one node only.
  stopCleanly(second);
  EXPECT_EQ(nodeRows(*server), 1);
}

// A paused node cannot confirm. A short wait fails and names it; the default wait finds it gone
// once its heartbeat is stale (its cache lease has run out by then). Resumed, it refuses both
// tokens on the first request and serves again.
TEST_F(ApiAuthInForce, PausedNodeFailsAShortWaitAndIsFoundGoneByALongOne) {
  BerthdProcess second(sharing(*server));
  second.start();
  ASSERT_EQ(nodeRowsBecome(*server, 2), 2);
  std::string early = newToken(*server, "ann@example.com", "early");
  std::string late = newToken(*server, "ann@example.com", "late");
  for (auto* node : {server.get(), &second})
    for (const auto& token : {early, late}) ASSERT_EQ(node->api(token).get("/me").status, 200);

  {
    ProcessPause paused(second.pid());
    const auto began = Clock::now();
    auto refused = server->admin({"token", "revoke", "--email", "ann@example.com", "--name",
                                  "early", "--wait-seconds", "1"});
    EXPECT_FALSE(refused.status.ok()) << refused.output;
    EXPECT_NE(refused.output.find("did not confirm"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("pid " + std::to_string(second.pid())), std::string::npos)
        << refused.output;
    EXPECT_LT(Clock::now() - began, std::chrono::seconds(4));
    // Saved all the same, and in force where it was confirmed.
    EXPECT_EQ(server->api(early).get("/me").status, 401);

    const auto long_began = Clock::now();
    auto revoke =
        server->admin({"token", "revoke", "--email", "ann@example.com", "--name", "late"});
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - long_began);
    ASSERT_TRUE(revoke.status.ok()) << revoke.output;
    auto in_force = printed(revoke)["in_force"];
    ASSERT_EQ(in_force["nodes_gone"].size(), 1u) << revoke.output;
    EXPECT_NE(
        in_force["nodes_gone"][0].get<std::string>().find("pid " + std::to_string(second.pid())),
        std::string::npos);
    EXPECT_EQ(in_force.value("nodes", 0), 1);
    EXPECT_LT(took, std::chrono::seconds(9));
    std::cout << "with a paused node, token revoke took " << took.count() << " ms\n";
    EXPECT_EQ(server->api(late).get("/me").status, 401);
  }

  for (const auto& token : {early, late}) EXPECT_EQ(second.api(token).get("/me").status, 401);
  std::string fresh = newToken(*server, "ann@example.com", "fresh");
  EXPECT_EQ(second.api(fresh).get("/me").status, 200);
  // It registers again at its next beat.
  EXPECT_EQ(nodeRowsBecome(*server, 2), 2);
  EXPECT_NE(second.output().find("counted gone"), std::string::npos);
  stopCleanly(second);
}
