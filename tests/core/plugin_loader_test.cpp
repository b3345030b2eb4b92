// Loading real plugin libraries: the refusals (with what was expected and found), dependency
// order, and the hello example end to end through the router.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <libpq-fe.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <future>

#include <nlohmann/json.hpp>

#include "plugin/loader.hpp"
#include "plugin/plugin_manager.hpp"

namespace berth::core {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;

const std::string kFixtures = BERTH_TEST_FIXTURE_PLUGIN_DIR;

// The message loadAll refuses with, or "(loaded)" when it did not.
std::string loadFailure(const std::vector<std::string>& ids) {
  Router router;
  PluginManager manager(CoreParts{});
  try {
    manager.loadAll(kFixtures, ids, router);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(PluginLoader, MissingLibraryNamesThePath) {
  EXPECT_EQ(loadFailure({"nosuch"}),
            "plugin nosuch: no library at " + kFixtures + "/libberth_nosuch.so");
}

// A scratch plugin folder holding one file under a plugin's name.
class ScratchPluginDir {
 public:
  ScratchPluginDir() {
    char pattern[] = "/tmp/berth-plugins-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  ~ScratchPluginDir() { std::filesystem::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  void put(const std::string& id, const std::string& source_file) const {
    std::filesystem::copy_file(source_file, dir_ + "/libberth_" + id + ".so");
  }
  void write(const std::string& id, const std::string& content) const {
    std::ofstream(dir_ + "/libberth_" + id + ".so") << content;
  }

 private:
  std::string dir_;
};

TEST(PluginLoader, LibraryWithoutTheMagicIsNotAPlugin) {
  // libpq is a real shared library that certainly is not a Berth plugin.
  Dl_info found{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&PQlibVersion), &found), 0);
  ScratchPluginDir scratch;
  scratch.put("libpq", found.dli_fname);
  Router router;
  PluginManager manager(CoreParts{});
  try {
    manager.loadAll(scratch.dir(), {"libpq"}, router);
    FAIL() << "libpq loaded as a plugin";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "plugin libpq: " + scratch.dir() +
                                         "/libberth_libpq.so is not a Berth plugin (no "
                                         "berth_plugin_info_v1)");
  }
}

TEST(PluginLoader, FileThatIsNoLibrarySaysWhyItCannotLoad) {
  ScratchPluginDir scratch;
  scratch.write("text", "not an ELF file\n");
  Router router;
  PluginManager manager(CoreParts{});
  try {
    manager.loadAll(scratch.dir(), {"text"}, router);
    FAIL() << "a text file loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), StartsWith("plugin text: cannot load " + scratch.dir()));
    EXPECT_THAT(e.what(), HasSubstr("libberth_text.so: "));  // dlerror's own words follow
  }
}

TEST(PluginLoader, WrongAbiSaysExpectedAndFound) {
  const std::string ours = std::to_string(BERTH_ABI_MAJOR) + "." + std::to_string(BERTH_ABI_MINOR);
  EXPECT_THAT(loadFailure({"wrongabi"}),
              AllOf(StartsWith("plugin wrongabi: built for Berth ABI 999."),
                    HasSubstr("this berthd speaks " + ours)));
}

TEST(PluginLoader, APluginBuiltForAnOlderMinorLoadsAndStarts) {
  ASSERT_GE(BERTH_ABI_MINOR, 1u);  // the fixture says 1.0
  Router router;
  PluginManager manager(CoreParts{});
  manager.loadAll(kFixtures, {"oldminor"}, router);
  EXPECT_THAT(manager.loadedIds(), ElementsAre("oldminor"));
  manager.startAll();
  manager.stopAll();
}

TEST(PluginLoader, LibraryWithAnotherIdIsRefused) {
  EXPECT_EQ(loadFailure({"badid"}), "plugin badid: the library says its id is notbadid");
}

TEST(PluginLoader, DependencyThatIsNotEnabledIsRefused) {
  EXPECT_EQ(loadFailure({"needsmissing"}),
            "plugin needsmissing needs plugin nosuchplugin, which is not enabled");
}

