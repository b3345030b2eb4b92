// ctest-label: api (starts a real berthd)
// The projects plugin over real HTTP, through berthd's edge: a new project as docs/openapi.yaml
// describes it, the name rules with their texts, conflicts and suggestions, the list and one
// project, /projects/available and /projects/suggest, PATCH and its refusals, delete, plan
// limits, the creation throttle, and the hooks the plugin fires (seen through the projecthooks
// fixture).
#include <gtest/gtest.h>

#include <cctype>
#include <regex>

#include "api_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

const std::string kTooFast =
    "Projects are being created too quickly on this account. Wait a moment and try again.";

std::string tooLong(const std::string& slug) {
  return "that name is too long: with your account's suffix -" + slug +
         " it must fit in 63 characters, so at most " + std::to_string(63 - 1 - slug.size()) +
         " characters";
}

// A project without the fields that may change on their own (db_bytes is refreshed by a job).
json stable(json project) {
  project.erase("db_bytes");
  return project;
}

// Retry-After as a number; -1 when it is not a positive whole number of seconds.
int retryAfter(const HttpResult& r) {
  std::string v = r.header("retry-after");
  if (v.empty() || v.size() > 6 || !std::all_of(v.begin(), v.end(), ::isdigit)) return -1;
  int n = std::stoi(v);
  return n > 0 ? n : -1;
}

class ApiProjects : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    // The runtime's start-command rules check a cmd (projects.cmd_change.v1) and name its
    // runtime (projects.view.v1).
    options.plugins = {"projects", "projecthooks", "storage", "runtime"};
    startServer(options);
  }
  static void TearDownTestSuite() { dropServer(); }
  static ApiClient api(const Account& a) { return server->api(a.token); }
  static std::string url(const std::string& host) {
    return "http://" + host + ":" + std::to_string(server->port());
  }
};

}  // namespace

// ---- create ------------------------------------------------------------------------------------

TEST_F(ApiProjects, CreateAnswersANewProjectAsTheSpecDescribesIt) {
  auto a = makeAccount(*server, "newone", "free");
  int64_t before = nowSeconds();
  auto r = api(a).post("/projects", {{"name", "blog"}});
  int64_t after = nowSeconds();
  ASSERT_EQ(r.status, 201) << r.body << r.error;
  EXPECT_EQ(r.header("content-type"), "application/json");
  auto p = r.json();
  EXPECT_EQ(p["name"], "blog-newone");
  EXPECT_EQ(p["label"], "blog");
  EXPECT_EQ(p["host"], "blog-newone.localhost");
  EXPECT_EQ(p["url"], url("blog-newone.localhost"));
  EXPECT_EQ(p["state"], "stopped");
  EXPECT_EQ(p["cmd"], "");
  EXPECT_EQ(p["cache_enabled"], true);
  EXPECT_EQ(p["cache_ttl"], 60);
  EXPECT_EQ(p["region"], "us-central");
  EXPECT_EQ(p["ignore_dockerfile"], false);
  ASSERT_TRUE(p.contains("runtime")) << p.dump();
  EXPECT_TRUE(p["runtime"].is_null()) << p.dump();
  EXPECT_EQ(p["db_bytes"], 0);
  EXPECT_EQ(p["files_count"], 0);
  EXPECT_EQ(p["files_bytes"], 0);
  ASSERT_TRUE(p.contains("live")) << p.dump();
  EXPECT_TRUE(p["live"].is_null()) << p.dump();
  ASSERT_TRUE(p.contains("team")) << p.dump();
  EXPECT_TRUE(p["team"].is_null()) << p.dump();
  ASSERT_TRUE(p["owner"].is_object()) << p.dump();
  EXPECT_EQ(p["owner"]["email"], a.email);
  EXPECT_EQ(p["owner"]["slug"], "newone");
  ASSERT_TRUE(p["owner"]["id"].is_string()) << p.dump();
  EXPECT_FALSE(p["owner"]["id"].get<std::string>().empty());
  ASSERT_TRUE(p["created_at"].is_number_integer()) << p.dump();
  EXPECT_GE(p["created_at"].get<int64_t>(), before - 120);
  EXPECT_LE(p["created_at"].get<int64_t>(), after + 120);

  auto g = api(a).get("/projects/blog-newone");
  ASSERT_EQ(g.status, 200) << g.body;
  EXPECT_EQ(stable(g.json()), stable(p));
}

