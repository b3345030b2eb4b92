// ctest-label: api (starts a real berthd)
// Secrets over real HTTP: set (and replace), list without values, delete, the name and scope
// rules with their texts, the project.secret_changed hook (seen through the projecthooks
// fixture), and 501 on every secret route of a server without projects.secrets_key.
#include <gtest/gtest.h>

#include "api_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

const std::string kBadName =
    "a secret name is capital letters, digits and underscores, starting with a letter or "
    "underscore";
const std::string kPlatformName = "DATABASE_URL and names starting with PG are set by the platform";
const std::string kBadScope = "scope must be runtime, build or both";

class ApiSecrets : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "projecthooks"};
    options.extra_yaml = secretsKeyYaml();
    startServer(options);
  }
  static void TearDownTestSuite() { dropServer(); }
  static ApiClient api(const Account& a) { return server->api(a.token); }
  // An account with one project; returns the path /projects/<name>/secrets.
  static std::string projectWithSecrets(const Account& a, const std::string& label) {
    mustCreate(api(a), label);
    return "/projects/" + projectName(label, a.slug) + "/secrets";
  }
};

void expectRecord(const json& record, const std::string& name, const std::string& scope) {
  ASSERT_TRUE(record.is_object()) << record.dump();
  EXPECT_EQ(record["name"], name) << record.dump();
  EXPECT_EQ(record["scope"], scope) << record.dump();
  EXPECT_TRUE(record["updated_at"].is_number_integer()) << record.dump();
  EXPECT_FALSE(record.contains("value")) << record.dump();
}

}  // namespace

TEST_F(ApiSecrets, SetAnswers201WithTheRecordAndRuntimeScopeByDefault) {
  auto a = makeAccount(*server, "scset");
  auto path = projectWithSecrets(a, "web");
  int64_t before = nowSeconds();
  auto r = api(a).post(path, {{"name", "API_KEY"}, {"value", "value-of-api-key-1"}});
  ASSERT_EQ(r.status, 201) << r.body;
  auto j = r.json();
  expectRecord(j, "API_KEY", "runtime");
  EXPECT_GE(j["updated_at"].get<int64_t>(), before - 120);
  EXPECT_LE(j["updated_at"].get<int64_t>(), nowSeconds() + 120);
  EXPECT_EQ(r.body.find("value-of-api-key-1"), std::string::npos) << r.body;

  for (std::string scope : {"runtime", "build", "both"}) {
    std::string name = "SCOPED_" + scope;  // secret names are capital letters
    for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    r = api(a).post(path, {{"name", name}, {"value", "v"}, {"scope", scope}});
    ASSERT_EQ(r.status, 201) << scope << ": " << r.body;
    expectRecord(r.json(), name, scope);
  }
}

TEST_F(ApiSecrets, TheSameNameReplacesTheSecret) {
  auto a = makeAccount(*server, "screplc");
  auto path = projectWithSecrets(a, "web");
  ASSERT_EQ(api(a).post(path, {{"name", "TOKEN"}, {"value", "one"}, {"scope", "build"}}).status,
            201);
  auto r = api(a).post(path, {{"name", "TOKEN"}, {"value", "two"}, {"scope", "both"}});
  ASSERT_EQ(r.status, 201) << r.body;
  expectRecord(r.json(), "TOKEN", "both");
  auto list = api(a).get(path);
  ASSERT_EQ(list.status, 200) << list.body;
  auto secrets = list.json()["secrets"];
  ASSERT_EQ(secrets.size(), 1u) << list.body;
  expectRecord(secrets[0], "TOKEN", "both");
  // Without a scope the replacement goes back to runtime.
  r = api(a).post(path, {{"name", "TOKEN"}, {"value", "three"}});
  ASSERT_EQ(r.status, 201) << r.body;
  expectRecord(r.json(), "TOKEN", "runtime");
  EXPECT_EQ(api(a).get(path).json()["secrets"].size(), 1u);
}

TEST_F(ApiSecrets, TheListHoldsNamesSortedAndNeverValues) {
  auto a = makeAccount(*server, "sclist");
  auto path = projectWithSecrets(a, "web");
  auto empty = api(a).get(path);
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.json(), (json{{"secrets", json::array()}}));
  for (std::string name : {"Z_LAST", "A_FIRST", "M_MIDDLE", "_UNDERSCORE", "B2"})
    ASSERT_EQ(api(a).post(path, {{"name", name}, {"value", "sv-" + name + "-sv"}}).status, 201)
        << name;
  auto r = api(a).get(path);
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<std::string> names;
  auto listed = r.json();
  for (const auto& s : listed["secrets"]) {
    expectRecord(s, s.value("name", ""), "runtime");
    names.push_back(s.value("name", ""));
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"A_FIRST", "B2", "M_MIDDLE", "Z_LAST", "_UNDERSCORE"}));
  EXPECT_EQ(r.body.find("sv-"), std::string::npos) << "a value was returned: " << r.body;
  EXPECT_EQ(r.body.find("\"value\""), std::string::npos) << r.body;
  // Another project of the same account has none of them.
  mustCreate(api(a), "other");
  EXPECT_TRUE(api(a).get("/projects/other-sclist/secrets").json()["secrets"].empty());
}

