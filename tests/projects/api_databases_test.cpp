// ctest-label: api (starts a real berthd)
// The PostgreSQL side of projects, seen from outside berthd: a database and a login role per
// project on the cluster (here the shared test cluster, which also holds the control plane),
// gone again after DELETE together with the project's secret and domain rows; a project's role
// reaches its own database only; secret values are not stored in the clear.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include "api_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

struct ConnectResult {
  bool ok = false;
  std::string error;
};

// Connects as `role` (trust authentication on the test cluster) to `database`.
ConnectResult connectAs(const std::string& role, const std::string& database) {
  std::string url = "postgresql://" + role +
                    "@127.0.0.1:" + std::to_string(sharedCluster().port()) + "/" + database +
                    "?connect_timeout=10";
  PGconn* conn = PQconnectdb(url.c_str());
  ConnectResult out;
  out.ok = PQstatus(conn) == CONNECTION_OK;
  if (!out.ok) out.error = PQerrorMessage(conn);
  if (out.ok) {
    PGresult* r = PQexec(conn, "SELECT current_user, current_database()");
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
        std::string(PQgetvalue(r, 0, 0)) != role || std::string(PQgetvalue(r, 0, 1)) != database) {
      out.ok = false;
      out.error = "connected, but not as " + role + " to " + database;
    }
    PQclear(r);
  }
  PQfinish(conn);
  return out;
}

// The database name of the control plane berthd uses (the last part of its URL).
std::string databaseOf(const std::string& url) {
  std::string db = url.substr(url.rfind('/') + 1);
  return db.substr(0, db.find('?'));
}

class ApiDatabases : public ProjectsServerSuite {};

}  // namespace

TEST_F(ApiDatabases, CreateMakesADatabaseAndARoleThatDeleteDrops) {
  auto a = makeAccount(*server, "dbmaker");
  auto dbs_before = databasesOnCluster();
  auto roles_before = rolesOnCluster();
  mustCreate(api(a), "store");
  const std::string name = "store-dbmaker";
  std::string id = projectId(*server, name);
  const std::string expected = "p_" + id;
  EXPECT_EQ(added(dbs_before, databasesOnCluster()), std::set<std::string>{expected});
  EXPECT_EQ(added(roles_before, rolesOnCluster()), std::set<std::string>{expected});

  // The database belongs to the project's role, which is an ordinary login role.
  berth::core::Pool admin(sharedCluster().url("postgres"), 1, std::chrono::seconds(10));
  EXPECT_EQ(column(admin, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1",
                   {expected}),
            std::vector<std::string>{expected});
  auto attrs = admin.exec(
      "SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls "
      "FROM pg_roles WHERE rolname = $1",
      {expected});
  ASSERT_EQ(attrs.rows(), 1);
  EXPECT_EQ(attrs.value(0, 0), "t") << "can log in";
  for (int col = 1; col < 6; ++col) EXPECT_EQ(attrs.value(0, col), "f") << "attribute " << col;
  EXPECT_TRUE(connectAs(expected, expected).ok);

  auto r = api(a).del("/projects/" + name);
  ASSERT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(databasesOnCluster(), dbs_before);
  EXPECT_EQ(rolesOnCluster(), roles_before);
}