TEST_F(ApiProjects, NamesAreTrimmedAndLowerCased) {
  auto a = makeAccount(*server, "trimmer");
  auto p = mustCreate(api(a), "  My-Blog2  ");
  EXPECT_EQ(p["label"], "my-blog2");
  EXPECT_EQ(p["name"], "my-blog2-trimmer");
  EXPECT_EQ(p["host"], "my-blog2-trimmer.localhost");
  EXPECT_EQ(api(a).get("/projects/my-blog2-trimmer").status, 200);
}

TEST_F(ApiProjects, NameRulesAreCheckedWithTheirTexts) {
  auto a = makeAccount(*server, "rulesa");
  for (std::string name : {"", "   ", "a", " A ", "7"}) {
    auto r = createProject(api(a), name);
    EXPECT_EQ(r.status, 400) << "'" << name << "': " << r.body;
    EXPECT_EQ(errorText(r), "a project name needs at least 2 characters") << "'" << name << "'";
  }
  for (std::string name :
       {"my_blog", "my blog", "blog!", "my.blog", "bl\xc3\xb6g", "MY_BLOG", "blog/x", "blog+x"}) {
    auto r = createProject(api(a), name);
    EXPECT_EQ(r.status, 400) << "'" << name << "': " << r.body;
    EXPECT_EQ(errorText(r),
              "a project name may contain only lower-case letters, digits and hyphens")
        << "'" << name << "'";
  }
  for (std::string name : {"-blog", "blog-", "--", " -x9 "}) {
    auto r = createProject(api(a), name);
    EXPECT_EQ(r.status, 400) << "'" << name << "': " << r.body;
    EXPECT_EQ(errorText(r), "a project name cannot start or end with a hyphen")
        << "'" << name << "'";
  }
  // Two characters are enough, digits and inner hyphens are fine.
  EXPECT_EQ(mustCreate(api(a), "ab")["name"], "ab-rulesa");
  EXPECT_EQ(mustCreate(api(a), "4x-b-9")["name"], "4x-b-9-rulesa");
  // Nothing refused was made.
  EXPECT_EQ(listedNames(api(a)), (std::vector<std::string>{"4x-b-9-rulesa", "ab-rulesa"}));
}

TEST_F(ApiProjects, NameLengthLimitFollowsTheAccountsSlug) {
  for (std::string slug : {"four", "lenchk", "twelvechars1"}) {
    auto a = makeAccount(*server, slug);
    size_t most = 63 - 1 - slug.size();
    auto r = createProject(api(a), std::string(most + 1, 'x'));
    EXPECT_EQ(r.status, 400) << slug << ": " << r.body;
    EXPECT_EQ(errorText(r), tooLong(slug));
    auto p = mustCreate(api(a), std::string(most, 'x'));
    EXPECT_EQ(p["name"].get<std::string>().size(), 63u) << p.dump();
    EXPECT_EQ(p["name"], std::string(most, 'x') + "-" + slug);
  }
}

TEST_F(ApiProjects, ReservedNamesAreRefused) {
  auto a = makeAccount(*server, "reserve1");
  for (std::string name : {"api", "www", "admin", "app", "mail", "static", "assets", "status"}) {
    auto r = createProject(api(a), name);
    EXPECT_EQ(r.status, 400) << name << ": " << r.body;
    EXPECT_EQ(errorText(r), name + " is reserved by the platform");
  }
  auto r = createProject(api(a), " API ");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), "api is reserved by the platform");
  // Only the names themselves are reserved.
  mustCreate(api(a), "apis");
  mustCreate(api(a), "my-admin");
}

TEST_F(ApiProjects, NamesAreUniqueOnlyWithinAnAccount) {
  auto a = makeAccount(*server, "uniqa");
  auto b = makeAccount(*server, "uniqb");
  EXPECT_EQ(mustCreate(api(a), "blog")["name"], "blog-uniqa");
  EXPECT_EQ(mustCreate(api(b), "blog")["name"], "blog-uniqb");
  EXPECT_EQ(api(a).get("/projects/blog-uniqa").json()["owner"]["email"], a.email);
  EXPECT_EQ(api(b).get("/projects/blog-uniqb").json()["owner"]["email"], b.email);
}

