#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "db/pool.hpp"
#include "support/pg_cluster.hpp"
#include "util/process.hpp"

namespace berth::core {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// Generous: these tests are about what happens, never about how fast.
constexpr auto kPatient = 30s;

TEST(DbPool, BindsTextParametersAndNulls) {
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 2, kPatient);
  pool.exec("CREATE TABLE items (id int PRIMARY KEY, label text)");
  PgResult inserted = pool.exec("INSERT INTO items VALUES ($1, $2), ($3, $4)",
                                {"1", "it's \"quoted\"; DROP TABLE items", "2", std::nullopt});
  EXPECT_EQ(inserted.affected(), 2);

  PgResult rows = pool.exec("SELECT id, label FROM items ORDER BY id");
  ASSERT_EQ(rows.rows(), 2);
  ASSERT_EQ(rows.columns(), 2);
  EXPECT_EQ(rows.value(0, 0), "1");
  EXPECT_EQ(rows.optional(0, 1), "it's \"quoted\"; DROP TABLE items");
  EXPECT_TRUE(rows.isNull(1, 1));
  EXPECT_EQ(rows.optional(1, 1), std::nullopt);

  EXPECT_EQ(pool.exec("SELECT count(*) FROM items WHERE label IS NULL").value(0, 0), "1");
  EXPECT_EQ(pool.exec("UPDATE items SET label = 'x'").affected(), 2);
}

TEST(DbPool, ConnectionsIdentifyAsBerthd) {
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, kPatient);
  EXPECT_EQ(pool.exec("SHOW application_name").value(0, 0), "berthd");
}

TEST(DbPool, RefusedStatementThrowsDbErrorWithSqlstate) {
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, kPatient);
  pool.exec("CREATE TABLE users (email text UNIQUE)");
  pool.exec("INSERT INTO users VALUES ($1)", {"a@example.com"});
  try {
    pool.exec("INSERT INTO users VALUES ($1)", {"a@example.com"});
    FAIL() << "a duplicate key was accepted";
  } catch (const DbError& e) {
    EXPECT_EQ(e.sqlstate(), "23505");
    EXPECT_THAT(e.what(), HasSubstr("duplicate key"));
    EXPECT_NE(std::string(e.what()).back(), '\n');
  }
  // A refused statement leaves the connection usable.
  EXPECT_EQ(pool.exec("SELECT count(*) FROM users").value(0, 0), "1");

  try {
    pool.exec("SELEKT 1");
    FAIL() << "bad syntax was accepted";
  } catch (const DbError& e) {
    EXPECT_EQ(e.sqlstate(), "42601");
  }
}

TEST(DbPool, ManyThreadsShareFewConnections) {
  constexpr int kThreads = 8;
  constexpr int kQueriesEach = 50;
  constexpr int kPoolSize = 3;
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), kPoolSize, kPatient);
  pool.exec("CREATE TABLE hits (thread int, n int)");

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kQueriesEach; ++n) {
        try {
          PgResult r = pool.exec("INSERT INTO hits VALUES ($1, $2) RETURNING n",
                                 {std::to_string(t), std::to_string(n)});
          if (r.value(0, 0) != std::to_string(n)) ++failures;
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(pool.exec("SELECT count(*) FROM hits").value(0, 0),
            std::to_string(kThreads * kQueriesEach));
  const int sessions =
      std::stoi(pool.exec("SELECT count(*) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND application_name = 'berthd'")
                    .value(0, 0));
  EXPECT_GE(sessions, 1);
  EXPECT_LE(sessions, kPoolSize);
}

TEST(DbPool, PreparedStatementsFollowSchemaChanges) {
  // One connection, so the second run meets the statement prepared by the first.
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, kPatient);
  pool.exec("CREATE TABLE t (a int)");
  pool.exec("INSERT INTO t VALUES (1)");
  EXPECT_EQ(pool.exec("SELECT * FROM t WHERE a = $1", {"1"}).columns(), 1);
  pool.exec("ALTER TABLE t ADD COLUMN b text DEFAULT 'x'");
  auto r = pool.exec("SELECT * FROM t WHERE a = $1", {"1"});
  EXPECT_EQ(r.columns(), 2) << "a statement prepared before ALTER TABLE answered the old shape";
  EXPECT_EQ(r.value(0, 1), "x");
  // Inside a transaction too, and the transaction stays usable.
  auto lease = pool.acquire();
  lease.exec("BEGIN");
  lease.exec("ALTER TABLE t ADD COLUMN c int DEFAULT 7");
  EXPECT_EQ(lease.exec("SELECT * FROM t WHERE a = $1", {"1"}).columns(), 3);
  lease.exec("COMMIT");
}

