// Accounts, teams and tokens against a real PostgreSQL.
#include "auth/accounts.hpp"

#include <gtest/gtest.h>

#include "db/migrator.hpp"
#include "support/pg_cluster.hpp"

using namespace berth::core;

namespace {

class AccountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    std::string db = "accounts_" + std::to_string(++n);
    Pool admin(berth::testing::sharedCluster().url("postgres"), 1, std::chrono::seconds(10));
    admin.exec("DROP DATABASE IF EXISTS " + db);
    admin.exec("CREATE DATABASE " + db);
    pool = std::make_unique<Pool>(berth::testing::sharedCluster().url(db), 2,
                                  std::chrono::seconds(10));
    applyMigrations(*pool, coreMigrations());
    settings.plans = {{"free", 3}, {"hobby", 10}, {"pro", std::nullopt}};
    settings.plan_order = {"free", "hobby", "pro"};
    accounts = std::make_unique<Accounts>(*pool, settings);
  }
  Settings settings;
  std::unique_ptr<Pool> pool;
  std::unique_ptr<Accounts> accounts;
};

}  // namespace

TEST_F(AccountsTest, TokensAreStoredAsDigestsOnly) {
  accounts->createAccount("Ann@Example.com", "", "");
  std::string token = accounts->createToken("ann@example.com", "ci", std::nullopt);
  ASSERT_EQ(token.rfind("bth_", 0), 0u);
  EXPECT_EQ(token.size(), 44u);
  for (char c : token.substr(4)) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)));
  auto stored = pool->exec("SELECT digest FROM core.tokens");
  ASSERT_EQ(stored.rows(), 1);
  EXPECT_EQ(stored.value(0, 0), sha256Hex(token));
  auto everything = pool->exec("SELECT t::text FROM core.tokens t");
  EXPECT_EQ(everything.value(0, 0).find(token.substr(4)), std::string::npos);

  auto check = accounts->checkToken(token);
  ASSERT_EQ(check.result, TokenCheck::Result::Ok);
  EXPECT_EQ(check.caller.email, "ann@example.com");
  EXPECT_FALSE(pool->exec("SELECT last_used_at FROM core.tokens").isNull(0, 0));
  EXPECT_EQ(accounts->checkToken(token + "x").result, TokenCheck::Result::Invalid);
  EXPECT_EQ(accounts->checkToken("bth_" + std::string(40, 'a')).result,
            TokenCheck::Result::Invalid);
}

TEST_F(AccountsTest, ExpiredAndRevokedTokensAreRefused) {
  accounts->createAccount("bo@example.com", "hobby", "bobo");
  std::string token = accounts->createToken("bo@example.com", "short", 1);
  EXPECT_EQ(accounts->checkToken(token).result, TokenCheck::Result::Ok);
  pool->exec("UPDATE core.tokens SET expires_at = extract(epoch from now())::bigint - 1");
  EXPECT_EQ(accounts->checkToken(token).result, TokenCheck::Result::Invalid);

  std::string other = accounts->createToken("bo@example.com", "long", std::nullopt);
  EXPECT_EQ(accounts->checkToken(other).result, TokenCheck::Result::Ok);
  accounts->revokeToken("bo@example.com", "long");
  EXPECT_EQ(accounts->checkToken(other).result, TokenCheck::Result::Invalid);
  EXPECT_THROW(accounts->revokeToken("bo@example.com", "long"), AccountError);
  // The name is free again once revoked.
  EXPECT_NO_THROW(accounts->createToken("bo@example.com", "long", std::nullopt));
  EXPECT_THROW(accounts->createToken("bo@example.com", "long", std::nullopt), AccountError);
  EXPECT_THROW(accounts->createToken("bo@example.com", "x", 0), AccountError);
}

TEST_F(AccountsTest, RefusalsNameTheProblem) {
  accounts->createAccount("cy@example.com", "", "cyslug");
  EXPECT_THROW(accounts->createAccount("CY@example.com", "", ""), AccountError);
  EXPECT_THROW(accounts->createAccount("dee@example.com", "", "cyslug"), AccountError);
  EXPECT_THROW(accounts->createAccount("dee@example.com", "", "BAD!"), AccountError);
  EXPECT_THROW(accounts->createAccount("dee@example.com", "gold", ""), AccountError);
  EXPECT_THROW(accounts->createAccount("not-an-email", "", ""), AccountError);
  EXPECT_THROW(accounts->createToken("nobody@example.com", "", std::nullopt), AccountError);
  try {
    accounts->createToken("nobody@example.com", "", std::nullopt);
  } catch (const AccountError& e) {
    EXPECT_STREQ(e.what(), "no account with e-mail nobody@example.com");
  }
}

TEST_F(AccountsTest, TeamsAndRoles) {
  auto owner = accounts->createAccount("own@example.com", "", "");
  auto member = accounts->createAccount("mem@example.com", "", "");
  auto team = accounts->createTeam("acme", "own@example.com", "pro");
  EXPECT_TRUE(team.is_team);
  accounts->addMember("acme", "mem@example.com", "member");
  EXPECT_THROW(accounts->addMember("acme", "mem@example.com", "boss"), AccountError);
  EXPECT_THROW(accounts->addMember("nope", "mem@example.com", "admin"), AccountError);
  EXPECT_THROW(accounts->createTeam("acme", "own@example.com", ""), AccountError);
  EXPECT_THROW(accounts->addMember("acme", "own@example.com", "member"), AccountError);

  auto m = accounts->memberships(member.id);
  ASSERT_EQ(m.size(), 2u);
  for (const auto& a : m) {
    if (a.id == member.id) {
      EXPECT_EQ(a.role, 2);
    }
    if (a.id == team.id) {
      EXPECT_EQ(a.role, 0);
    }
  }
  accounts->addMember("acme", "mem@example.com", "admin");
  for (const auto& a : accounts->memberships(member.id))
    if (a.id == team.id) {
      EXPECT_EQ(a.role, 1);
    }
  for (const auto& a : accounts->memberships(owner.id))
    if (a.id == team.id) {
      EXPECT_EQ(a.role, 2);
    }
  accounts->removeMember("acme", "mem@example.com");
  EXPECT_EQ(accounts->memberships(member.id).size(), 1u);
  EXPECT_THROW(accounts->removeMember("acme", "mem@example.com"), AccountError);
  EXPECT_THROW(accounts->removeMember("acme", "own@example.com"), AccountError);
  EXPECT_EQ(accounts->planLimit("free"), 3);
  EXPECT_EQ(accounts->planLimit("pro"), -1);
  EXPECT_EQ(accounts->planLimit("gold"), -2);
  ASSERT_TRUE(accounts->find("acme"));
  EXPECT_EQ(accounts->find("acme")->id, team.id);
}

TEST_F(AccountsTest, TokenCheckWithTheDatabaseGoneIsUnavailable) {
  accounts->createAccount("ed@example.com", "", "");
  std::string token = accounts->createToken("ed@example.com", "", std::nullopt);
  Pool dead("postgresql://berth@127.0.0.1:1/none?connect_timeout=1", 1,
            std::chrono::milliseconds(500));
  Accounts unreachable(dead, settings);
  EXPECT_EQ(unreachable.checkToken(token).result, TokenCheck::Result::Unavailable);
}
