#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "db/embedded_postgres.hpp"
#include "db/pool.hpp"
#include "support/pg_cluster.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr auto kPatient = 30s;

// A temporary data_dir, removed afterwards.
class TempDir {
 public:
  explicit TempDir(mode_t mode = 0755) {
    std::string path = "/tmp/berth-ep.XXXXXX";
    if (::mkdtemp(path.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    ::chmod(path.c_str(), mode);
    path_ = path;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string readAll(const fs::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(FindPgBinDir, FindsADirectoryWithInitdb) {
  const std::string dir = findPgBinDir("");
  EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / "initdb")) << dir;
  EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / "pg_ctl")) << dir;
}

TEST(FindPgBinDir, HonoursAndChecksTheConfiguredDirectory) {
  const std::string found = findPgBinDir("");
  EXPECT_EQ(findPgBinDir(found), found);
  EXPECT_THROW(findPgBinDir("/nonexistent/postgres/bin"), std::runtime_error);
}

TEST(EmbeddedPostgres, KeepsDataAndPortAcrossRestarts) {
  TempDir data_dir;
  const std::string dir = (data_dir.path() / "pg").string();
  int first_port = 0;
  {
    EmbeddedPostgres pg(dir, DatabaseSettings{});
    const std::string url = pg.start();
    first_port = pg.port();
    ASSERT_GT(first_port, 0);
    const std::string password = readAll(fs::path(dir) / "superuser.password");
    ASSERT_EQ(password.size(), 33u);  // 32 hex digits and a newline
    EXPECT_EQ(url, "postgresql://berth:" + password.substr(0, 32) +
                       "@127.0.0.1:" + std::to_string(first_port) + "/berth");
    EXPECT_EQ(pg.url(), url);
    EXPECT_EQ(std::stoi(readAll(fs::path(dir) / "port")), first_port);
    EXPECT_TRUE(fs::exists(fs::path(dir) / "data" / "PG_VERSION"));

    Pool pool(url, 1, kPatient);
    pool.exec("CREATE TABLE survivors (name text)");
    pool.exec("INSERT INTO survivors VALUES ('kept')");
    EXPECT_EQ(pool.exec("SELECT current_setting('server_encoding')").value(0, 0), "UTF8");
    EXPECT_EQ(pool.exec("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").value(0, 0),
              "t");
  }  // the pool closes first, then the destructor stops the server

  EmbeddedPostgres again(dir, DatabaseSettings{});
  const std::string url = again.start();
  EXPECT_EQ(again.port(), first_port);
  Pool pool(url, 1, kPatient);
  EXPECT_EQ(pool.exec("SELECT name FROM survivors").value(0, 0), "kept");

  again.stop();
  EXPECT_THROW(pool.exec("SELECT 1"), DbUnavailable);
}

TEST(EmbeddedPostgres, ListensOnLoopbackOnly) {
  TempDir data_dir;
  EmbeddedPostgres pg((data_dir.path() / "pg").string(), DatabaseSettings{});
  Pool pool(pg.start(), 1, kPatient);
  EXPECT_EQ(pool.exec("SHOW listen_addresses").value(0, 0), "127.0.0.1");
  EXPECT_EQ(pool.exec("SHOW max_connections").value(0, 0), "200");
  // Nothing is trusted: every rule asks for a password.
  PgResult rules = pool.exec(
      "SELECT count(*), count(*) FILTER (WHERE auth_method <> 'scram-sha-256') "
      "FROM pg_hba_file_rules");
  EXPECT_EQ(rules.value(0, 0), "3");
  EXPECT_EQ(rules.value(0, 1), "0");
}

// Apps run on this machine: without the password, neither the superuser nor a role is
// reachable over loopback or the socket; a role with its password is. A cluster made before
// passwords (trust everywhere) gets one at its next start.
TEST(EmbeddedPostgres, EveryConnectionNeedsItsPassword) {
  TempDir data_dir;
  const std::string dir = (data_dir.path() / "pg").string();
  {
    // A cluster as berthd made it before passwords: trust, no password file.
    EmbeddedPostgres old(dir, DatabaseSettings{}, "", LoopbackAuth::Trust);
    old.start();
  }
  EmbeddedPostgres pg(dir, DatabaseSettings{});
  const std::string url = pg.start();
  Pool pool(url, 1, kPatient);
  pool.exec("CREATE ROLE app LOGIN PASSWORD 'app-secret'");
  const std::string port = std::to_string(pg.port());
  auto refused = [](const std::string& conninfo) {
    try {
      Pool attempt(conninfo + " connect_timeout=5", 1, std::chrono::seconds(5));
      attempt.exec("SELECT 1");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("connected");
  };
  EXPECT_NE(refused("host=127.0.0.1 port=" + port + " user=berth dbname=berth"), "connected");
  EXPECT_NE(refused("host=" + dir + " port=" + port + " user=berth dbname=berth"), "connected");
  EXPECT_NE(refused("host=127.0.0.1 port=" + port + " user=app dbname=berth"), "connected");
  EXPECT_NE(refused("host=127.0.0.1 port=" + port + " user=app password=wrong dbname=berth"),
            "connected");
  EXPECT_EQ(refused("host=127.0.0.1 port=" + port + " user=app password=app-secret dbname=berth"),
            "connected");
  // The folder of the socket admits only the cluster's user (and root).
  EXPECT_EQ(fs::status(dir).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST(EmbeddedPostgres, UsesTheConfiguredPort) {
  TempDir data_dir;
  DatabaseSettings settings;
  settings.embedded_port = freeLoopbackPort();
  EmbeddedPostgres pg((data_dir.path() / "pg").string(), settings);
  const std::string url = pg.start();
  EXPECT_EQ(pg.port(), settings.embedded_port);
  EXPECT_THAT(url, HasSubstr(":" + std::to_string(settings.embedded_port) + "/"));
}

TEST(EmbeddedPostgres, RefusesADataDirItsUserCannotReach) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root hands the cluster to another user";
  TempDir locked(0700);  // root's, closed to everyone else
  EmbeddedPostgres pg((locked.path() / "var" / "pg").string(), DatabaseSettings{});
  try {
    pg.start();
    FAIL() << "started in a directory its user cannot enter";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(locked.path().string()));
    EXPECT_THAT(e.what(), HasSubstr("cannot enter"));
  }
}

TEST(PgCluster, RestartsOverAStalePidFileAfterBeingKilled) {
  berth::testing::PgCluster cluster;
  {
    Pool pool(cluster.url("berth"), 1, kPatient);
    pool.exec("CREATE TABLE t (v int)");
    pool.exec("INSERT INTO t VALUES (1)");
  }
  const int port = cluster.port();
  cluster.kill();
  EXPECT_TRUE(fs::exists(fs::path(cluster.dir()) / "data" / "postmaster.pid"));

  cluster.start();
  EXPECT_EQ(cluster.port(), port);
  Pool pool(cluster.url("berth"), 1, kPatient);
  EXPECT_EQ(pool.exec("SELECT v FROM t").value(0, 0), "1");
}

TEST(PgCluster, RemovesItsDirectory) {
  std::string dir;
  {
    berth::testing::PgCluster cluster;
    dir = cluster.dir();
    EXPECT_TRUE(fs::exists(dir));
    Pool pool(cluster.createDatabase("scratch"), 1, kPatient);
    EXPECT_THAT(pool.exec("SELECT current_database()").value(0, 0), HasSubstr("scratch_"));
  }
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace berth::core