TEST_F(ApiSecrets, DeleteIs204ThenTheSecretIsGone) {
  auto a = makeAccount(*server, "scdelete");
  auto path = projectWithSecrets(a, "web");
  ASSERT_EQ(api(a).post(path, {{"name", "GOES"}, {"value", "x"}}).status, 201);
  ASSERT_EQ(api(a).post(path, {{"name", "STAYS"}, {"value", "y"}}).status, 201);
  auto r = api(a).del(path + "/GOES");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.body, "");
  r = api(a).del(path + "/GOES");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no secret called GOES");
  r = api(a).del(path + "/NEVER_SET");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no secret called NEVER_SET");
  auto secrets = api(a).get(path).json()["secrets"];
  ASSERT_EQ(secrets.size(), 1u) << secrets.dump();
  EXPECT_EQ(secrets[0]["name"], "STAYS");
  // It can be set again.
  EXPECT_EQ(api(a).post(path, {{"name", "GOES"}, {"value", "z"}}).status, 201);
}

TEST_F(ApiSecrets, NamesAndScopesAreChecked) {
  auto a = makeAccount(*server, "scrules");
  auto path = projectWithSecrets(a, "web");
  for (std::string name : {"api_key", "Api_Key", "1ABC", "MY-VAR", "MY VAR", "A.B", "",
                           "\xc3\x84"
                           "BC"}) {
    auto r = api(a).post(path, {{"name", name}, {"value", "v"}});
    EXPECT_EQ(r.status, 400) << "'" << name << "': " << r.body;
    EXPECT_EQ(errorText(r), kBadName) << "'" << name << "'";
  }
  for (std::string name : {"DATABASE_URL", "PGHOST", "PGPASSWORD", "PG_ANYTHING", "PG"}) {
    auto r = api(a).post(path, {{"name", name}, {"value", "v"}});
    EXPECT_EQ(r.status, 400) << name << ": " << r.body;
    EXPECT_EQ(errorText(r), kPlatformName) << name;
  }
  for (std::string scope : {"deploy", "", "Runtime", "all"}) {
    auto r = api(a).post(path, {{"name", "GOOD_NAME"}, {"value", "v"}, {"scope", scope}});
    EXPECT_EQ(r.status, 400) << "'" << scope << "': " << r.body;
    EXPECT_EQ(errorText(r), kBadScope) << "'" << scope << "'";
  }
  // Names that only look close are fine.
  for (std::string name : {"_X", "X", "MY_DATABASE_URL", "APG", "DATABASE_URL2"}) {
    auto r = api(a).post(path, {{"name", name}, {"value", "v"}});
    EXPECT_EQ(r.status, 201) << name << ": " << r.body;
  }
  EXPECT_EQ(api(a).get(path).json()["secrets"].size(), 5u);
}

TEST_F(ApiSecrets, BodyErrorsComeFromTheHttpLayer) {
  auto a = makeAccount(*server, "scbodies");
  auto path = projectWithSecrets(a, "web");
  auto r = api(a).post(path, {{"value", "v"}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.body, "missing field: name");
  r = api(a).post(path, {{"name", "X"}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.body, "missing field: value");
  r = api(a).post(path, {{"name", "X"}, {"value", 5}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.body, "field value must be a string");
  r = api(a).post(path, {{"name", "X"}, {"value", "v"}, {"scope", 1}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.body, "field scope must be a string");
  EXPECT_TRUE(api(a).get(path).json()["secrets"].empty());
}

TEST_F(ApiSecrets, SettingASecretFiresSecretChanged) {
  auto a = makeAccount(*server, "schook");
  auto path = projectWithSecrets(a, "web");
  const std::string name = "web-schook";
  EXPECT_TRUE(hookEvents(*server, "project.secret_changed", name).empty());
  ASSERT_EQ(api(a).post(path, {{"name", "FIRST"}, {"value", "1"}}).status, 201);
  EXPECT_TRUE(
      eventually([&] { return hookEvents(*server, "project.secret_changed", name).size() == 1; },
                 std::chrono::seconds(5)));
  ASSERT_EQ(api(a).post(path, {{"name", "FIRST"}, {"value", "2"}}).status, 201);
  EXPECT_TRUE(
      eventually([&] { return hookEvents(*server, "project.secret_changed", name).size() == 2; },
                 std::chrono::seconds(5)));
  // A refused set fires nothing.
  ASSERT_EQ(api(a).post(path, {{"name", "lower"}, {"value", "3"}}).status, 400);
  EXPECT_EQ(hookEvents(*server, "project.secret_changed", name).size(), 2u);
}

TEST_F(ApiSecrets, AnUnknownProjectIs404) {
  auto a = makeAccount(*server, "scnone");
  for (auto r : {api(a).get("/projects/none-scnone/secrets"),
                 api(a).post("/projects/none-scnone/secrets", {{"name", "X"}, {"value", "v"}}),
                 api(a).del("/projects/none-scnone/secrets/X")}) {
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(errorText(r), "no project called none-scnone");
  }
}

// ---- a server without projects.secrets_key ----------------------------------------------------

TEST(ApiSecretsWithoutAKey, EverySecretRouteAnswers501) {
  BerthdOptions options;
  options.plugins = {"projects"};
  BerthdProcess server(options);
  server.start();
  auto a = makeAccount(server, "scnokey");
  mustCreate(server.api(a.token), "web");
  const std::string path = "/projects/web-scnokey/secrets";
  auto api = server.api(a.token);
  for (auto r :
       {api.get(path), api.post(path, {{"name", "X"}, {"value", "v"}}), api.del(path + "/X")}) {
    EXPECT_EQ(r.status, 501) << r.body;
    EXPECT_EQ(errorText(r), "secrets are not configured on this server");
  }
  // The rest of the plugin works.
  EXPECT_EQ(api.get("/projects/web-scnokey").status, 200);
}
