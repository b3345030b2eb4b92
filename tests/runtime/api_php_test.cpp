// ctest-label: api (starts a real berthd)
// PHP releases over real HTTP, through berthd's nginx edge on <project>.localhost: an
// index.php release runs php-cgi on demand (the edge speaks FastCGI to it) with the client's
// method, URI, query and body, the project's secret and a DATABASE_URL that connects; a CSS
// file is sent by the edge as a file; another .php is run; any other path reaches index.php;
// PHP source and hidden files are never sent; PHP's errors reach the project's logs; sessions
// work; idle stop and the held wake, crash restart and a secret change restart, as for every app.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include "../projects/api_support.hpp"
#include "host_requests.hpp"
#include "start_command.hpp"
#include "support/berthd_suite.hpp"
#include "support/release_upload.hpp"
#include "tar_builder.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::runtime::testing::TarBuilder;
using berth::testing::stopCleanly;
using nlohmann::json;

namespace {

// The front controller: answers what PHP saw of the request, the environment and the database.
const char* const kIndexPhp = R"PHP(<?php
header('Content-Type: application/json');
header('Cache-Control: no-store');
$out = [
  'script' => $_SERVER['SCRIPT_NAME'],
  'method' => $_SERVER['REQUEST_METHOD'],
  'uri' => $_SERVER['REQUEST_URI'],
  'query' => $_SERVER['QUERY_STRING'],
  'body' => file_get_contents('php://input'),
  'greeting' => getenv('GREETING'),
  'home' => getenv('HOME'),
  'port' => getenv('PORT'),
  // php-cgi's parent (the worker's parent): its pid and start time, since inside a fresh
  // sandbox (its own pid namespace) every new parent may get the same small pid.
  'master' => posix_getppid() . '@' . explode(' ', explode(')', file_get_contents('/proc/' . posix_getppid() . '/stat'))[1])[20],
  'pgsql' => function_exists('pg_connect'),
];
if (function_exists('pg_connect')) {
  $db = pg_connect(getenv('DATABASE_URL'));
  $row = pg_fetch_row(pg_query($db, 'SELECT current_database()::text, current_user::text'));
  $out['database'] = $row[0];
  $out['user'] = $row[1];
  $out['pgdatabase'] = getenv('PGDATABASE');
  $out['pguser'] = getenv('PGUSER');
}
error_log('php logged ' . $_SERVER['REQUEST_URI']);
echo json_encode($out);
)PHP";

const char* const kAnotherPhp = R"PHP(<?php
header('Cache-Control: no-store');
echo 'another script: ', $_SERVER['SCRIPT_NAME'], ' ', $_SERVER['QUERY_STRING'], "\n";
)PHP";

const char* const kSessionPhp = R"PHP(<?php
header('Cache-Control: no-store');
session_start();
$_SESSION['n'] = ($_SESSION['n'] ?? 0) + 1;
echo 'visits: ', $_SESSION['n'], "\n";
)PHP";

// Kills php-cgi's parent process: the app crashed.
const char* const kCrashPhp = R"PHP(<?php
echo "bye\n";
flush();
posix_kill(posix_getppid(), 9);
)PHP";

const char* const kCss = "body { color: #345678; }\n";

bool phpCgiInstalled() {
  return berth::runtime::toolOnPath("php-cgi");
}

bool sandboxed() {
  return berth::runtime::toolOnPath("bwrap");
}

// Whether php-cgi loads the pgsql extension on this machine (php-pgsql).
bool phpHasPgsql() {
  FILE* modules = ::popen("php-cgi -m 2>/dev/null", "r");
  if (!modules) return false;
  std::string text;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, modules)) text.append(buffer, n);
  ::pclose(modules);
  return text.find("\npgsql\n") != std::string::npos;
}

