// ctest-label: api (starts a real berthd)
// The API's reference over real HTTP: GET /openapi.json serves docs/openapi.yaml without a
// token, /docs is a self-contained page, and real answers of every plugin, successes and
// refusals, validate against the document's response schemas.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "isolation/hostile_tenant.hpp"
#include "projects/api_support.hpp"
#include "support/openapi_document.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
namespace isolation = berth::testing::isolation;

namespace {

class ApiReference : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "scheduler", "runtime", "sqlconsole", "templates"};
    options.extra_yaml = secretsKeyYaml();
    startServer(options);
  }
  static void TearDownTestSuite() { stopServer(); }
};

// Every request goes through here, so that its answer is checked with the others at the end.
class SampledApi {
 public:
  SampledApi(ApiClient api, AnswerSamples& samples) : api_(std::move(api)), samples_(samples) {}
  HttpResult get(const std::string& path) { return keep("GET", path, api_.get(path)); }
  HttpResult del(const std::string& path) { return keep("DELETE", path, api_.del(path)); }
  HttpResult post(const std::string& path, const nlohmann::json& body) {
    return keep("POST", path, api_.post(path, body));
  }
  HttpResult patch(const std::string& path, const nlohmann::json& body) {
    return keep("PATCH", path, api_.patch(path, body));
  }
  HttpResult put(const std::string& path, const nlohmann::json& body) {
    return keep("PUT", path,
                api_.raw("PUT", path, body.dump(), {"Content-Type: application/json"}));
  }
  HttpResult raw(const std::string& method, const std::string& path, const std::string& body,
                 std::vector<std::string> headers = {}) {
    return keep(method, path, api_.raw(method, path, body, std::move(headers)));
  }
  HttpResult keep(const std::string& method, const std::string& path, HttpResult answer) {
    samples_.add(method, path.substr(0, path.find('?')), answer);
    return answer;
  }

 private:
  ApiClient api_;
  AnswerSamples& samples_;
};