TEST_F(ApiProjects, ATakenNameIs409WithASuggestionThatCanBeCreated) {
  auto a = makeAccount(*server, "dupes1");
  mustCreate(api(a), "shop");
  for (std::string again : {"shop", "  SHOP "}) {
    auto r = createProject(api(a), again);
    ASSERT_EQ(r.status, 409) << r.body;
    EXPECT_EQ(errorText(r), "you already have a project called shop");
    ASSERT_TRUE(r.json()["suggestion"].is_string()) << r.body;
  }
  std::string suggestion = createProject(api(a), "shop").json()["suggestion"];
  EXPECT_NE(suggestion, "shop");
  EXPECT_FALSE(suggestion.empty());
  auto p = mustCreate(api(a), suggestion);
  EXPECT_EQ(p["label"], suggestion);
  EXPECT_EQ(p["name"], suggestion + "-dupes1");

  // At the length limit the suggestion is shortened so that it still fits.
  std::string longest(63 - 1 - 6, 'q');
  mustCreate(api(a), longest);
  auto r = createProject(api(a), longest);
  ASSERT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(errorText(r), "you already have a project called " + longest);
  std::string short_enough = r.json().value("suggestion", "");
  EXPECT_LE(short_enough.size(), longest.size());
  EXPECT_NE(short_enough, longest);
  EXPECT_EQ(mustCreate(api(a), short_enough)["label"], short_enough);
}

TEST_F(ApiProjects, BodyErrorsComeFromTheHttpLayer) {
  auto a = makeAccount(*server, "bodies1");
  auto r = api(a).post("/projects", json::object());
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "missing field: name");
  r = api(a).post("/projects", {{"name", 5}});
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "field name must be a string");
  r = api(a).post("/projects", {{"name", "fine"}, {"team", 5}});
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body, "field team must be a string");
  r = api(a).raw("POST", "/projects", R"({"name":"fine"})", {"Content-Type: text/plain"});
  EXPECT_EQ(r.status, 415);
  r = api(a).raw("POST", "/projects", R"({"name":)", {"Content-Type: application/json"});
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(listedNames(api(a)).empty());
}

// ---- list and get ------------------------------------------------------------------------------

TEST_F(ApiProjects, TheListIsSortedByNameAndHoldsOwnAndTeamProjects) {
  auto lister = makeAccount(*server, "lister");
  auto other = makeAccount(*server, "other1");
  makeTeam(*server, "listteam", other.email);
  addToTeam(*server, "listteam", lister.email, "member");
  for (std::string label : {"zeta", "alpha", "mid"}) mustCreate(api(lister), label);
  mustCreate(api(other), "beta");
  EXPECT_EQ(mustCreate(api(other), "crew", "listteam")["name"], "crew-listteam");

  auto r = api(lister).get("/projects");
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<std::string> names;
  auto listed = r.json();
  for (const auto& p : listed["projects"]) {
    names.push_back(p["name"]);
    EXPECT_EQ(p["host"], p["name"].get<std::string>() + ".localhost") << p.dump();
    EXPECT_TRUE(p.contains("cache_ttl") && p.contains("region") && p.contains("owner")) << p.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"alpha-lister", "crew-listteam", "mid-lister",
                                             "zeta-lister"}))
      << r.body;

  auto others = listedNames(api(other));
  EXPECT_EQ(others, (std::vector<std::string>{"beta-other1", "crew-listteam"}));
}