class ApiPhp : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    if (!phpCgiInstalled()) return;
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    options.extra_yaml = secretsKeyYaml() +
                         "  creation_burst: 100\n"
                         "runtime:\n"
                         "  idle_stop_seconds: 2\n"
                         "  start_timeout_seconds: 10\n"
                         "  stop_grace_seconds: 2\n" +
                         // PHP inside bubblewrap (the default) when it is there (CI installs
                         // it): php-cgi must find its php.ini and extensions (pgsql) in it.
                         (sandboxed() ? "" : "  unsafe_run_without_sandbox: true\n");
    startServer(options, "phpown");
  }
  void SetUp() override {
    if (!phpCgiInstalled())
      GTEST_SKIP() << "php-cgi is not installed here (scripts/install-deps.sh installs php-cgi "
                      "and php-pgsql): the PHP runtime cannot be tested";
  }

  // Uploads a release and waits until it is live; returns the release.
  static json deploy(const std::string& name, const std::string& archive) {
    return deployLiveRelease(api(), name, archive, std::chrono::seconds(60));
  }

  static std::string releaseDir(const std::string& name, const std::string& release) {
    return server->dataDir() + "/releases/" + projectId(*server, name) + "/" + release;
  }

  static HttpResult onHost(const std::string& name, const std::string& path,
                           std::vector<std::string> headers = {}, const std::string& method = "GET",
                           const std::string& body = "") {
    return onProjectHost(*server, name, path, std::move(headers), method, body);
  }

  static std::string state(const std::string& name) {
    return api().get("/projects/" + name).json().value("state", "");
  }

  static json logs(const std::string& name) { return projectLogs(api(), name); }
};

std::string phpRelease() {
  return TarBuilder()
      .file("index.php", kIndexPhp)
      .file("another.php", kAnotherPhp)
      .file("session.php", kSessionPhp)
      .file("crash.php", kCrashPhp)
      .file("assets/style.css", kCss)
      .file("lib/config.inc", "<?php $password = 'inc-secret';\n")
      .file(".env", "SECRET=dotenv-secret\n")
      .finish();
}

