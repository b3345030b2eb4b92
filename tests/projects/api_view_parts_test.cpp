// ctest-label: api (starts a real berthd)
// A Project's files_count, files_bytes, state and live come from whichever plugins answer the
// projects.view.v1 hook (<berth/services/projects_view.hpp>), over real HTTP, a real PostgreSQL
// and the real plugins: the projects plugin names none of them.
// - Without the storage and runtime plugins, GET /projects/{name}, GET /projects and the
//   directory's view answer every field, with its documented default (0, 0, "stopped", null);
//   one event carries every project of a list, one the project of a GET.
// - Another plugin's answer is merged (the viewparts fixture); one that breaks the contract is
//   left out, and the others still count.
// - With the storage and runtime plugins, the stored files and the live release show, for each
//   project of a list; a PATCH still answers files_count and files_bytes 0.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "support/release_upload.hpp"
#include "support/service_probe.hpp"
#include "support/tar_gz.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

// The Project of GET /projects/{name}; throws unless 200.
json getProject(const ApiClient& api, const std::string& name) {
  auto r = api.get("/projects/" + name);
  if (r.status != 200)
    throw std::runtime_error("GET /projects/" + name + ": " + std::to_string(r.status) + " " +
                             r.body);
  return r.json();
}

// Every Project of GET /projects, by name.
std::map<std::string, json> listProjects(const ApiClient& api) {
  auto r = api.get("/projects");
  if (r.status != 200)
    throw std::runtime_error("GET /projects: " + std::to_string(r.status) + " " + r.body);
  std::map<std::string, json> out;
  auto body = r.json();  // must outlive the loop
  for (const auto& p : body.at("projects")) out[p.at("name").get<std::string>()] = p;
  return out;
}

// The four fields other plugins fill in, as the Project shows them.
json partsOf(const json& project) {
  json out = json::object();
  for (const char* key : {"files_count", "files_bytes", "state", "live"}) {
    if (!project.contains(key)) return "<no " + std::string(key) + " in " + project.dump() + ">";
    out[key] = project.at(key);
  }
  return out;
}

const json kDefaults = {
    {"files_count", 0}, {"files_bytes", 0}, {"state", "stopped"}, {"live", nullptr}};

// ---- without the storage and runtime plugins ------------------------------------------------

class ViewPartsAlone : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "serviceprobe", "viewparts"};
    startServer(options);
  }
  // The ids of each projects.view.v1 event the viewparts fixture got, in order.
  static std::vector<std::set<std::string>> events() {
    auto r = server->api().get("/viewparts/events");
    if (r.status != 200) throw std::runtime_error("GET /viewparts/events: " + r.body);
    std::vector<std::set<std::string>> out;
    auto body = r.json();  // must outlive the loop
    for (const auto& e : body.at("events")) {
      auto ids = e.at("ids").get<std::vector<std::string>>();
      out.emplace_back(ids.begin(), ids.end());
    }
    return out;
  }
};