TEST_F(ApiProjects, GetAnswersOneProjectOr404) {
  auto a = makeAccount(*server, "getter1");
  auto created = mustCreate(api(a), "one");
  auto r = api(a).get("/projects/one-getter1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(stable(r.json()), stable(created));
  r = api(a).get("/projects/nothing-getter1");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called nothing-getter1");
  r = api(a).get("/projects/one");  // the label is not the name
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called one");
}

// ---- available and suggest ---------------------------------------------------------------------

TEST_F(ApiProjects, AvailableAnswersForFreeTakenAndRefusedNames) {
  auto a = makeAccount(*server, "avail1");
  mustCreate(api(a), "taken");

  auto r = api(a).get("/projects/available?name=fresh");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(
      r.json(),
      (json{{"available", true}, {"suggestion", "fresh"}, {"host", "fresh-avail1.localhost"}}));

  r = api(a).get("/projects/available?name=taken");
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = r.json();
  EXPECT_EQ(j["available"], false);
  ASSERT_TRUE(j["suggestion"].is_string()) << r.body;
  std::string suggestion = j["suggestion"];
  EXPECT_NE(suggestion, "taken");
  EXPECT_EQ(j["host"], suggestion + "-avail1.localhost");
  EXPECT_EQ(mustCreate(api(a), suggestion)["host"], j["host"]);

  struct Refused {
    std::string name, problem;
  };
  for (const auto& [name, problem] : std::vector<Refused>{
           {"a", "a project name needs at least 2 characters"},
           {"my_blog", "a project name may contain only lower-case letters, digits and hyphens"},
           {"blog-", "a project name cannot start or end with a hyphen"},
           {std::string(63 - 1 - 6 + 1, 'z'), tooLong("avail1")},
           {"status", "status is reserved by the platform"}}) {
    r = api(a).get("/projects/available?name=" + name);
    ASSERT_EQ(r.status, 200) << name << ": " << r.body;
    EXPECT_EQ(r.json()["available"], false) << name;
    EXPECT_EQ(r.json()["problem"], problem) << name;
  }

  r = api(a).get("/projects/available");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "the name parameter is required");

  // Another account may still take it.
  auto b = makeAccount(*server, "avail2");
  r = api(b).get("/projects/available?name=taken");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["available"], true);
  EXPECT_EQ(r.json()["host"], "taken-avail2.localhost");
}

TEST_F(ApiProjects, SuggestGivesTwoWordsAndANumberNotInUse) {
  auto a = makeAccount(*server, "suggest1");
  const std::regex shape("^[a-z]+-[a-z]+-[0-9]+$");
  std::vector<std::string> mine;
  for (int i = 0; i < 8; ++i) {
    auto r = api(a).get("/projects/suggest");
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_TRUE(r.json()["name"].is_string()) << r.body;
    std::string name = r.json()["name"];
    EXPECT_TRUE(std::regex_match(name, shape)) << name;
    EXPECT_FALSE(contains(mine, name)) << name << " is already one of the caller's projects";
    if (i < 2) {  // take the first two, so later suggestions must avoid them
      EXPECT_EQ(mustCreate(api(a), name)["name"], name + "-suggest1");
      mine.push_back(name);
    }
  }
  EXPECT_EQ(server->api().get("/projects/suggest").status, 401);
}

// ---- PATCH -------------------------------------------------------------------------------------

TEST_F(ApiProjects, PatchChangesOnlyTheFieldsSent) {
  auto a = makeAccount(*server, "patch1");
  json expected = mustCreate(api(a), "web");
  const std::string path = "/projects/web-patch1";
  auto patch = [&](const json& body) {
    auto r = api(a).patch(path, body);
    EXPECT_EQ(r.status, 200) << body.dump() << ": " << r.body;
    return r.json();
  };
  struct Step {
    json body;
    json changes;
  };
  for (const auto& step : std::vector<Step>{
           {{{"region", "eu-west"}}, {{"region", "eu-west"}}},
           {{{"cmd", "node server.js"}}, {{"cmd", "node server.js"}, {"runtime", "Node"}}},
           {{{"ignore_dockerfile", true}}, {{"ignore_dockerfile", true}}},
           {{{"cache_enabled", false}}, {{"cache_enabled", false}}},
           {{{"cache_ttl", 0}}, {{"cache_ttl", 0}}},
           {{{"cache_ttl", 31536000}}, {{"cache_ttl", 31536000}}},
           {json::object(), json::object()},
           {{{"region", "ap-south"}, {"cache_ttl", 120}, {"cache_enabled", true}},
            {{"region", "ap-south"}, {"cache_ttl", 120}, {"cache_enabled", true}}},
           {{{"ignore_dockerfile", false}}, {{"ignore_dockerfile", false}}},
       }) {
    expected.update(step.changes);
    auto p = patch(step.body);
    EXPECT_EQ(stable(p), stable(expected)) << "after PATCH " << step.body.dump();
    EXPECT_EQ(p["files_count"], 0);
    EXPECT_EQ(p["files_bytes"], 0);
  }
  auto g = api(a).get(path);
  ASSERT_EQ(g.status, 200);
  EXPECT_EQ(stable(g.json()), stable(expected));
}

TEST_F(ApiProjects, PatchAcceptsEveryRegion) {
  auto a = makeAccount(*server, "regions1");
  mustCreate(api(a), "roam");
  for (std::string region :
       {"us-central", "us-east", "us-west", "ca-central", "sa-east", "eu-west", "eu-central",
        "eu-north", "uk-south", "ap-south", "ap-southeast", "ap-northeast", "au-southeast"}) {
    auto r = api(a).patch("/projects/roam-regions1", {{"region", region}});
    EXPECT_EQ(r.status, 200) << region << ": " << r.body;
    EXPECT_EQ(r.json()["region"], region);
  }
}

