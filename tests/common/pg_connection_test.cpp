// ctest-label: unit
// berth::common::PgConnection against a real PostgreSQL (the tests' shared cluster): keywords in
// order, the default connect timeout, the error text of a failed connection, and ownership.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "berth/common/pg_connection.hpp"
#include "support/pg_cluster.hpp"

namespace berth::common {
namespace {

using namespace std::chrono_literals;

std::string scalar(PGconn* conn, const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn, sql.c_str()), &PQclear);
  EXPECT_EQ(PQresultStatus(result.get()), PGRES_TUPLES_OK) << PQerrorMessage(conn);
  return PQntuples(result.get()) == 1 ? PQgetvalue(result.get(), 0, 0) : "";
}

// The value libpq settled on for a connection keyword.
std::string option(PGconn* conn, const std::string& keyword) {
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(PQconninfo(conn),
                                                                       &PQconninfoFree);
  for (auto* o = options.get(); o != nullptr && o->keyword != nullptr; ++o)
    if (keyword == o->keyword) return o->val != nullptr ? o->val : "";
  return "";
}

TEST(CommonPgConnection, ConnectsWithKeywordsInOrder) {
  const std::string url = berth::testing::sharedCluster().url("postgres");
  // application_name before the URL is a default, after it an override.
  PgConnection conn = PgConnection::connect(
      {{"application_name", "before"}, {"dbname", url}, {"application_name", "after"}}, 7s);
  ASSERT_TRUE(conn.ok()) << conn.error();
  EXPECT_EQ(scalar(conn.get(), "SELECT 1"), "1");
  EXPECT_EQ(scalar(conn.get(), "SHOW application_name"), "after");
  EXPECT_EQ(option(conn.get(), "connect_timeout"), "7");
}

TEST(CommonPgConnection, TheUrlsConnectTimeoutWinsOverTheDefault) {
  const std::string url = berth::testing::sharedCluster().url("postgres") + "?connect_timeout=3";
  PgConnection conn = PgConnection::connect({{"dbname", url}}, 10s);
  ASSERT_TRUE(conn.ok()) << conn.error();
  EXPECT_EQ(option(conn.get(), "connect_timeout"), "3");
}

TEST(CommonPgConnection, AFailedConnectionSaysWhy) {
  // A database that does not exist: the server refuses, with its own words.
  const std::string url = berth::testing::sharedCluster().url("berth_no_such_database");
  PgConnection refused = PgConnection::connect({{"dbname", url}}, 5s);
  ASSERT_TRUE(static_cast<bool>(refused));
  EXPECT_FALSE(refused.ok());
  const std::string why = refused.error();
  EXPECT_NE(why.find("database \"berth_no_such_database\" does not exist"), std::string::npos)
      << why;
  EXPECT_NE(why.back(), '\n');

  // Nobody listening: libpq's own words.
  PgConnection nobody = PgConnection::connect({{"dbname", "postgresql://berth@127.0.0.1:1/x"}}, 5s);
  EXPECT_FALSE(nobody.ok());
  EXPECT_NE(nobody.error().find("127.0.0.1"), std::string::npos) << nobody.error();
  EXPECT_NE(nobody.error().back(), '\n');
}

TEST(CommonPgConnection, EmptyConnectionIsNotOk) {
  PgConnection none;
  EXPECT_FALSE(static_cast<bool>(none));
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "out of memory");
}

// Backends of this test's connections, by application_name.
int backends(const std::string& url, const std::string& name) {
  PgConnection watcher = PgConnection::connect({{"dbname", url}}, 5s);
  EXPECT_TRUE(watcher.ok()) << watcher.error();
  return std::stoi(
      scalar(watcher.get(),
             "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + name + "'"));
}

bool backendsBecome(const std::string& url, const std::string& name, int wanted) {
  for (int i = 0; i < 500; ++i) {
    if (backends(url, name) == wanted) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(CommonPgConnection, FinishedWhenItsOwnerGoesAndMovedOtherwise) {
  const std::string url = berth::testing::sharedCluster().url("postgres");
  const std::string name = "berth-common-owner-test";
  {
    PgConnection first = PgConnection::connect({{"dbname", url}, {"application_name", name}});
    ASSERT_TRUE(first.ok()) << first.error();
    PGconn* raw = first.get();
    PgConnection second(std::move(first));
    EXPECT_EQ(first.get(), nullptr);
    EXPECT_EQ(second.get(), raw);
    PgConnection third;
    third = std::move(second);
    EXPECT_EQ(third.get(), raw);
    EXPECT_EQ(scalar(third.get(), "SELECT 2"), "2");
    EXPECT_TRUE(backendsBecome(url, name, 1));
  }
  EXPECT_TRUE(backendsBecome(url, name, 0)) << "the connection was not finished";

  // release() hands it on unfinished; a new owner finishes it.
  PGconn* raw = nullptr;
  {
    PgConnection owner = PgConnection::connect({{"dbname", url}, {"application_name", name}});
    ASSERT_TRUE(owner.ok()) << owner.error();
    raw = owner.release();
    EXPECT_FALSE(static_cast<bool>(owner));
  }
  EXPECT_EQ(PQstatus(raw), CONNECTION_OK);
  EXPECT_TRUE(backendsBecome(url, name, 1));
  PgConnection adopted(raw);
  adopted.reset();
  EXPECT_EQ(adopted.get(), nullptr);
  EXPECT_TRUE(backendsBecome(url, name, 0));
}

TEST(CommonPgConnection, DroppedNoticesDoNotReachStderr) {
  PgConnection conn =
      PgConnection::connect({{"dbname", berth::testing::sharedCluster().url("postgres")}});
  ASSERT_TRUE(conn.ok()) << conn.error();
  conn.dropNotices();
  ::testing::internal::CaptureStderr();
  std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQexec(conn.get(), "DROP TABLE IF EXISTS berth_no_such_table"), &PQclear);
  EXPECT_EQ(PQresultStatus(result.get()), PGRES_COMMAND_OK);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace berth::common
