#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <latch>
#include <thread>

#include "db/migrator.hpp"
#include "db/pool.hpp"
#include "support/pg_cluster.hpp"

namespace berth::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr auto kPatient = 30s;

// Each migration appends its own name to public.journal, so the order they ran in is visible.
Migration journaled(std::string owner, int version, std::string name, std::string sql = "") {
  std::string body = sql + "; INSERT INTO public.journal (entry) VALUES ('" + owner + " " +
                     std::to_string(version) + "')";
  return Migration{std::move(owner), version, std::move(name), std::move(body)};
}

std::vector<std::string> journal(Pool& pool) {
  std::vector<std::string> entries;
  PgResult rows = pool.exec("SELECT entry FROM public.journal ORDER BY id");
  for (int i = 0; i < rows.rows(); ++i) entries.push_back(rows.value(i, 0));
  return entries;
}

bool exists(Pool& pool, const std::string& relation) {
  return !pool.exec("SELECT to_regclass($1)", {relation}).isNull(0, 0);
}

class Migrator : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = berth::testing::sharedCluster().createDatabase("migrate");
    pool_ = std::make_unique<Pool>(url_, 2, kPatient);
    pool_->exec("CREATE TABLE public.journal (id serial PRIMARY KEY, entry text NOT NULL)");
  }
  std::string url_;
  std::unique_ptr<Pool> pool_;
};

TEST_F(Migrator, AppliesOwnerByOwnerInVersionOrderInsideEachSchema) {
  const std::vector<Migration> migrations = {
      journaled("alpha", 2, "more", "ALTER TABLE things ADD COLUMN label text"),
      journaled("beta", 1, "uses_alpha", "CREATE TABLE refs (thing int REFERENCES alpha.things)"),
      journaled("alpha", 1, "things", "CREATE TABLE things (id int PRIMARY KEY)"),
  };
  EXPECT_EQ(applyMigrations(*pool_, migrations), 3);

  EXPECT_THAT(journal(*pool_), ElementsAre("alpha 1", "alpha 2", "beta 1"));
  // Unqualified names landed in the owner's schema.
  EXPECT_TRUE(exists(*pool_, "alpha.things"));
  EXPECT_TRUE(exists(*pool_, "beta.refs"));
  EXPECT_FALSE(exists(*pool_, "public.things"));

  PgResult records = pool_->exec(
      "SELECT owner, version, name, length(checksum) FROM core.schema_migrations "
      "ORDER BY owner, version");
  ASSERT_EQ(records.rows(), 3);
  EXPECT_EQ(records.value(0, 0), "alpha");
  EXPECT_EQ(records.value(0, 2), "things");
  EXPECT_EQ(records.value(0, 3), "64");  // sha256 hex
  EXPECT_EQ(records.value(2, 0), "beta");

  // Nothing is pending the second time; nothing runs again.
  EXPECT_EQ(applyMigrations(*pool_, migrations), 0);
  EXPECT_EQ(journal(*pool_).size(), 3u);
}

TEST_F(Migrator, AppliesOnlyWhatIsNew) {
  std::vector<Migration> migrations = {journaled("alpha", 1, "one")};
  EXPECT_EQ(applyMigrations(*pool_, migrations), 1);
  migrations.push_back(journaled("alpha", 2, "two"));
  migrations.push_back(journaled("gamma", 1, "one"));
  EXPECT_EQ(applyMigrations(*pool_, migrations), 2);
  EXPECT_THAT(journal(*pool_), ElementsAre("alpha 1", "alpha 2", "gamma 1"));
}

TEST_F(Migrator, RefusesAGapInVersions) {
  try {
    applyMigrations(*pool_, {journaled("alpha", 1, "one"), journaled("alpha", 3, "three")});
    FAIL() << "a missing version 2 was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("alpha"));
    EXPECT_THAT(e.what(), HasSubstr("version 2"));
  }
  EXPECT_TRUE(journal(*pool_).empty());
}