TEST_F(ApiProjects, PatchRefusesBadValuesAndChangesNothing) {
  auto a = makeAccount(*server, "patch2");
  mustCreate(api(a), "svc");
  const std::string path = "/projects/svc-patch2";
  ASSERT_EQ(api(a).patch(path, {{"cmd", "node server.js"}}).status, 200);
  auto before = api(a).get(path).json();

  for (std::string region : {"mars-1", "eu", "US-CENTRAL"}) {
    auto r = api(a).patch(path, {{"region", region}});
    EXPECT_EQ(r.status, 400) << region << ": " << r.body;
    EXPECT_EQ(errorText(r), "unknown region " + region);
  }
  for (char c : std::string("|&;<>`()'\"*")) {
    std::string cmd = "node server.js " + std::string(1, c) + " x";
    auto r = api(a).patch(path, {{"cmd", cmd}});
    EXPECT_EQ(r.status, 400) << cmd << ": " << r.body;
    EXPECT_EQ(errorText(r),
              "the start command is run directly, not through a shell, so it cannot contain " +
                  std::string(1, c))
        << cmd;
  }
  for (std::string cmd : {"PORT=3000 node server.js", "NODE_ENV=production npm start"}) {
    auto r = api(a).patch(path, {{"cmd", cmd}});
    EXPECT_EQ(r.status, 400) << cmd << ": " << r.body;
    EXPECT_EQ(errorText(r),
              "the start command is run directly, so it cannot begin with an assignment like "
              "NAME=value; set a secret instead")
        << cmd;
  }
  auto r = api(a).patch(path, {{"cmd", "node a.js\nnode b.js"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), "the start command must be one line");
  for (int64_t ttl : {int64_t{-1}, int64_t{31536001}, int64_t{-31536000}}) {
    r = api(a).patch(path, {{"cache_ttl", ttl}});
    EXPECT_EQ(r.status, 400) << ttl << ": " << r.body;
    EXPECT_EQ(errorText(r), "cache_ttl must be between 0 and 31536000") << ttl;
  }
  auto after = api(a).get(path).json();
  EXPECT_EQ(stable(after), stable(before));
  EXPECT_EQ(after["cmd"], "node server.js");

  r = api(a).patch("/projects/nothing-patch2", {{"cmd", "node x.js"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called nothing-patch2");
}

TEST_F(ApiProjects, PatchWithAWrongTypeIs422PlainText) {
  auto a = makeAccount(*server, "patch3");
  mustCreate(api(a), "typed");
  const std::string path = "/projects/typed-patch3";
  auto before = api(a).get(path).json();
  struct Wrong {
    json body;
    std::string text;
  };
  for (const auto& [body, text] : std::vector<Wrong>{
           {{{"region", 5}}, "field region must be a string"},
           {{{"cmd", true}}, "field cmd must be a string"},
           {{{"ignore_dockerfile", "yes"}}, "field ignore_dockerfile must be a boolean"},
           {{{"cache_enabled", 1}}, "field cache_enabled must be a boolean"},
           {{{"cache_ttl", "60"}}, "field cache_ttl must be an integer"},
           {{{"cache_ttl", 1.5}}, "field cache_ttl must be an integer"},
       }) {
    auto r = api(a).patch(path, body);
    EXPECT_EQ(r.status, 422) << body.dump() << ": " << r.body;
    EXPECT_EQ(r.body, text) << body.dump();
  }
  EXPECT_EQ(stable(api(a).get(path).json()), stable(before));
}

TEST_F(ApiProjects, RuntimeIsGuessedFromTheCommand) {
  auto a = makeAccount(*server, "runtime1");
  mustCreate(api(a), "guess");
  const std::string path = "/projects/guess-runtime1";
  struct Case {
    std::string cmd;
    json runtime;
  };
  for (const auto& [cmd, runtime] : std::vector<Case>{
           {"node server.js", "Node"},
           {"python3 app.py", "Python"},
           {"python app.py", "Python"},
           {"./my-server --port 8080", nullptr},
           {"node index.js", "Node"},
           {"", nullptr},
       }) {
    auto r = api(a).patch(path, {{"cmd", cmd}});
    ASSERT_EQ(r.status, 200) << cmd << ": " << r.body;
    EXPECT_EQ(r.json()["cmd"], cmd);
    ASSERT_TRUE(r.json().contains("runtime")) << r.body;
    EXPECT_EQ(r.json()["runtime"], runtime) << cmd;
    EXPECT_EQ(api(a).get(path).json()["runtime"], runtime) << cmd;
  }
}

// ---- delete ------------------------------------------------------------------------------------

TEST_F(ApiProjects, DeleteIs204ThenTheProjectIsGoneAndItsNameFree) {
  auto a = makeAccount(*server, "delete1");
  mustCreate(api(a), "gone");
  mustCreate(api(a), "stays");
  auto r = api(a).del("/projects/gone-delete1");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.body, "");
  r = api(a).get("/projects/gone-delete1");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called gone-delete1");
  r = api(a).del("/projects/gone-delete1");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called gone-delete1");
  EXPECT_EQ(listedNames(api(a)), std::vector<std::string>{"stays-delete1"});
  auto available = api(a).get("/projects/available?name=gone").json();
  EXPECT_EQ(available["available"], true) << available.dump();
  auto again = mustCreate(api(a), "gone");
  EXPECT_EQ(again["name"], "gone-delete1");
  EXPECT_EQ(again["cmd"], "");
}

// ---- plans -------------------------------------------------------------------------------------

TEST_F(ApiProjects, TheFreePlanAllowsThreeProjects) {
  auto a = makeAccount(*server, "freeplan", "free");
  for (std::string label : {"one", "two", "three"}) mustCreate(api(a), label);
  auto r = createProject(api(a), "four");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r),
            "your plan (free) allows 3 projects; delete one or move to a larger plan");
  EXPECT_EQ(listedNames(api(a)).size(), 3u);
  ASSERT_EQ(api(a).del("/projects/two-freeplan").status, 204);
  EXPECT_EQ(mustCreate(api(a), "four")["name"], "four-freeplan");
  r = createProject(api(a), "five");
  EXPECT_EQ(r.status, 403) << r.body;
}

TEST_F(ApiProjects, TheTwoHighestPlansAreNotLimited) {
  auto pro = makeAccount(*server, "proplan", "pro");
  for (int i = 1; i <= 5; ++i) mustCreate(api(pro), "p" + std::to_string(i));
  EXPECT_EQ(listedNames(api(pro)).size(), 5u);
  auto scale = makeAccount(*server, "scaleplan", "scale");
  for (int i = 1; i <= 5; ++i) mustCreate(api(scale), "s" + std::to_string(i));
  EXPECT_EQ(listedNames(api(scale)).size(), 5u);
}

// ---- throttle ----------------------------------------------------------------------------------

TEST_F(ApiProjects, CreationIsThrottledAfterABurstOfEight) {
  auto a = makeAccount(*server, "throttle1");
  // Requests refused by the name rules do not use up the burst.
  for (std::string bad : {"a", "b", "-c-", "api", "d_e", "f", "g", "h", "i", "j"})
    ASSERT_EQ(createProject(api(a), bad).status, 400) << bad;

  auto start = std::chrono::steady_clock::now();
  for (int i = 1; i <= 8; ++i) mustCreate(api(a), "burst" + std::to_string(i));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  HttpResult refused;
  int extra = 0;
  // One token comes back every 5 seconds: when the eight took less than that, the ninth must be
  // refused; on a very slow machine a few more may pass first.
  int allowed_extra = elapsed < 4.0 ? 0 : static_cast<int>(elapsed / 5.0) + 1;
  for (int i = 9; i < 9 + 20; ++i) {
    refused = createProject(api(a), "burst" + std::to_string(i));
    if (refused.status != 201) break;
    ++extra;
  }
  EXPECT_LE(extra, allowed_extra) << "the eight creates took " << elapsed << " s";
  ASSERT_EQ(refused.status, 429) << refused.body;
  EXPECT_EQ(errorText(refused), kTooFast);
  int retry = retryAfter(refused);
  EXPECT_GE(retry, 1) << "Retry-After: '" << refused.header("retry-after") << "'";
  EXPECT_LE(retry, 5) << "Retry-After: '" << refused.header("retry-after") << "'";

  // The name rules are still answered first.
  auto r = createProject(api(a), "x");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), "a project name needs at least 2 characters");
  // The throttle is per account.
  auto b = makeAccount(*server, "throttle2");
  EXPECT_EQ(createProject(api(b), "burst1").status, 201);
}