TEST_F(ViewPartsAlone, EveryAnswerShowsTheDefaults) {
  Account a = makeAccount(*server, "partsalone");
  std::vector<std::string> names;
  for (const char* label : {"one", "two", "three"})
    names.push_back(mustCreate(api(a), label)["name"]);
  EXPECT_EQ(partsOf(mustCreate(api(a), "four")), kDefaults);
  names.push_back(projectName("four", a.slug));

  auto listed = listProjects(api(a));
  ASSERT_EQ(listed.size(), 4u);
  for (const auto& name : names) {
    EXPECT_EQ(partsOf(getProject(api(a), name)), kDefaults) << name;
    ASSERT_TRUE(listed.count(name)) << name;
    EXPECT_EQ(partsOf(listed[name]), kDefaults) << name;
    json view = mustCallService(*server, "projects.directory.v1", "view",
                                {{"project_id", projectId(*server, name)}});
    EXPECT_EQ(partsOf(view), kDefaults) << name;
  }
  auto patched = api(a).patch("/projects/" + names[0], {{"cmd", "node server.js"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(partsOf(patched.json()), kDefaults);
}

TEST_F(ViewPartsAlone, OneEventPerAnswerWithEveryProjectShown) {
  Account a = makeAccount(*server, "partsevents");
  std::set<std::string> ids;
  for (const char* label : {"red", "green", "blue"}) {
    std::string name = mustCreate(api(a), label)["name"];
    ids.insert(projectId(*server, name));
  }
  size_t before = events().size();
  ASSERT_EQ(listProjects(api(a)).size(), 3u);
  auto after = events();
  ASSERT_EQ(after.size(), before + 1) << "GET /projects fired one event per project";
  EXPECT_EQ(after.back(), ids);

  std::string name = projectName("green", a.slug);
  getProject(api(a), name);
  after = events();
  ASSERT_EQ(after.size(), before + 2);
  EXPECT_EQ(after.back(), std::set<std::string>{projectId(*server, name)});

  // An account without projects asks nobody.
  Account empty = makeAccount(*server, "partsnone");
  ASSERT_EQ(listProjects(api(empty)).size(), 0u);
  EXPECT_EQ(events().size(), before + 2);
}

TEST_F(ViewPartsAlone, AnswersOfOtherPluginsAreMergedAndBrokenOnesLeftOut) {
  Account a = makeAccount(*server, "partsmerge");
  std::string seven = mustCreate(api(a), "sevenfiles")["name"];
  std::string broken = mustCreate(api(a), "brokenstate")["name"];
  std::string plain = mustCreate(api(a), "plain")["name"];
  json with_files = kDefaults;
  with_files["files_count"] = 7;
  with_files["files_bytes"] = 700;

  EXPECT_EQ(partsOf(getProject(api(a), seven)), with_files);
  EXPECT_EQ(partsOf(getProject(api(a), broken)), kDefaults);
  // In one list the broken answer costs the whole of that plugin's answer (it is one answer),
  // never the Project's shape.
  auto listed = listProjects(api(a));
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(partsOf(listed[broken]), kDefaults);
  EXPECT_EQ(partsOf(listed[plain]), kDefaults);
  EXPECT_EQ(listed[seven]["name"], seven);
  // PATCH answers files_count and files_bytes 0 whoever answers them.
  auto patched = api(a).patch("/projects/" + seven, {{"cmd", "node server.js"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(partsOf(patched.json()), kDefaults);
}

// ---- with the storage and runtime plugins ---------------------------------------------------

class ViewPartsFromPlugins : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    startServer(options);
  }
  static void putFile(const Account& a, const std::string& name, const std::string& path,
                      const std::string& body) {
    auto r = api(a).raw("POST", "/projects/" + name + "/files/" + path, body,
                        {"Content-Type: text/plain"});
    if (r.status != 200 && r.status != 201)
      throw std::runtime_error("POST files/" + path + ": " + std::to_string(r.status) + " " +
                               r.body);
  }
};

TEST_F(ViewPartsFromPlugins, StoredFilesAndTheLiveReleaseShow) {
  Account a = makeAccount(*server, "partsplugins");
  std::string shop = mustCreate(api(a), "shop")["name"];
  std::string blog = mustCreate(api(a), "blog")["name"];
  std::string idle = mustCreate(api(a), "idle")["name"];
  putFile(a, shop, "a.txt", "hello");
  putFile(a, shop, "docs/b.txt", "seven b");
  putFile(a, blog, "c.txt", "abc");
  const std::string page = "<h1>the shop</h1>";
  std::string release = deployLive(api(a), shop, tarGz({{"index.html", page}}));

  json shop_parts = {{"files_count", 2},
                     {"files_bytes", 12},
                     {"state", "stopped"},
                     {"live",
                      {{"id", release},
                       {"created_at", getProject(api(a), shop)["live"]["created_at"]},
                       {"files", 1},
                       {"bytes", page.size()}}}};
  json blog_parts = {
      {"files_count", 1}, {"files_bytes", 3}, {"state", "stopped"}, {"live", nullptr}};
  ASSERT_TRUE(shop_parts["live"]["created_at"].is_number_integer()) << shop_parts.dump();

  EXPECT_EQ(partsOf(getProject(api(a), shop)), shop_parts);
  EXPECT_EQ(partsOf(getProject(api(a), blog)), blog_parts);
  EXPECT_EQ(partsOf(getProject(api(a), idle)), kDefaults);
  auto listed = listProjects(api(a));
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(partsOf(listed[shop]), shop_parts);
  EXPECT_EQ(partsOf(listed[blog]), blog_parts);
  EXPECT_EQ(partsOf(listed[idle]), kDefaults);

  // PATCH answers files_count and files_bytes 0; the live release still shows.
  auto patched = api(a).patch("/projects/" + shop, {{"ignore_dockerfile", true}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  json patched_parts = shop_parts;
  patched_parts["files_count"] = 0;
  patched_parts["files_bytes"] = 0;
  EXPECT_EQ(partsOf(patched.json()), patched_parts);
}

}  // namespace
