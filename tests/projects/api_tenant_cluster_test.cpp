// ctest-label: api (starts a real berthd)
// database.tenants_url: project databases on a second cluster, made by the core. berthd's
// control plane stays on the shared test cluster; every project's database and role are made,
// reached and dropped on the second one, and nothing of them lands on the first. No plugin is
// handed a superuser URL (a feature plugin asks for database.url and gets nothing), the core's
// service answers feature plugins, and the removed projects.cluster_url stops start-up naming
// its replacement.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include "api_support.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

std::set<std::string> namesOn(const std::string& url, const std::string& sql) {
  berth::core::Pool db(url, 1, std::chrono::seconds(10));
  auto v = column(db, sql);
  return {v.begin(), v.end()};
}

// current_user/current_database of a connection to `url`, or the reason it was refused.
std::string whoAmI(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  std::string out;
  if (PQstatus(conn) != CONNECTION_OK) {
    out = std::string("refused: ") + PQerrorMessage(conn);
  } else {
    PGresult* r = PQexec(conn, "SELECT current_user || '/' || current_database()");
    out = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(conn);
  return out;
}

class ApiTenantCluster : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    tenants = std::make_unique<PgCluster>();
    BerthdOptions options;
    options.plugins = {"projects", "serviceprobe", "notifyprobe"};
    options.extra_yaml = secretsKeyYaml();
    options.set = {"database.tenants_url=" + tenants->superuserUrl()};
    OwnerSuite::startServer(options, "tenantowner");
  }
  static void TearDownTestSuite() {
    OwnerSuite::TearDownTestSuite();
    tenants.reset();
  }

  static std::set<std::string> tenantDatabases() {
    return namesOn(tenants->superuserUrl(), "SELECT datname FROM pg_database");
  }
  static std::set<std::string> tenantRoles() {
    return namesOn(tenants->superuserUrl(), "SELECT rolname FROM pg_roles");
  }

  static inline std::unique_ptr<PgCluster> tenants;
};

}  // namespace

TEST_F(ApiTenantCluster, ProjectDatabasesAreMadeReachedAndDroppedOnTheTenantsCluster) {
  auto shared_before = databasesOnCluster();
  auto shared_roles_before = rolesOnCluster();
  auto tenant_before = tenantDatabases();
  auto tenant_roles_before = tenantRoles();

  const std::string name = project("faraway");
  const std::string expected = "p_" + projectId(*server, name);
  EXPECT_EQ(added(tenant_before, tenantDatabases()), std::set<std::string>{expected});
  EXPECT_EQ(added(tenant_roles_before, tenantRoles()), std::set<std::string>{expected});
  EXPECT_EQ(added(shared_before, databasesOnCluster()), std::set<std::string>{})
      << "nothing of the project is on the control plane's cluster";
  EXPECT_EQ(added(shared_roles_before, rolesOnCluster()), std::set<std::string>{});

  // The directory's URL (what the console, the data API and the app get) is the project's own
  // role at the tenants cluster's address.
  json db = mustCallService(*server, "projects.directory.v1", "database", {{"name", name}});
  const std::string url = db.at("url").get<std::string>();
  EXPECT_NE(url.find(":" + std::to_string(tenants->port()) + "/" + expected), std::string::npos)
      << url;
  EXPECT_EQ(whoAmI(url + "?connect_timeout=10"), expected + "/" + expected);

  auto r = api().del("/projects/" + name);
  ASSERT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(tenantDatabases().count(expected), 0u);
  EXPECT_EQ(tenantRoles().count(expected), 0u);
}

// The projects plugin calls close_others when it starts: on the tenants cluster, a role with
// only PUBLIC's rights (as every project's role) connects to no database but its own.
TEST_F(ApiTenantCluster, OtherDatabasesOfTheTenantsClusterAreClosedToProjectRoles) {
  berth::core::Pool admin(tenants->superuserUrl(), 1, std::chrono::seconds(10));
  admin.exec("CREATE ROLE outsider LOGIN");
  auto allowed = column(admin,
                        "SELECT datname FROM pg_database WHERE datallowconn AND "
                        "has_database_privilege('outsider', oid, 'CONNECT') ORDER BY datname");
  admin.exec("DROP ROLE outsider");
  EXPECT_EQ(allowed, std::vector<std::string>{});
}

TEST_F(ApiTenantCluster, AFeaturePluginIsHandedNoSuperuserUrl) {
  for (const std::string key : {"database.url", "database.tenants_url"}) {
    auto r = server->api().get("/notifyprobe/setting/" + key);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json().at("value"), json()) << key;
  }
  auto r = server->api().get("/notifyprobe/setting/data_dir");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("value"), server->dataDir());
}

TEST_F(ApiTenantCluster, TheCoresServiceAnswersAFeaturePlugin) {
  EXPECT_EQ(mustCallService(*server, "core.tenant_databases.v1", "size",
                            {{"database", "p_nosuchproject"}}),
            json({{"bytes", 0}}));
  HttpResult refused = callService(*server, "core.tenant_databases.v1", "drop",
                                   {{"database", "postgres"}, {"role", "berth"}});
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(errorText(refused).find("not a project database or role name"), std::string::npos)
      << refused.body;
  EXPECT_EQ(tenantDatabases().count("postgres"), 1u);
}

TEST(ApiTenantClusterConfig, TheRemovedClusterUrlStopsStartUpNamingItsReplacement) {
  BerthdOptions options;
  options.plugins = {"projects"};
  options.extra_yaml =
      secretsKeyYaml() + "  cluster_url: \"" + sharedCluster().superuserUrl() + "\"\n";
  BerthdProcess server(options);
  std::string out;
  try {
    server.start();
    ADD_FAILURE() << "berthd started with projects.cluster_url set";
  } catch (const std::runtime_error& e) {
    out = e.what();
  }
  EXPECT_NE(out.find("projects.cluster_url was replaced by the core setting database.tenants_url"),
            std::string::npos)
      << out;
}