TEST_F(ApiProjects, ThePlanLimitIsCheckedBeforeTheThrottle) {
  auto a = makeAccount(*server, "throttle3", "free");
  for (std::string label : {"one", "two", "three"}) mustCreate(api(a), label);
  // Ten refusals for the plan: none of them uses up the burst, so none becomes a 429.
  for (int i = 0; i < 10; ++i) {
    auto r = createProject(api(a), "more" + std::to_string(i));
    EXPECT_EQ(r.status, 403) << i << ": " << r.body;
    EXPECT_EQ(errorText(r),
              "your plan (free) allows 3 projects; delete one or move to a larger plan");
  }
  ASSERT_EQ(api(a).del("/projects/one-throttle3").status, 204);
  EXPECT_EQ(createProject(api(a), "four").status, 201);
}

// ---- hooks -------------------------------------------------------------------------------------

TEST_F(ApiProjects, HooksFireOnCreateAndDelete) {
  auto a = makeAccount(*server, "hooks1");
  mustCreate(api(a), "hooked");
  const std::string name = "hooked-hooks1";
  EXPECT_TRUE(eventually([&] { return hookEvents(*server, "project.created", name).size() == 1; },
                         std::chrono::seconds(5)));
  EXPECT_TRUE(hookEvents(*server, "project.deleting", name).empty());
  ASSERT_EQ(api(a).del("/projects/" + name).status, 204);
  EXPECT_TRUE(eventually([&] { return hookEvents(*server, "project.deleted", name).size() == 1; },
                         std::chrono::seconds(5)));
  EXPECT_EQ(hookEvents(*server, "project.deleting", name).size(), 1u);
  EXPECT_EQ(hookEvents(*server, "project.created", name).size(), 1u);
}