TEST(PluginLoader, SameIdTwiceIsRefused) {
  EXPECT_THAT(loadFailure({"hello", "hello"}), HasSubstr("plugin hello is enabled twice"));
}

TEST(PluginLoader, InvalidIdNeverBecomesAPath) {
  EXPECT_THAT(loadFailure({"../hello"}), HasSubstr("not a plugin id"));
}

TEST(PluginLoader, TwoPluginsClaimingOneRouteNameBoth) {
  EXPECT_THAT(loadFailure({"hello", "dupe_route"}),
              AllOf(StartsWith("plugin dupe_route failed to register: "),
                    HasSubstr("GET /hello is claimed by hello and by dupe_route")));
}

TEST(PluginLoader, StartFailureNamesThePluginAndWhy) {
  Router router;
  PluginManager manager(CoreParts{});
  manager.loadAll(kFixtures, {"throwsonstart"}, router);
  try {
    manager.startAll();
    FAIL() << "start succeeded";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    const std::string prefix = "plugin throwsonstart failed to start: ";
    EXPECT_THAT(message, StartsWith(prefix));
    EXPECT_THAT(message, HasSubstr("cannot start: testing"));  // what the plugin threw
  }
  manager.stopAll();
}

TEST(PluginLoader, DependencyOrderKeepsListOrderWhereItCan) {
  auto ids = [](const std::vector<DependencyNode>& nodes) {
    std::vector<std::string> out;
    for (size_t index : dependencyOrder(nodes)) out.push_back(nodes[index].id);
    return out;
  };
  EXPECT_THAT(ids({{"a", {}}, {"b", {}}, {"c", {}}}), ElementsAre("a", "b", "c"));
  EXPECT_THAT(ids({{"sqlconsole", {"projects"}}, {"storage", {}}, {"projects", {"storage"}}}),
              ElementsAre("storage", "projects", "sqlconsole"));
  EXPECT_THAT(ids({{"x", {"z"}}, {"y", {}}, {"z", {}}}), ElementsAre("y", "z", "x"));
}

TEST(PluginLoader, DependencyCyclesAreRefusedAndNamed) {
  try {
    dependencyOrder({{"a", {}}, {"b", {"c"}}, {"c", {"d"}}, {"d", {"b"}}});
    FAIL() << "a cycle was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("b -> c -> d -> b"));
  }
  EXPECT_THROW(dependencyOrder({{"self", {"self"}}}), std::runtime_error);
}

TEST(PluginLoader, LibrariesStayLoadedAfterTheManagerIsGone) {
  const std::string path = kFixtures + "/libberth_throwsonstart.so";
  {
    Router router;
    PluginManager manager(CoreParts{});
    manager.loadAll(kFixtures, {"throwsonstart"}, router);
  }
  // RTLD_NOLOAD finds a library only while it is loaded.
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  EXPECT_NE(handle, nullptr) << path << " was unloaded";
  if (handle != nullptr) dlclose(handle);
}

// ---- the hello example, loaded for real -----------------------------------------------------

class HelloPlugin : public ::testing::Test {
 protected:
  HelloPlugin() : manager(CoreParts{&settings, nullptr, nullptr, {}}) {
    settings.file = "test.yaml";
    settings.data_dir = "/tmp";
    settings.plugin_sections["hello"] = nlohmann::json{{"greeting", "ahoy"}};
    manager.loadAll(kFixtures, {"hello"}, router);
  }
  ~HelloPlugin() override { manager.stopAll(); }

  void start() {
    manager.applyConfig();
    manager.startAll();
  }

  // Sends a request through the router to its handler and waits for the answer.
  HttpResponse send(const std::string& method, const std::string& path,
                    const std::string& body = "") {
    RouteMatch match = router.match(method, path, false);
    if (match.kind != RouteMatch::Kind::Found) return HttpResponse::error(404, "no route");
    auto request = std::make_shared<HttpRequest>();
    request->method = method;
    request->path = request->raw_path = path;
    request->request_id = "req-" + std::to_string(++requests);
    request->path_params = match.params;
    request->body = body;
    if (!body.empty()) request->headers["content-type"] = "application/json";
    auto answered = std::make_shared<std::promise<HttpResponse>>();
    auto answer = answered->get_future();
    match.route->handler(request,
                         [answered](HttpResponse r) { answered->set_value(std::move(r)); });
    if (answer.wait_for(30s) != std::future_status::ready)
      return HttpResponse::error(599, "no answer");
    return answer.get();
  }