TEST_F(Migrator, RefusesAVersionNotStartingAtOne) {
  EXPECT_THROW(applyMigrations(*pool_, {journaled("alpha", 2, "two")}), std::runtime_error);
  EXPECT_TRUE(journal(*pool_).empty());
}

TEST_F(Migrator, RefusesADuplicateVersion) {
  try {
    applyMigrations(*pool_, {journaled("beta", 1, "one"), journaled("beta", 2, "two"),
                             journaled("beta", 2, "two_again")});
    FAIL() << "version 2 twice was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("beta"));
    EXPECT_THAT(e.what(), HasSubstr("version 2"));
  }
  EXPECT_TRUE(journal(*pool_).empty());
}

TEST_F(Migrator, RefusesAnOwnerThatIsNotASchemaName) {
  EXPECT_THROW(applyMigrations(*pool_, {journaled("Bad\"Owner", 1, "one")}), std::runtime_error);
  EXPECT_TRUE(journal(*pool_).empty());
}

TEST_F(Migrator, RefusesAMigrationChangedAfterItWasApplied) {
  applyMigrations(*pool_, {journaled("alpha", 1, "things", "CREATE TABLE things (id int)")});
  try {
    applyMigrations(*pool_, {journaled("alpha", 1, "things", "CREATE TABLE things (id bigint)"),
                             journaled("alpha", 2, "more")});
    FAIL() << "an edited migration was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "migration alpha 1 (things) was changed after it was applied");
  }
  // Nothing after it ran either.
  EXPECT_THAT(journal(*pool_), ElementsAre("alpha 1"));
}

TEST_F(Migrator, FailedMigrationIsRolledBackAndNotRecorded) {
  const Migration good = journaled("alpha", 1, "good", "CREATE TABLE kept (id int)");
  const Migration bad = journaled("alpha", 2, "broken",
                                  "CREATE TABLE half_made (id int); SELECT * FROM no_such_table");
  try {
    applyMigrations(*pool_, {good, bad});
    FAIL() << "a failing migration was reported as applied";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("migration alpha 2 (broken) failed: "));
    EXPECT_THAT(e.what(), HasSubstr("no_such_table"));
  }
  EXPECT_TRUE(exists(*pool_, "alpha.kept"));
  EXPECT_FALSE(exists(*pool_, "alpha.half_made"));
  EXPECT_EQ(
      pool_->exec("SELECT version FROM core.schema_migrations WHERE owner = 'alpha'").value(0, 0),
      "1");
  EXPECT_EQ(pool_->exec("SELECT count(*) FROM core.schema_migrations").value(0, 0), "1");
  EXPECT_THAT(journal(*pool_), ElementsAre("alpha 1"));

  // Once fixed, the same version applies.
  const Migration fixed = journaled("alpha", 2, "broken", "CREATE TABLE half_made (id int)");
  EXPECT_EQ(applyMigrations(*pool_, {good, fixed}), 1);
  EXPECT_TRUE(exists(*pool_, "alpha.half_made"));
}

TEST_F(Migrator, AFailureReleasesTheLockForTheNextRun) {
  EXPECT_THROW(applyMigrations(*pool_, {journaled("alpha", 1, "bad", "SELECT 1/0")}),
               std::runtime_error);
  // Another session (another node) can take the lock.
  Pool other(url_, 1, kPatient);
  EXPECT_EQ(other.exec("SELECT pg_try_advisory_lock(hashtext('berth:migrate'))").value(0, 0), "t");
  other.exec("SELECT pg_advisory_unlock(hashtext('berth:migrate'))");
}