// One PHP project through the whole life of an app.
TEST_F(ApiPhp, AnIndexPhpReleaseIsServedByPhpCgiLikeAnyApp) {
  std::string name = project("phpapp");
  auto secret = api().post("/projects/" + name + "/secrets",
                           {{"name", "GREETING"}, {"value", "first"}, {"scope", "runtime"}});
  ASSERT_EQ(secret.status, 201) << secret.body;
  json release = deploy(name, phpRelease());
  EXPECT_EQ(release.value("runtime", ""), "PHP") << release.dump();
  EXPECT_EQ(release.value("cmd", ""), "php-cgi -b 127.0.0.1:$PORT") << release.dump();

  // A static file is the edge's: sent without starting PHP.
  auto css = onHost(name, "/assets/style.css");
  ASSERT_EQ(css.status, 200) << css.body;
  EXPECT_EQ(css.body, kCss);
  EXPECT_EQ(css.header("content-type"), "text/css; charset=utf-8");
  EXPECT_FALSE(css.header("etag").empty());
  EXPECT_EQ(state(name), "stopped") << "a file needs no process";

  // A POST to a route of the app: held while php-cgi starts, run by index.php with the
  // client's method, URI, query and body.
  auto first =
      onHost(name, "/hello/world?a=1&b=two", {"Content-Type: text/plain"}, "POST", "posted body");
  ASSERT_EQ(first.status, 200) << first.body;
  json seen = first.json();
  EXPECT_EQ(seen["script"], "/index.php");
  EXPECT_EQ(seen["method"], "POST");
  EXPECT_EQ(seen["uri"], "/hello/world?a=1&b=two");
  EXPECT_EQ(seen["query"], "a=1&b=two");
  EXPECT_EQ(seen["body"], "posted body");
  EXPECT_EQ(seen["greeting"], "first");
  // HOME is the project's writable folder, outside every release.
  EXPECT_EQ(seen["home"], server->dataDir() + "/runtime/homes/" + projectId(*server, name));
  EXPECT_TRUE(first.header("x-powered-by").empty()) << "expose_php is off";
  if (phpHasPgsql()) {
    ASSERT_EQ(seen["pgsql"], true) << seen.dump();
    ASSERT_TRUE(seen["database"].is_string()) << seen.dump();
    EXPECT_EQ(seen["database"], seen["pgdatabase"]);
    EXPECT_EQ(seen["user"], seen["pguser"]);
  } else {
    ADD_FAILURE() << "php-cgi has no pgsql extension (install php-pgsql): DATABASE_URL untested";
  }
  EXPECT_EQ(state(name), "running");

  auto root = onHost(name, "/");
  ASSERT_EQ(root.status, 200) << root.body;
  EXPECT_EQ(root.json()["script"], "/index.php");
  EXPECT_EQ(root.json()["method"], "GET");
  auto route = onHost(name, "/some/route?x=%2F");
  ASSERT_EQ(route.status, 200) << route.body;
  EXPECT_EQ(route.json()["uri"], "/some/route?x=%2F");
  EXPECT_EQ(route.json()["script"], "/index.php");

  // Another script runs; its source is never what is sent.
  auto another = onHost(name, "/another.php?k=v");
  ASSERT_EQ(another.status, 200) << another.body;
  EXPECT_EQ(another.body, "another script: /another.php k=v\n");
  for (const char* hidden : {"/lib/config.inc", "/.env", "/assets/.env", "/%2eenv"}) {
    auto r = onHost(name, hidden);
    EXPECT_EQ(r.status, 404) << hidden << ": " << r.body;
    EXPECT_EQ(r.body.find("secret"), std::string::npos) << hidden << ": " << r.body;
  }
  EXPECT_EQ(errorText(onHost(name, "/lib/config.inc")), "no such file");
  for (const char* path : {"/index.php", "/another.php"}) {
    auto r = onHost(name, path);
    EXPECT_EQ(r.body.find("<?php"), std::string::npos) << path << ": " << r.body;
  }

  // Sessions: PHP keeps them in the release's hidden folder.
  auto visit = onHost(name, "/session.php");
  ASSERT_EQ(visit.status, 200) << visit.body;
  EXPECT_EQ(visit.body, "visits: 1\n");
  std::string cookie = visit.header("set-cookie");
  ASSERT_NE(cookie.find("PHPSESSID="), std::string::npos) << cookie;
  cookie = cookie.substr(0, cookie.find(';'));
  auto again = onHost(name, "/session.php", {"Cookie: " + cookie});
  EXPECT_EQ(again.body, "visits: 2\n");
  EXPECT_EQ(onHost(name, "/.php-sessions/").status, 404);

  // PHP's errors go to the project's logs, not into the page.
  EXPECT_TRUE(eventually([&] {
    for (const auto& entry : logs(name))
      if (entry["kind"] == "process" && entry["message"].is_string() &&
          entry["message"].get<std::string>().find("php logged /hello/world?a=1&b=two") !=
              std::string::npos)
        return true;
    return false;
  })) << logs(name).dump();
  // And every request, with its real method.
  EXPECT_TRUE(eventually([&] {
    for (const auto& entry : logs(name))
      if (entry["kind"] == "request" && entry["path"] == "/hello/world?a=1&b=two" &&
          entry["method"] == "POST" && entry["status"] == 200)
        return true;
    return false;
  })) << logs(name).dump();

  // Scale to zero: no request for idle_stop_seconds stops php-cgi.
  const std::string first_master = onHost(name, "/").json().value("master", "");
  EXPECT_TRUE(eventually([&] { return state(name) == "stopped"; }, std::chrono::seconds(20)));
  EXPECT_EQ(onHost(name, "/assets/style.css").status, 200);
  EXPECT_EQ(state(name), "stopped") << "a file does not wake the app";

  // Ten requests at once wake it: every one is answered, by one new php-cgi.
  std::vector<std::thread> threads;
  std::atomic<int> answered{0};
  std::mutex masters_mutex;
  std::set<std::string> masters;
  for (int i = 0; i < 10; ++i)
    threads.emplace_back([&, i] {
      const std::string uri = "/wake/" + std::to_string(i);
      auto r = onHost(name, uri);
      if (r.status != 200) return;
      json body = r.json();
      if (body.value("uri", "") != uri) return;
      ++answered;
      std::lock_guard lock(masters_mutex);
      masters.insert(body.value("master", ""));
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(answered.load(), 10);
  EXPECT_EQ(masters.size(), 1u);
  EXPECT_FALSE(masters.contains(first_master)) << "a new php-cgi after the idle stop";
  EXPECT_EQ(state(name), "running");

  // A crash (php-cgi's parent killed): the supervisor starts it again, and it serves.
  const std::string before_crash = onHost(name, "/").json().value("master", "");
  onHost(name, "/crash.php");
  json after;
  EXPECT_TRUE(eventually([&] {
    auto r = onHost(name, "/after-crash");
    after = r.json();
    return r.status == 200 && after.value("master", "") != before_crash;
  })) << after.dump();

  // A secret change restarts the running php-cgi with the new value.
  const std::string before_secret = onHost(name, "/").json().value("master", "");
  secret = api().post("/projects/" + name + "/secrets",
                      {{"name", "GREETING"}, {"value", "second"}, {"scope", "runtime"}});
  ASSERT_EQ(secret.status, 201) << secret.body;
  json changed;
  EXPECT_TRUE(eventually([&] {
    auto r = onHost(name, "/");
    changed = r.json();
    return r.status == 200 && changed.value("greeting", json()) == "second";
  })) << changed.dump();
  EXPECT_NE(changed.value("master", ""), before_secret);
}

TEST_F(ApiPhp, AFolderRunsItsOwnIndexOnceItHasItsSlash) {
  std::string name = project("phpdirs");
  deploy(name, TarBuilder()
                   .file("index.php", "<?php echo 'front ', $_SERVER['SCRIPT_NAME'];")
                   .file("admin/index.php", "<?php echo 'admin ', $_SERVER['SCRIPT_NAME'];")
                   .file("docs/index.html", "<p>docs</p>\n")
                   .finish());
  auto redirect = onHost(name, "/admin?x=1");
  EXPECT_EQ(redirect.status, 301);
  EXPECT_EQ(redirect.header("location"), "/admin/");
  auto admin = onHost(name, "/admin/");
  EXPECT_EQ(admin.status, 200) << admin.body;
  EXPECT_EQ(admin.body, "admin /admin/index.php");
  auto docs = onHost(name, "/docs/");
  EXPECT_EQ(docs.body, "<p>docs</p>\n");
  auto missing = onHost(name, "/missing.php");
  EXPECT_EQ(missing.body, "front /index.php");
}

}  // namespace

// A script's GET answer is kept by the edge cache like any app's (PHP is not run for a HIT),
// with the same rules: not for no-store, a cookie, a POST or a HEAD; a purge starts afresh.
TEST_F(ApiPhp, AScriptsAnswerIsKeptByTheEdgeCache) {
  std::string name = project("phpcache");
  deploy(name,
         TarBuilder()
             .file("index.php",
                   "<?php echo uniqid('', true), ' ', $_SERVER['REQUEST_METHOD'], ' ', "
                   "$_SERVER['REQUEST_URI'], \"\\n\";")
             .file("nostore.php", "<?php header('Cache-Control: no-store'); echo uniqid('', true);")
             .finish());
  // The first cacheable answer gives the host its rule; once the edge has loaded it, a repeat
  // is a HIT: the same body, PHP not run.
  HttpResult hit;
  ASSERT_TRUE(eventually([&] {
    hit = onHost(name, "/page?q=1");
    return hit.status == 200 && hit.header("x-berth-cache") == "HIT";
  })) << hit.status
      << " " << hit.body << " " << hit.header("x-berth-cache");
  EXPECT_NE(hit.body.find(" GET /page?q=1"), std::string::npos) << hit.body;
  auto again = onHost(name, "/page?q=1");
  EXPECT_EQ(again.header("x-berth-cache"), "HIT");
  EXPECT_EQ(again.body, hit.body);
  auto other = onHost(name, "/page?q=2");
  EXPECT_EQ(other.header("x-berth-cache"), "MISS");
  EXPECT_NE(other.body.find(" GET /page?q=2"), std::string::npos) << other.body;

  auto no_store = onHost(name, "/nostore.php");
  auto no_store_again = onHost(name, "/nostore.php");
  EXPECT_NE(no_store_again.header("x-berth-cache"), "HIT");
  EXPECT_NE(no_store.body, no_store_again.body);
  auto with_cookie = onHost(name, "/page?q=1", {"Cookie: s=1"});
  EXPECT_NE(with_cookie.header("x-berth-cache"), "HIT");
  EXPECT_NE(with_cookie.body, hit.body);
  auto post = onHost(name, "/page?q=1", {}, "POST", "x=1");
  EXPECT_NE(post.header("x-berth-cache"), "HIT");
  EXPECT_NE(post.body.find(" POST /page?q=1"), std::string::npos) << post.body;
  // A HEAD reaches PHP as a HEAD and stores nothing: the GET after it is still a MISS.
  for (int i = 0; i < 2; ++i)
    EXPECT_NE(onHost(name, "/page?q=3", {}, "HEAD").header("x-berth-cache"), "HIT");
  auto after_head = onHost(name, "/page?q=3");
  EXPECT_EQ(after_head.header("x-berth-cache"), "MISS");
  EXPECT_NE(after_head.body.find(" GET /page?q=3"), std::string::npos) << after_head.body;

  expectPurgeStartsAfresh(*server, api(), name, "/page?q=1", hit.body);
}