  const Route* routeFor(const std::string& method, const std::string& pattern) const {
    for (const auto& route : router.routes())
      if (route->method == method && route->pattern == pattern) return route.get();
    return nullptr;
  }

  Settings settings;
  Router router;
  PluginManager manager;
  int requests = 0;
};

TEST_F(HelloPlugin, RoutesAreInTheRouterWithTheirRules) {
  EXPECT_THAT(manager.loadedIds(), ElementsAre("hello"));
  const Route* hello = routeFor("GET", "/hello");
  ASSERT_NE(hello, nullptr);
  EXPECT_EQ(hello->owner, "hello");
  EXPECT_TRUE(hello->is_public);
  const Route* echo = routeFor("POST", "/hello/echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_FALSE(echo->is_public);
  EXPECT_EQ(echo->body, BodyKind::Json);
  ASSERT_EQ(echo->fields.size(), 1u);
  EXPECT_EQ(echo->fields[0].name, "name");
  EXPECT_TRUE(echo->fields[0].required);
  EXPECT_NE(routeFor("GET", "/hello/later"), nullptr);
}

TEST_F(HelloPlugin, HandlersAnswerThroughTheRouterWithItsConfig) {
  start();
  HttpResponse hello = send("GET", "/hello");
  EXPECT_EQ(hello.status, 200);
  auto body = nlohmann::json::parse(hello.body);
  EXPECT_EQ(body["greeting"], "ahoy");  // from the hello section, through config_json
  EXPECT_EQ(body["request"], "req-1");

  HttpResponse echo = send("POST", "/hello/echo", R"({"name":"ada"})");
  EXPECT_EQ(echo.status, 200);
  EXPECT_EQ(nlohmann::json::parse(echo.body)["hello"], "ada");

  HttpResponse refused = send("POST", "/hello/echo", R"({"name":""})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(nlohmann::json::parse(refused.body)["error"], "name is empty");
}

TEST_F(HelloPlugin, AsyncAnswerArrivesFromAnotherThread) {
  start();
  HttpResponse later = send("GET", "/hello/later");
  ASSERT_EQ(later.status, 200);
  auto body = nlohmann::json::parse(later.body);
  EXPECT_EQ(body["later"], true);
  EXPECT_EQ(body["request"], "req-1");  // the request outlived its handler
}

TEST_F(HelloPlugin, MigrationsAndJobsAreDeclared) {
  std::vector<Migration> migrations = manager.migrations();
  ASSERT_FALSE(migrations.empty());
  EXPECT_EQ(migrations[0].owner, "hello");
  EXPECT_EQ(migrations[0].version, 1);
  EXPECT_THAT(migrations[0].sql, HasSubstr("visits"));

  std::vector<JobDecl> jobs = manager.jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, "hello.tick");
  EXPECT_GT(jobs[0].period.count(), 0);
}

TEST_F(HelloPlugin, HookReachesThePlugin) {
  start();
  EXPECT_EQ(nlohmann::json::parse(send("GET", "/hello/accesses").body)["accesses"], 0);
  HookResult fired = manager.fireHook("edge.access", R"({"host":"api.example.test"})");
  EXPECT_TRUE(fired.ok) << fired.error_json;
  EXPECT_EQ(nlohmann::json::parse(send("GET", "/hello/accesses").body)["accesses"], 1);
  EXPECT_TRUE(manager.fireHook("nobody.listens", "{}").ok);
}

TEST_F(HelloPlugin, UnknownConfigKeyIsRefused) {
  settings.plugin_sections["hello"]["greting"] = "typo";
  EXPECT_THROW(manager.applyConfig(), ConfigError);
}

}  // namespace
}  // namespace berth::core