TEST_F(Migrator, TwoNodesStartingTogetherApplyEachMigrationOnce) {
  std::vector<Migration> migrations = {
      // The sleep widens the window in which the second node would race the first.
      journaled("alpha", 1, "slow", "CREATE TABLE a (id int); SELECT pg_sleep(0.2)"),
      journaled("alpha", 2, "next", "ALTER TABLE a ADD COLUMN b int"),
      journaled("beta", 1, "other", "CREATE TABLE c (id int)"),
  };
  Pool node_one(url_, 2, kPatient);
  Pool node_two(url_, 2, kPatient);
  std::latch go(2);
  int applied_one = -1, applied_two = -1;
  std::string error_one, error_two;
  auto run = [&](Pool& pool, int& applied, std::string& error) {
    go.arrive_and_wait();
    try {
      applied = applyMigrations(pool, migrations);
    } catch (const std::exception& e) {
      error = e.what();
    }
  };
  std::thread one(run, std::ref(node_one), std::ref(applied_one), std::ref(error_one));
  std::thread two(run, std::ref(node_two), std::ref(applied_two), std::ref(error_two));
  one.join();
  two.join();

  EXPECT_EQ(error_one, "");
  EXPECT_EQ(error_two, "");
  EXPECT_EQ(applied_one + applied_two, 3);
  EXPECT_TRUE((applied_one == 3 && applied_two == 0) || (applied_one == 0 && applied_two == 3))
      << applied_one << " + " << applied_two;
  EXPECT_THAT(journal(*pool_), ElementsAre("alpha 1", "alpha 2", "beta 1"));
}

TEST_F(Migrator, CoreMigrationsApplyCleanly) {
  EXPECT_EQ(applyMigrations(*pool_, coreMigrations()), static_cast<int>(coreMigrations().size()));
  EXPECT_EQ(applyMigrations(*pool_, coreMigrations()), 0);
  for (const char* table : {"core.accounts", "core.memberships", "core.tokens"}) {
    EXPECT_TRUE(exists(*pool_, table)) << table;
  }

  Pool& db = *pool_;
  db.exec(
      "INSERT INTO core.accounts (id, slug, email, kind, plan) VALUES "
      "('u1', 'alice1', 'alice@example.com', 'user', 'free'), "
      "('t1', 'team01', NULL, 'team', 'free')");
  EXPECT_NE(db.exec("SELECT created_at FROM core.accounts WHERE id = 'u1'").value(0, 0), "0");

  auto sqlstateOf = [&](const std::string& sql) -> std::string {
    try {
      db.exec(sql);
    } catch (const DbError& e) {
      return e.sqlstate();
    }
    return "accepted";
  };
  // Slugs: 4..12 of [a-z0-9]; emails unique and lower-case; kinds and roles from a fixed set.
  EXPECT_EQ(sqlstateOf("INSERT INTO core.accounts (id, slug, kind, plan) "
                       "VALUES ('x', 'Ab', 'team', 'free')"),
            "23514");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.accounts (id, slug, email, kind, plan) "
                       "VALUES ('x', 'bobby1', 'Bob@Example.com', 'user', 'free')"),
            "23514");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.accounts (id, slug, email, kind, plan) "
                       "VALUES ('x', 'alice2', 'alice@example.com', 'user', 'free')"),
            "23505");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.accounts (id, slug, kind, plan) "
                       "VALUES ('x', 'robot1', 'robot', 'free')"),
            "23514");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.memberships VALUES ('t1', 'u1', 'boss')"), "23514");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.memberships VALUES ('t1', 'u1', 'owner')"), "accepted");

  // One live token per (account, name); a revoked one frees the name.
  EXPECT_EQ(sqlstateOf("INSERT INTO core.tokens (id, account_id, name, digest) "
                       "VALUES ('k1', 'u1', 'ci', 'd1')"),
            "accepted");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.tokens (id, account_id, name, digest) "
                       "VALUES ('k2', 'u1', 'ci', 'd2')"),
            "23505");
  db.exec("UPDATE core.tokens SET revoked_at = 1 WHERE id = 'k1'");
  EXPECT_EQ(sqlstateOf("INSERT INTO core.tokens (id, account_id, name, digest) "
                       "VALUES ('k2', 'u1', 'ci', 'd2')"),
            "accepted");

  // Deleting an account takes its tokens and memberships with it.
  db.exec("DELETE FROM core.accounts WHERE id = 'u1'");
  EXPECT_EQ(db.exec("SELECT count(*) FROM core.tokens").value(0, 0), "0");
  EXPECT_EQ(db.exec("SELECT count(*) FROM core.memberships").value(0, 0), "0");
}

}  // namespace
}  // namespace berth::core