TEST_F(ApiDatabases, DeleteLeavesNoSecretOrDomainRowsBehind) {
  auto a = makeAccount(*server, "dbcleanr");
  mustCreate(api(a), "tidy");
  mustCreate(api(a), "other");
  const std::string name = "tidy-dbcleanr";
  std::string id = projectId(*server, name);
  for (std::string secret : {"TIDY_SECRET_ONE", "TIDY_SECRET_TWO"}) {
    auto r = api(a).post("/projects/" + name + "/secrets", {{"name", secret}, {"value", "v"}});
    ASSERT_EQ(r.status, 201) << r.body;
  }
  auto r = api(a).post("/projects/" + name + "/domains", {{"host", "tidy.cleanup.example"}});
  ASSERT_EQ(r.status, 201) << r.body;
  // The other project keeps its own rows.
  r = api(a).post("/projects/other-dbcleanr/secrets", {{"name", "OTHER_SECRET"}, {"value", "v"}});
  ASSERT_EQ(r.status, 201) << r.body;
  r = api(a).post("/projects/other-dbcleanr/domains", {{"host", "other.cleanup.example"}});
  ASSERT_EQ(r.status, 201) << r.body;

  // The rows are there before (so the checks below can fail).
  std::string secrets = tableText(*server, "projects.secrets");
  std::string domains = tableText(*server, "projects.domains");
  EXPECT_NE(secrets.find("TIDY_SECRET_ONE"), std::string::npos) << secrets;
  EXPECT_NE(domains.find("tidy.cleanup.example"), std::string::npos) << domains;

  ASSERT_EQ(api(a).del("/projects/" + name).status, 204);
  secrets = tableText(*server, "projects.secrets");
  domains = tableText(*server, "projects.domains");
  EXPECT_EQ(secrets.find("TIDY_SECRET"), std::string::npos) << secrets;
  EXPECT_EQ(domains.find("tidy.cleanup.example"), std::string::npos) << domains;
  if (id.size() >= 8) {  // an id short enough to occur by chance in other rows proves nothing
    EXPECT_EQ(secrets.find(id), std::string::npos) << secrets;
    EXPECT_EQ(domains.find(id), std::string::npos) << domains;
  }
  EXPECT_NE(secrets.find("OTHER_SECRET"), std::string::npos) << secrets;
  EXPECT_NE(domains.find("other.cleanup.example"), std::string::npos) << domains;

  // The domain is free for anyone again.
  auto b = makeAccount(*server, "dbtaker");
  mustCreate(api(b), "taker");
  r = api(b).post("/projects/taker-dbtaker/domains", {{"host", "tidy.cleanup.example"}});
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST_F(ApiDatabases, AProjectsRoleReachesOnlyItsOwnDatabase) {
  auto a = makeAccount(*server, "dbroles");
  mustCreate(api(a), "first");
  mustCreate(api(a), "second");
  std::string first = "p_" + projectId(*server, "first-dbroles");
  std::string second = "p_" + projectId(*server, "second-dbroles");
  ASSERT_NE(first, second);

  auto own = connectAs(first, first);
  EXPECT_TRUE(own.ok) << own.error;
  own = connectAs(second, second);
  EXPECT_TRUE(own.ok) << own.error;

  auto other = connectAs(first, second);
  EXPECT_FALSE(other.ok) << first << " reached " << second;
  EXPECT_NE(other.error.find("permission denied"), std::string::npos) << other.error;
  other = connectAs(second, first);
  EXPECT_FALSE(other.ok) << second << " reached " << first;
}

TEST_F(ApiDatabases, AProjectsRoleCannotReachThePlatformsDatabase) {
  auto a = makeAccount(*server, "dbplatfm");
  mustCreate(api(a), "curious");
  std::string role = "p_" + projectId(*server, "curious-dbplatfm");
  auto r = connectAs(role, databaseOf(server->databaseUrl()));
  EXPECT_FALSE(r.ok) << role << " reached the control-plane database";
}

TEST_F(ApiDatabases, SecretValuesAreNotStoredInTheClear) {
  auto a = makeAccount(*server, "dbsealed");
  mustCreate(api(a), "vault");
  const std::string value = "hunter2-very-secret";
  auto r = api(a).post("/projects/vault-dbsealed/secrets",
                       {{"name", "SMTP_PASSWORD"}, {"value", value}});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.body.find(value), std::string::npos) << r.body;

  std::string secrets = tableText(*server, "projects.secrets");
  EXPECT_NE(secrets.find("SMTP_PASSWORD"), std::string::npos) << secrets;
  EXPECT_EQ(secrets.find(value), std::string::npos) << secrets;
  EXPECT_EQ(secrets.find("hunter2"), std::string::npos) << secrets;

  // Nowhere else in the plugin's tables either, nor in what berthd logged.
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
  for (const auto& table : column(db,
                                  "SELECT table_schema || '.' || table_name FROM "
                                  "information_schema.tables WHERE table_schema = 'projects' "
                                  "AND table_type = 'BASE TABLE'"))
    EXPECT_EQ(tableText(*server, table).find(value), std::string::npos) << table;
  EXPECT_EQ(server->output().find(value), std::string::npos) << "berthd logged the value";
  EXPECT_EQ(api(a).get("/projects/vault-dbsealed/secrets").body.find(value), std::string::npos);
}
