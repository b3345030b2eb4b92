// TenantDatabases (the core's maker of project databases) against a real cluster. The test cluster
// trusts every local connection, so passwords are not what keeps one project out of another's
// database: REVOKE CONNECT is, and PostgreSQL checks it whatever the authentication method. One
// test turns password authentication on for a single role to show the stored password works.
#include "tenants/tenant_databases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/pg_cluster.hpp"

namespace berth::core {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

struct ConnFinish {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnFinish>;

// The connection, or the reason it was refused.
struct Connected {
  Conn conn;
  std::string error;
  bool ok() const { return conn && PQstatus(conn.get()) == CONNECTION_OK; }
};

Connected connect(const std::string& url) {
  Connected out{Conn(PQconnectdb(url.c_str())), {}};
  if (!out.ok()) out.error = out.conn ? PQerrorMessage(out.conn.get()) : "out of memory";
  return out;
}

// Runs one statement; returns the first value of the first row ("" when there is none), or
// throws with the server's message.
std::string query(PGconn* conn, const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn, sql.c_str()), &PQclear);
  ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
    throw std::runtime_error(PQresultErrorMessage(result.get()));
  if (status != PGRES_TUPLES_OK || PQntuples(result.get()) == 0) return "";
  return PQgetvalue(result.get(), 0, 0);
}

std::string freshProjectId() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, sizeof kAlphabet - 2);
  std::string id;
  for (int i = 0; i < 24; ++i) id += kAlphabet[pick(random)];
  return id;
}

class TenantDatabasesTest : public ::testing::Test {
 protected:
  TenantDatabasesTest()
      : cluster(berth::testing::sharedCluster()),
        databases(cluster.superuserUrl()),
        admin(connect(cluster.superuserUrl())) {
    if (!admin.ok()) throw std::runtime_error("admin connection: " + admin.error);
  }

  ~TenantDatabasesTest() override {
    for (const auto& name : made) {
      try {
        databases.drop(name, name);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "clean-up of " << name << ": " << e.what();
      }
    }
  }

  TenantDatabase create(const std::string& id) {
    made.push_back("p_" + id);
    return databases.create(id);
  }

  // postgresql://<user>@127.0.0.1:PORT/<database>: trust authentication, no password.
  std::string urlAs(const std::string& user, const std::string& database) const {
    return "postgresql://" + user + "@127.0.0.1:" + std::to_string(cluster.port()) + "/" + database;
  }

  std::string adminQuery(const std::string& sql) { return query(admin.conn.get(), sql); }

  bool roleExists(const std::string& role) {
    return adminQuery("SELECT count(*) FROM pg_roles WHERE rolname = '" + role + "'") == "1";
  }
  bool databaseExists(const std::string& database) {
    return adminQuery("SELECT count(*) FROM pg_database WHERE datname = '" + database + "'") == "1";
  }

  berth::testing::PgCluster& cluster;
  TenantDatabases databases;
  Connected admin;
  std::vector<std::string> made;  // dropped after each test
};

TEST_F(TenantDatabasesTest, CreatesAnUnprivilegedLoginRoleThatOwnsTheDatabase) {
  const std::string id = freshProjectId();
  TenantDatabase db = create(id);
  EXPECT_EQ(db.database, "p_" + id);
  EXPECT_EQ(db.role, "p_" + id);
  EXPECT_THAT(db.password, MatchesRegex("[A-Za-z0-9]{32}"));
  EXPECT_TRUE(databases.exists(db.database, db.role));

  EXPECT_EQ(adminQuery("SELECT concat_ws(',', rolsuper, rolcreatedb, rolcreaterole, rolcanlogin,"
                       " rolreplication, rolbypassrls, rolconnlimit)"
                       " FROM pg_roles WHERE rolname = '" +
                       db.role + "'"),
            "f,f,f,t,f,f,50");
  EXPECT_EQ(adminQuery("SELECT pg_get_userbyid(datdba) || ',' || pg_encoding_to_char(encoding)"
                       " FROM pg_database WHERE datname = '" +
                       db.database + "'"),
            db.role + ",UTF8");

  // Stored as a SCRAM verifier, never as the password itself.
  const std::string stored =
      adminQuery("SELECT rolpassword FROM pg_authid WHERE rolname = '" + db.role + "'");
  EXPECT_THAT(stored, StartsWith("SCRAM-SHA-256$"));
  EXPECT_THAT(stored, Not(HasSubstr(db.password)));
}

TEST_F(TenantDatabasesTest, PasswordsAreRandomPerProject) {
  TenantDatabase first = create(freshProjectId());
  TenantDatabase second = create(freshProjectId());
  EXPECT_NE(first.password, second.password);
}

