// core.tenant_databases.v1 driven through the host table as plugins call it, against a real
// cluster: a feature plugin makes, measures, reaches and drops a project database; a template
// plugin's call and an installer's install_call are refused and leave the cluster alone; no
// plugin can take the core's name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <random>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "plugin/host_api.hpp"
#include "plugin/plugin_state.hpp"
#include "support/pg_cluster.hpp"
#include "tenants/tenant_databases.hpp"
#include "tenants/tenant_databases_service.hpp"

namespace berth::core {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const berth_host_api& api = hostApi();
constexpr std::string_view kService = "core.tenant_databases.v1";

berth_str str(std::string_view s) {
  return berth_str{s.data(), s.size()};
}

std::string freshProjectId() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, sizeof kAlphabet - 2);
  std::string id;
  for (int i = 0; i < 24; ++i) id += kAlphabet[pick(random)];
  return id;
}

// What a call came back with: the status and the answer's JSON (null when it was empty).
struct Answer {
  int32_t status;
  json body;
};

Answer answerOf(int32_t status, berth_buffer* out) {
  berth_str text = api.buffer_view(out);
  std::string bytes = text.ptr == nullptr ? "" : std::string(text.ptr, text.len);
  api.buffer_free(out);
  return {status, bytes.empty() ? json() : json::parse(bytes)};
}

// The last installer's call, for the test to read after run_app_install returned.
Answer installer_answer{BERTH_OK, nullptr};
std::string installer_request;

// An installer that tries the service through its install context, as a template's could.
int32_t triesTheService(void*, berth_install_ctx* ctx, berth_str, berth_buffer*) {
  berth_buffer* out = api.buffer_new();
  int32_t status = api.install_call(ctx, str(kService), str("drop"), str(installer_request), out);
  installer_answer = answerOf(status, out);
  return BERTH_OK;
}

class TenantDatabasesService : public ::testing::Test {
 protected:
  TenantDatabasesService()
      : cluster(test::sharedCluster()),
        databases(cluster.superuserUrl()),
        manager(CoreParts{&settings, nullptr, nullptr, {}}) {
    offerTenantDatabases(manager.services, databases);
  }

  ~TenantDatabasesService() override {
    for (const auto& name : made) {
      try {
        databases.drop(name, name);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "clean-up of " << name << ": " << e.what();
      }
    }
  }

  // A plugin as loadAll would adopt it, with registration open.
  berth_host& plugin(const std::string& id, uint32_t kind = BERTH_KIND_FEATURE) {
    PluginLibrary library;
    library.id = id;
    berth_host& host = manager.adopt(std::move(library));
    host.kind = kind;
    host.registering = true;
    return host;
  }

  Answer call(berth_host& host, std::string_view method, const json& request) {
    berth_buffer* out = api.buffer_new();
    const std::string text = request.dump();
    return answerOf(api.call_service(&host, str(kService), str(method), str(text), out), out);
  }

  // A database the test makes directly, which refused calls must leave alone.
  TenantDatabase victim() {
    const std::string id = freshProjectId();
    made.push_back("p_" + id);
    return databases.create(id);
  }

  test::PgCluster& cluster;
  TenantDatabases databases;
  Settings settings;
  PluginManager::Impl manager;
  std::vector<std::string> made;  // dropped after each test
};

TEST_F(TenantDatabasesService, AFeaturePluginMakesMeasuresReachesAndDropsADatabase) {
  berth_host& projects = plugin("projects");
  const std::string id = freshProjectId();
  made.push_back("p_" + id);
  Answer created = call(projects, "create", {{"project_id", id}});
  ASSERT_EQ(created.status, BERTH_OK) << created.body;
  EXPECT_EQ(created.body["database"], "p_" + id);
  EXPECT_EQ(created.body["role"], "p_" + id);
  const std::string password = created.body.value("password", "");
  EXPECT_EQ(password.size(), 32u);
  EXPECT_TRUE(databases.exists("p_" + id, "p_" + id));

  Answer size = call(projects, "size", {{"database", "p_" + id}});
  ASSERT_EQ(size.status, BERTH_OK) << size.body;
  EXPECT_GT(size.body.value("bytes", int64_t{0}), 0);
  EXPECT_EQ(call(projects, "size", {{"database", "p_" + freshProjectId()}}).body,
            json({{"bytes", 0}}));

  Answer url =
      call(projects, "url", {{"database", "p_" + id}, {"role", "p_" + id}, {"password", password}});
  ASSERT_EQ(url.status, BERTH_OK) << url.body;
  EXPECT_EQ(url.body["url"], "postgresql://p_" + id + ":" + password +
                                 "@127.0.0.1:" + std::to_string(cluster.port()) + "/p_" + id);
  std::unique_ptr<PGconn, decltype(&PQfinish)> session(
      PQconnectdb(url.body["url"].get<std::string>().c_str()), &PQfinish);
  EXPECT_EQ(PQstatus(session.get()), CONNECTION_OK) << PQerrorMessage(session.get());
  session.reset();

  EXPECT_EQ(call(projects, "close_others", json::object()).status, BERTH_OK);
  Answer dropped = call(projects, "drop", {{"database", "p_" + id}, {"role", "p_" + id}});
  EXPECT_EQ(dropped.status, BERTH_OK) << dropped.body;
  EXPECT_FALSE(databases.exists("p_" + id, "p_" + id));
}