TEST_F(ApiReference, OpenApiJsonIsTheDocumentAndNeedsNoToken) {
  auto r = server->api().get("/openapi.json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("application/json", 0), 0u);
  EXPECT_EQ(r.json(), loadOpenApiDocument());
  EXPECT_EQ(r.json()["openapi"], "3.1.0");
}

TEST_F(ApiReference, DocsIsASelfContainedPage) {
  auto r = server->api().get("/docs");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  EXPECT_EQ(r.header("content-type").rfind("text/html", 0), 0u);
  EXPECT_NE(r.body.find("Berth API"), std::string::npos);
  // Its scripts are inside it: nothing is loaded from another address.
  for (const char* tag : {"<script src=", "<link rel=\"modulepreload\" href=\"http",
                          "<link rel=\"stylesheet\" href=\"http"})
    EXPECT_EQ(r.body.find(tag), std::string::npos) << tag;
}

TEST_F(ApiReference, RealAnswersMatchTheDocumentsSchemas) {
  AnswerSamples samples;
  auto a = makeAccount(*server, "refer1", "pro");
  auto b = makeAccount(*server, "refer2", "free");
  makeTeam(*server, "refcrew", a.email);
  addToTeam(*server, "refcrew", b.email, "member");
  SampledApi api(server->api(a.token), samples);
  SampledApi nobody(server->api(), samples);
  SampledApi member(server->api(b.token), samples);

  // Public routes and the refusals of the HTTP layer.
  nobody.get("/regions");
  nobody.get("/projects");  // 401
  SampledApi(server->api("bth_0000000000000000000000000000000000000000"), samples)
      .get("/me");                                    // 401, a token that is not valid
  nobody.post("/session", {{"code", "not-a-code"}});  // 400 or 401
  api.raw("POST", "/projects", "{\"name\":\"x\"}", {"Content-Type: text/plain"});  // 415
  api.post("/projects", nlohmann::json::object());                                 // 422
  api.raw("POST", "/projects", "{not json", {"Content-Type: application/json"});   // 400

  // The account.
  api.get("/me");
  auto token = api.post("/tokens", {{"name", "ci"}, {"expires_in_days", 7}});
  api.post("/tokens", {{"name", "ci"}});  // 409
  api.get("/tokens");
  api.del("/tokens/" + token.json().value("id", ""));
  api.post("/teams", {{"slug", "refnew"}});  // 201
  api.post("/teams", {{"slug", "refnew"}});  // 400, taken
  api.get("/teams");
  api.get("/teams/refcrew/members");
  member.post("/teams/refcrew/members", {{"email", a.email}, {"role", "member"}});  // 403
  api.get("/teams/nosuchteam/members");                                             // 404

  // Projects.
  auto created = api.post("/projects", {{"name", "site"}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string name = created.json().value("name", "");
  api.post("/projects", {{"name", "site"}});  // 409 with a suggestion
  api.get("/projects");
  api.get("/projects/" + name);
  api.get("/projects/nothere-refer1");  // 404
  api.patch("/projects/" + name, {{"cache_enabled", true}, {"cache_ttl", 60}});
  api.patch("/projects/" + name, {{"region", "mars"}});  // 400
  api.get("/projects/available?name=other");
  api.get("/projects/suggest?name=site");

  // Secrets and domains.
  const std::string p = "/projects/" + name;
  api.post(p + "/secrets", {{"name", "API_KEY"}, {"value", "s3cret"}});
  api.get(p + "/secrets");
  api.del(p + "/secrets/API_KEY");
  api.del(p + "/secrets/API_KEY");  // 404
  api.post(p + "/domains", {{"host", "www.refer-example.com"}});
  api.get(p + "/domains");
  api.post(p + "/domains/www.refer-example.com/verify", nlohmann::json::object());  // 400
  api.del(p + "/domains/www.refer-example.com");

  // Files.
  api.raw("POST", p + "/files/docs/hello.txt", "hello", {"Content-Type: text/plain"});
  api.get(p + "/files");
  samples.add("GET", "/_files/docs/hello.txt",
              sendToHost(server->baseUrl(), name + ".localhost", "GET", "/_files/docs/hello.txt"));
  api.del(p + "/files/docs/hello.txt");
  api.del(p + "/files/docs/hello.txt");  // 404

  // Schedules.
  auto schedule =
      api.post(p + "/schedules", {{"name", "nightly"}, {"spec", "0 3 * * *"}, {"path", "/cron"}});
  api.post(p + "/schedules", {{"name", "bad"}, {"spec", "61 * * * *"}, {"path", "/cron"}});  // 400
  const std::string schedule_id = schedule.json().value("id", "");
  api.get(p + "/schedules");
  api.get("/schedules");
  api.patch(p + "/schedules/" + schedule_id, {{"enabled", false}});
  api.get(p + "/schedules/" + schedule_id + "/runs");
  api.del(p + "/schedules/" + schedule_id);
  api.del(p + "/schedules/" + schedule_id);  // 404

  // The database.
  api.post(p + "/sql", {{"sql", "create table notes (id serial primary key, body text not null)"}});
  api.post(p + "/sql", {{"sql", "select 1"}});  // 400: only DDL here
  api.post(p + "/query", {{"sql", "insert into notes (body) values ('a'), ('b') returning id"}});
  api.post(p + "/query", {{"sql", "select * from notes"}});
  api.post(p + "/query", {{"sql", "select * from nowhere"}});  // 400
  api.post(
      p + "/batch",
      {{"statements",
        {"insert into notes (body) values ('c')", "update notes set body = 'd' where id = 1"}}});
  api.get(p + "/tables");
  api.get(p + "/views");
  api.get(p + "/indexes");
  api.get(p + "/tables/notes/rows?limit=2");
  api.post(p + "/tables/notes/rows", {{"body", "e"}});
  api.patch(p + "/tables/notes/rows?id=eq.1", {{"body", "f"}});
  api.raw("DELETE", p + "/tables/notes/rows?id=eq.2", "");
  api.raw("DELETE", p + "/tables/notes/rows", "");  // 400: a delete needs a filter
  api.get(p + "/tables/nothere/rows");              // 400
  api.get(p + "/export?format=json");
  api.get(p + "/backup");
  api.raw("POST", p + "/import", "insert into notes (body) values ('g');",
          {"Content-Type: application/sql"});

  // The browser data API and its settings.
  auto settings = api.get(p + "/data-api");
  api.put(p + "/data-api/tables/notes", {{"read", true}});
  api.put(p + "/data-api/functions/nothere", {{"enabled", true}});  // 400 or 404
  const std::string key = settings.json().value("key", "");
  samples.add("GET", "/_data/notes",
              sendToHost(server->baseUrl(), name + ".localhost", "GET", "/_data/notes?select=id",
                         {"apikey: " + key}));
  samples.add("GET", "/_data/notes",
              sendToHost(server->baseUrl(), name + ".localhost", "GET", "/_data/notes"));  // 401
  api.post(p + "/data-api/key", nlohmann::json::object());

  // Releases, the app and its logs.
  api.get(p + "/deploys");
  api.get("/deploys");
  api.get(p + "/deploys/00000000-0000-0000-0000-000000000000");  // 404
  auto release = api.raw("POST", p + "/deploys",
                         isolation::TarBuilder().file("index.html", "<h1>hi</h1>").finish(),
                         {"Content-Type: application/gzip"});
  const std::string release_id = release.json().value("id", "");
  for (int i = 0;
       i < 600 && isolation::releaseStatus(server->api(a.token), name, release_id) == "building";
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(api.get(p + "/deploys/" + release_id).json().value("status", ""), "live");
  api.raw("POST", p + "/deploys/" + release_id + "/promote", "");
  auto page = sendToHost(server->baseUrl(), name + ".localhost", "GET", "/");
  EXPECT_EQ(page.body, "<h1>hi</h1>");
  samples.add("GET", "/", page);
  api.del(p + "/cache");
  api.get(p + "/logs?limit=5");
  api.get(p + "/logs?after=0");
  api.get(p + "/logs?limit=nope");  // 400

  // App templates.
  nobody.get("/app-templates");
  api.post(p + "/app-templates/ghost/install", nlohmann::json::object());    // 400
  api.post(p + "/app-templates/nothing/install", nlohmann::json::object());  // 404
  api.get(p + "/app-templates/ghost/install");                               // 404

  // Last, the account's own refusals and the project's removal.
  member.del(p);  // 404: not the member's project
  api.del(p);
  api.del(p);  // 404

  ASSERT_GT(samples.size(), 80u);
  auto report = samples.check(server->api().get("/openapi.json").json());
  EXPECT_TRUE(report.ok) << report.text;
  std::cout << report.text;
}

}  // namespace