TEST_F(TenantDatabasesTest, TheRoleOwnsSchemaPublicAndCreatesTablesThere) {
  TenantDatabase db = create(freshProjectId());
  Connected as_role = connect(urlAs(db.role, db.database));
  ASSERT_TRUE(as_role.ok()) << as_role.error;
  EXPECT_EQ(query(as_role.conn.get(),
                  "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'public'"),
            db.role);
  EXPECT_NO_THROW(query(as_role.conn.get(), "CREATE TABLE public.notes (id int PRIMARY KEY)"));
  EXPECT_NO_THROW(query(as_role.conn.get(), "INSERT INTO notes VALUES (1)"));
  EXPECT_EQ(query(as_role.conn.get(), "SELECT count(*) FROM notes"), "1");
  // And it has no power beyond its database.
  EXPECT_THROW(query(as_role.conn.get(), "CREATE ROLE intruder"), std::runtime_error);
  EXPECT_THROW(query(as_role.conn.get(), "CREATE DATABASE intruder"), std::runtime_error);
}

TEST_F(TenantDatabasesTest, ARoleCannotConnectToAnotherProjectsDatabase) {
  TenantDatabase a = create(freshProjectId());
  TenantDatabase b = create(freshProjectId());

  Connected a_to_b = connect(urlAs(a.role, b.database));
  EXPECT_FALSE(a_to_b.ok());
  EXPECT_THAT(a_to_b.error, HasSubstr("permission denied for database"));
  Connected b_to_a = connect(urlAs(b.role, a.database));
  EXPECT_FALSE(b_to_a.ok());
  EXPECT_THAT(b_to_a.error, HasSubstr("permission denied for database"));

  Connected a_to_a = connect(urlAs(a.role, a.database));
  EXPECT_TRUE(a_to_a.ok()) << a_to_a.error;
}

TEST_F(TenantDatabasesTest, PublicHasNoConnectPrivilege) {
  TenantDatabase db = create(freshProjectId());
  EXPECT_EQ(adminQuery("SELECT count(*) FROM pg_database, aclexplode(datacl) AS acl"
                       " WHERE datname = '" +
                       db.database + "' AND acl.grantee = 0"),
            "0");

  // A role that is no project's at all: PUBLIC is all it has.
  const std::string outsider = "outsider_" + freshProjectId();
  adminQuery("CREATE ROLE " + outsider + " LOGIN");
  Connected attempt = connect(urlAs(outsider, db.database));
  adminQuery("DROP ROLE " + outsider);
  EXPECT_FALSE(attempt.ok());
  EXPECT_THAT(attempt.error, HasSubstr("permission denied for database"));
}

TEST_F(TenantDatabasesTest, DropRemovesDatabaseAndRoleEvenWhileTheRoleIsConnected) {
  TenantDatabase db = create(freshProjectId());
  Connected session = connect(urlAs(db.role, db.database));
  ASSERT_TRUE(session.ok()) << session.error;
  query(session.conn.get(), "CREATE TEMPORARY TABLE scratch (id int)");
  // A second session in another database, holding a temporary table the role owns there.
  Connected elsewhere = connect(urlAs(db.role, "postgres"));
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.error;
  query(elsewhere.conn.get(), "CREATE TEMPORARY TABLE scratch (id int)");

  databases.drop(db.database, db.role);
  EXPECT_FALSE(databases.exists(db.database, db.role));
  EXPECT_FALSE(databaseExists(db.database));
  EXPECT_FALSE(roleExists(db.role));
  EXPECT_THROW(query(session.conn.get(), "SELECT 1"), std::runtime_error);

  // Dropping again is not an error.
  EXPECT_NO_THROW(databases.drop(db.database, db.role));
}

TEST_F(TenantDatabasesTest, AFailedCreateLeavesNoRoleBehind) {
  const std::string id = freshProjectId();
  const std::string name = "p_" + id;
  // Someone else's database under the name: CREATE DATABASE fails after the role was made.
  adminQuery("CREATE DATABASE " + name);
  try {
    databases.create(id);
    ADD_FAILURE() << "create succeeded over an existing database";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("already exists"));
  }
  EXPECT_FALSE(roleExists(name));
  EXPECT_TRUE(databaseExists(name)) << "a database create() did not make was dropped";
  adminQuery("DROP DATABASE " + name);
}

TEST_F(TenantDatabasesTest, ASecondCreateOfTheSameIdLeavesTheFirstIntact) {
  const std::string id = freshProjectId();
  TenantDatabase first = create(id);
  EXPECT_THROW(databases.create(id), std::runtime_error);
  EXPECT_TRUE(databases.exists(first.database, first.role));
  Connected still = connect(databases.projectUrl(first));
  EXPECT_TRUE(still.ok()) << still.error;
}