TEST_F(TenantDatabasesService, RefusalsSayWhatIsWrong) {
  berth_host& projects = plugin("projects");
  auto expectRefusal = [&](std::string_view method, const json& request, int status,
                           const std::string& error) {
    Answer answer = call(projects, method, request);
    EXPECT_EQ(answer.status, BERTH_ERR) << method;
    EXPECT_EQ(answer.body.value("status", 0), status) << method << ": " << answer.body;
    EXPECT_THAT(answer.body.value("error", ""), HasSubstr(error)) << method;
  };
  expectRefusal("create", json::object(), 400, "project_id is required and must be a string");
  expectRefusal("create", {{"project_id", "Has Space"}}, 400,
                "not a project database or role name");
  expectRefusal("drop", {{"database", "postgres"}, {"role", "berth"}}, 400,
                "not a project database or role name: \"postgres\"");
  expectRefusal("drop", {{"database", "p_abc"}}, 400, "role is required and must be a string");
  expectRefusal("size", {{"database", "template1"}}, 400, "not a project database or role name");
  expectRefusal("url", {{"database", "p_abc"}, {"role", "p_abc"}}, 400,
                "password is required and must be a string");
  expectRefusal("grant_superuser", json::object(), 404,
                "service core.tenant_databases.v1 has no method grant_superuser");
  // A second create of one id fails with PostgreSQL's reason and leaves the first intact.
  TenantDatabase first = victim();
  expectRefusal("create", {{"project_id", first.database.substr(2)}}, 500, "already exists");
  EXPECT_TRUE(databases.exists(first.database, first.role));

  berth_buffer* out = api.buffer_new();
  Answer broken =
      answerOf(api.call_service(&projects, str(kService), str("size"), str("{not json"), out), out);
  EXPECT_EQ(broken.body, json({{"status", 400}, {"error", "the request is not valid JSON"}}));
}

TEST_F(TenantDatabasesService, ATemplatePluginsCallIsRefused) {
  TenantDatabase target = victim();
  berth_host& tpl = plugin("tpl_app", BERTH_KIND_TEMPLATE);
  Answer answer = call(tpl, "drop", {{"database", target.database}, {"role", target.role}});
  EXPECT_EQ(answer.status, BERTH_ERR);
  EXPECT_EQ(answer.body.value("status", 0), 403) << answer.body;
  EXPECT_EQ(answer.body.value("error", ""),
            "a template plugin acts on projects only through its install context");
  EXPECT_TRUE(databases.exists(target.database, target.role));
}

// Whichever plugin made the installer (a template plugin, or a feature plugin that declares
// the service), its install_call does not reach the service: the core answers 403 itself.
TEST_F(TenantDatabasesService, AnInstallersCallIsRefusedWhicheverPluginMadeIt) {
  TenantDatabase target = victim();
  installer_request = json{{"database", target.database}, {"role", target.role}}.dump();
  const std::string services = json::array({kService}).dump();
  for (uint32_t kind : {uint32_t{BERTH_KIND_TEMPLATE}, uint32_t{BERTH_KIND_FEATURE}}) {
    const std::string owner = kind == BERTH_KIND_TEMPLATE ? "tpl_sneaky" : "feature_sneaky";
    const std::string slug = kind == BERTH_KIND_TEMPLATE ? "sneaky" : "sneaky-feature";
    berth_host& maker = plugin(owner, kind);
    berth_app_installer installer{};
    installer.struct_size = sizeof installer;
    installer.slug = str(slug);
    installer.name = str("Sneaky");
    installer.requires_json = str(services);
    installer.fn = triesTheService;
    ASSERT_EQ(api.add_app_installer(&maker, &installer), BERTH_OK) << maker.first_refusal;

    berth_host& runner = plugin("templates_" + std::to_string(kind));
    installer_answer = {BERTH_OK, nullptr};
    const std::string context = json{
        {"project", {{"id", target.database.substr(2)}, {"name", "victim"}}},
        {"caller", "acc1"}}.dump();
    berth_buffer* out = api.buffer_new();
    Answer install =
        answerOf(api.run_app_install(&runner, str(slug), str(context), str("{}"), out), out);
    ASSERT_EQ(install.status, BERTH_OK) << owner << ": " << install.body;
    EXPECT_EQ(installer_answer.status, BERTH_ERR) << owner;
    EXPECT_EQ(installer_answer.body,
              json({{"status", 403},
                    {"error",
                     "the service core.tenant_databases.v1 answers feature plugins only; an "
                     "installer cannot call it"}}))
        << owner;
    EXPECT_TRUE(databases.exists(target.database, target.role)) << owner;
  }
}

TEST_F(TenantDatabasesService, NoPluginCanOfferTheCoresName) {
  berth_host& impostor = plugin("impostor");
  auto fn = [](void*, berth_str, berth_str, berth_buffer*) -> int32_t { return BERTH_OK; };
  EXPECT_EQ(api.offer_service(&impostor, str(kService), fn, nullptr), BERTH_ERR);
  EXPECT_THAT(impostor.first_refusal, HasSubstr("the core"));
  EXPECT_THAT(impostor.first_refusal, HasSubstr("impostor"));
}

}  // namespace
}  // namespace berth::core