TEST_F(ApiProjects, ADeleteRefusedByAHookIs502AndKeepsTheProject) {
  auto a = makeAccount(*server, "keeper1");
  auto databases_before = databasesOnCluster();
  mustCreate(api(a), "keepme-site");
  const std::string name = "keepme-site-keeper1";
  auto made = added(databases_before, databasesOnCluster());
  ASSERT_EQ(made.size(), 1u) << "one database per project";

  for (int attempt = 0; attempt < 2; ++attempt) {
    auto r = api(a).del("/projects/" + name);
    EXPECT_EQ(r.status, 502) << r.body;
    EXPECT_EQ(errorText(r), "object storage did not confirm removal");
  }
  EXPECT_EQ(api(a).get("/projects/" + name).status, 200);
  EXPECT_TRUE(contains(listedNames(api(a)), name));
  EXPECT_EQ(databasesOnCluster().count(*made.begin()), 1u) << "the project's database went";
  EXPECT_EQ(hookEvents(*server, "project.deleting", name).size(), 2u);
  EXPECT_TRUE(hookEvents(*server, "project.deleted", name).empty());
  // The name is still taken.
  EXPECT_EQ(createProject(api(a), "keepme-site").status, 409);
}

// ---- the throttle's refill, on a server that refills every second ------------------------------

namespace {

class ApiProjectsRefill : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects"};
    options.extra_yaml = "projects:\n  creation_refill_seconds: 1\n";
    startServer(options);
  }
  static void TearDownTestSuite() { dropServer(); }
};

}  // namespace

TEST_F(ApiProjectsRefill, AfterRetryAfterSecondsACreateSucceedsAgain) {
  auto a = makeAccount(*server, "refill1");
  auto api = server->api(a.token);
  int created = 0;
  HttpResult refused;
  for (int i = 1; i <= 40; ++i) {
    refused = createProject(api, "r" + std::to_string(i));
    if (refused.status != 201) break;
    ++created;
  }
  ASSERT_EQ(refused.status, 429) << refused.body;
  EXPECT_GE(created, 8);
  EXPECT_EQ(errorText(refused), kTooFast);
  int retry = retryAfter(refused);
  ASSERT_GE(retry, 1) << "Retry-After: '" << refused.header("retry-after") << "'";
  EXPECT_LE(retry, 1) << "one token a second";
  std::this_thread::sleep_for(std::chrono::seconds(retry));
  auto r = createProject(api, "after-wait");
  EXPECT_EQ(r.status, 201) << r.body;
}