TEST(DbPool, ManyDistinctStatementsStillRun) {
  // Past the per-connection bound of prepared statements, statements run unprepared.
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, kPatient);
  for (int i = 0; i < 300; ++i)
    EXPECT_EQ(pool.exec("SELECT " + std::to_string(i) + " + $1::int", {"1"}).value(0, 0),
              std::to_string(i + 1));
  auto r = pool.exec("SELECT count(*) FROM pg_prepared_statements");
  EXPECT_LE(std::stoi(r.value(0, 0)), 256);
  EXPECT_GE(std::stoi(r.value(0, 0)), 200);
}

TEST(DbPool, AcquireGivesUpWhenAllConnectionsAreBusy) {
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, 200ms);
  Lease held = pool.acquire();
  try {
    pool.acquire();
    FAIL() << "a second connection was handed out from a pool of one";
  } catch (const DbUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("could not reach the database"));
  }
}

TEST(DbPool, AReturnedConnectionIsHandedOutAgain) {
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, kPatient);
  std::string first_pid;
  {
    Lease lease = pool.acquire();
    first_pid = lease.exec("SELECT pg_backend_pid()").value(0, 0);
  }
  EXPECT_EQ(pool.exec("SELECT pg_backend_pid()").value(0, 0), first_pid);
}

TEST(DbPool, AbandonedTransactionIsRolledBackBeforeReuse) {
  Pool pool(berth::testing::sharedCluster().createDatabase("pool"), 1, kPatient);
  pool.exec("CREATE TABLE t (v int)");
  {
    Lease lease = pool.acquire();
    lease.exec("BEGIN");
    lease.exec("INSERT INTO t VALUES (1)");
  }  // dropped without COMMIT, as when a handler throws
  Lease again = pool.acquire();
  EXPECT_EQ(PQtransactionStatus(again.conn()), PQTRANS_IDLE);
  EXPECT_EQ(again.exec("SELECT count(*) FROM t").value(0, 0), "0");
}

TEST(DbPool, UnreachableServerThrowsDbUnavailable) {
  // Nothing listens on a port we just released.
  Pool pool("postgresql://berth@127.0.0.1:" + std::to_string(freeLoopbackPort()) + "/x", 2,
            kPatient);
  EXPECT_THROW(pool.exec("SELECT 1"), DbUnavailable);
  // The failed connect gave its slot back: the pool is not exhausted by failures.
  EXPECT_THROW(pool.exec("SELECT 1"), DbUnavailable);
  EXPECT_THROW(pool.exec("SELECT 1"), DbUnavailable);
}

TEST(DbPool, TerminatedSessionIsDiscardedAndReplaced) {
  berth::testing::PgCluster& cluster = berth::testing::sharedCluster();
  Pool pool(cluster.createDatabase("pool"), 1, kPatient);
  const std::string victim = pool.exec("SELECT pg_backend_pid()").value(0, 0);

  Pool admin(cluster.superuserUrl(), 1, kPatient);
  ASSERT_EQ(admin.exec("SELECT pg_terminate_backend($1::int)", {victim}).value(0, 0), "t");

  EXPECT_THROW(pool.exec("SELECT 1"), DbUnavailable);
  // The next request connects afresh.
  EXPECT_NE(pool.exec("SELECT pg_backend_pid()").value(0, 0), victim);
}

TEST(DbPool, SurvivesTheDatabaseRestartingMidRun) {
  berth::testing::PgCluster cluster;  // its own: this test stops it
  Pool pool(cluster.url("berth"), 2, kPatient);
  pool.exec("CREATE TABLE kept (v int)");
  pool.exec("INSERT INTO kept VALUES (42)");

  cluster.stop();
  // The idle connection is dead; the request that finds out is refused, not hung or crashed.
  EXPECT_THROW(pool.exec("SELECT v FROM kept"), DbUnavailable);
  // While the server is down, new connections fail the same way.
  EXPECT_THROW(pool.exec("SELECT v FROM kept"), DbUnavailable);

  cluster.start();
  EXPECT_EQ(pool.exec("SELECT v FROM kept").value(0, 0), "42");
}

TEST(DbPool, SurvivesTheDatabaseBeingKilled) {
  berth::testing::PgCluster cluster;
  Pool pool(cluster.url("berth"), 2, kPatient);
  pool.exec("CREATE TABLE kept (v int)");
  pool.exec("INSERT INTO kept VALUES (7)");

  cluster.kill();
  EXPECT_THROW(pool.exec("SELECT v FROM kept"), DbUnavailable);

  cluster.start();  // over the stale postmaster.pid the kill left behind
  EXPECT_EQ(pool.exec("SELECT v FROM kept").value(0, 0), "7");
}

}  // namespace
}  // namespace berth::core