TEST_F(TenantDatabasesTest, RefusesNamesThatAreNotProjectNames) {
  const std::vector<std::string> bad_ids = {
      "", "UPPER", "has space", "x\"; DROP ROLE berth; --", std::string(61, 'a'), "a-b"};
  for (const std::string& bad : bad_ids)
    EXPECT_THROW(databases.create(bad), std::invalid_argument) << bad;
  EXPECT_THROW(databases.drop("postgres", "berth"), std::invalid_argument);
  EXPECT_THROW(databases.drop("p_ok", "berth"), std::invalid_argument);
  EXPECT_THROW(databases.sizeBytes("template1"), std::invalid_argument);
  EXPECT_TRUE(databaseExists("postgres"));
  EXPECT_TRUE(roleExists("berth"));
}

TEST_F(TenantDatabasesTest, SizeIsPositiveForADatabaseAndZeroForAMissingOne) {
  TenantDatabase db = create(freshProjectId());
  EXPECT_GT(databases.sizeBytes(db.database), 0);
  EXPECT_EQ(databases.sizeBytes("p_" + freshProjectId()), 0);
}

TEST_F(TenantDatabasesTest, ProjectUrlConnectsAsTheRoleToItsDatabase) {
  TenantDatabase db = create(freshProjectId());
  const std::string url = databases.projectUrl(db);
  EXPECT_EQ(url, "postgresql://" + db.role + ":" + db.password +
                     "@127.0.0.1:" + std::to_string(cluster.port()) + "/" + db.database);
  Connected session = connect(url);
  ASSERT_TRUE(session.ok()) << session.error;
  EXPECT_EQ(query(session.conn.get(), "SELECT current_user || '/' || current_database()"),
            db.role + "/" + db.database);
}

TEST_F(TenantDatabasesTest, ProjectUrlKeepsTheClustersAddressInAFormLibpqReadsBack) {
  const TenantDatabase db{"p_abc", "p_abc", "Secret123"};
  EXPECT_EQ(
      TenantDatabases("postgresql://berth@[::1]:6543/postgres?sslmode=require").projectUrl(db),
      "postgresql://p_abc:Secret123@[::1]:6543/p_abc?sslmode=require");
  EXPECT_EQ(TenantDatabases("postgresql://berth@db.internal/postgres").projectUrl(db),
            "postgresql://p_abc:Secret123@db.internal/p_abc");

  const std::string socket_url =
      TenantDatabases("host=/run/postgresql port=5433 hostaddr=10.0.0.5 user=berth dbname=x")
          .projectUrl(db);
  EXPECT_EQ(socket_url,
            "postgresql://p_abc:Secret123@%2Frun%2Fpostgresql:5433/p_abc"
            "?hostaddr=10.0.0.5");
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(
      PQconninfoParse(socket_url.c_str(), &error), &PQconninfoFree);
  ASSERT_NE(parsed, nullptr) << (error ? error : "");
  std::map<std::string, std::string> values;
  for (PQconninfoOption* option = parsed.get(); option->keyword; ++option)
    if (option->val) values[option->keyword] = option->val;
  EXPECT_EQ(values["host"], "/run/postgresql");
  EXPECT_EQ(values["hostaddr"], "10.0.0.5");
  EXPECT_EQ(values["user"], "p_abc");
  EXPECT_EQ(values["password"], "Secret123");
  EXPECT_EQ(values["dbname"], "p_abc");
}

// pg_hba.conf with one line put first, restored (and reloaded) when the object goes.
class HbaLine {
 public:
  HbaLine(PGconn* admin, const std::string& line)
      : admin_(admin), file_(query(admin, "SHOW hba_file")) {
    std::ifstream in(file_);
    std::stringstream text;
    text << in.rdbuf();
    original_ = text.str();
    write(line + "\n" + original_);
  }
  ~HbaLine() {
    try {
      write(original_);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "restoring " << file_ << ": " << e.what();
    }
  }
  HbaLine(const HbaLine&) = delete;
  HbaLine& operator=(const HbaLine&) = delete;

 private:
  void write(const std::string& text) {
    std::ofstream(file_, std::ios::trunc) << text;  // in place: owner and mode stay the cluster's
    if (query(admin_, "SELECT pg_reload_conf()") != "t")
      throw std::runtime_error("pg_reload_conf failed");
  }

  PGconn* admin_;
  std::string file_;
  std::string original_;
};

TEST_F(TenantDatabasesTest, TheStoredPasswordAuthenticatesTheRole) {
  TenantDatabase db = create(freshProjectId());
  HbaLine scram(admin.conn.get(), "host all " + db.role + " 127.0.0.1/32 scram-sha-256");
  const std::string wrong = databases.projectUrl({db.database, db.role, "not-the-password"});

  // The postmaster reloads when it gets to the signal: wait until a wrong password is refused.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  Connected refused = connect(wrong);
  while (refused.ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    refused = connect(wrong);
  }
  ASSERT_FALSE(refused.ok()) << "password authentication never took effect";
  EXPECT_THAT(refused.error, HasSubstr("password authentication failed"));

  Connected accepted = connect(databases.projectUrl(db));
  EXPECT_TRUE(accepted.ok()) << accepted.error;
}

}  // namespace
}  // namespace berth::core
