// The PHP runtime's pure parts: which answer a request path gets in a PHP release (a file the
// edge sends, a script php-cgi runs, the /index.php front controller, a redirect, or 404;
// never PHP source, hidden files or anything outside the release), php-cgi's command line and
// environment, and the detection of an index.php release.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "php_cgi.hpp"
#include "php_route.hpp"
#include "start_command.hpp"

namespace fs = std::filesystem;
using namespace berth::runtime;

namespace {

class PhpRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-php-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = fs::canonical(pattern);
    write("index.php", "<?php echo 'front';");
    write("style.css", "body {}");
    write("another.php", "<?php echo 'another';");
    write("Upper.PHP", "<?php echo 'upper';");
    write("admin/index.php", "<?php echo 'admin';");
    write("docs/index.html", "<p>docs</p>");
    write("vendor/lib.txt", "text");
    write("config.inc", "<?php $password = 'x';");
    write("old.phtml", "<?php echo 'old';");
    write(".env", "SECRET=1");
    write(".git/config", "[core]");
    write(".well-known/security.txt", "Contact: x");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& content) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << content;
  }
  PhpRoute route(std::string_view path) { return phpRouteFor(dir_, path); }
  void expectScript(std::string_view path, const std::string& script) {
    PhpRoute r = route(path);
    EXPECT_EQ(r.kind, PhpRoute::Kind::Script) << path;
    EXPECT_EQ(r.script_name, script) << path;
  }
  void expectNotFound(std::string_view path) {
    EXPECT_EQ(route(path).kind, PhpRoute::Kind::NotFound) << path;
  }

  fs::path dir_;
};

TEST_F(PhpRouteTest, AFileThatIsNotPhpIsSentByTheEdge) {
  PhpRoute css = route("/style.css");
  ASSERT_EQ(css.kind, PhpRoute::Kind::File);
  EXPECT_EQ(css.path, (dir_ / "style.css").string());
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
  EXPECT_EQ(route("/vendor/lib.txt").kind, PhpRoute::Kind::File);
  EXPECT_EQ(route("/st%79le.css").path, (dir_ / "style.css").string()) << "percent-decoded";
  PhpRoute well_known = route("/.well-known/security.txt");
  EXPECT_EQ(well_known.kind, PhpRoute::Kind::File);
}

TEST_F(PhpRouteTest, APhpFileIsRunNeverSent) {
  expectScript("/another.php", "/another.php");
  expectScript("/Upper.PHP", "/Upper.PHP");
  expectScript("/admin/index.php", "/admin/index.php");
  expectScript("/anoth%65r.php", "/another.php");
}

TEST_F(PhpRouteTest, EverythingElseGoesToTheFrontController) {
  expectScript("/", "/index.php");
  expectScript("/some/route", "/index.php");
  expectScript("/missing.php", "/index.php");
  expectScript("/missing.css", "/index.php");
  // A path under a file (PATH_INFO style): no such file, the app routes it by REQUEST_URI.
  expectScript("/index.php/extra", "/index.php");
  expectScript("/style.css/more", "/index.php");
  // A folder with no index of its own is a route of the app too.
  expectScript("/vendor/", "/index.php");
  expectScript("/vendor", "/index.php");
}

TEST_F(PhpRouteTest, AFolderRunsItsIndexOnceItHasItsSlash) {
  expectScript("/admin/", "/admin/index.php");
  PhpRoute slash = route("/admin");
  ASSERT_EQ(slash.kind, PhpRoute::Kind::Redirect);
  EXPECT_EQ(slash.location, "/admin/");
  PhpRoute docs = route("/docs/");
  ASSERT_EQ(docs.kind, PhpRoute::Kind::File);
  EXPECT_EQ(docs.path, (dir_ / "docs/index.html").string());
  EXPECT_EQ(route("/docs").location, "/docs/");
}

TEST_F(PhpRouteTest, SourceHiddenFilesAndPathsOutsideAreNeverSent) {
  for (const char* path :
       {"/config.inc", "/old.phtml", "/.env", "/.git/config", "/admin/.env", "/../etc/passwd",
        "/admin/..%2f.env", "/%2e%2e/x", "/bad%zz", "/nul%00.css", "/%2eenv", "relative"})
    expectNotFound(path);
  // A link inside the release is judged by where it leads: not to a hidden file, not outside.
  fs::create_symlink(".env", dir_ / "public.txt");
  expectNotFound("/public.txt");
  fs::create_symlink("/etc", dir_ / "etc");
  expectNotFound("/etc/passwd");
  fs::create_symlink("another.php", dir_ / "alias.txt");
  expectScript("/alias.txt", "/another.php");
}

TEST_F(PhpRouteTest, WithoutIndexPhpThereIsNoFrontController) {
  fs::remove(dir_ / "index.php");
  expectNotFound("/some/route");
  expectNotFound("/");
  expectScript("/another.php", "/another.php");
}

TEST(PhpNames, SourceAndScriptExtensionsInAnyCase) {
  for (const char* name : {"a.php", "A.PHP", "x.phtml", "x.php5", "x.phps", "x.phar", "x.INC"})
    EXPECT_TRUE(isPhpSourceName(name)) << name;
  for (const char* name : {"a.css", "php", "a.php.txt", "a.phpx", "index.html"})
    EXPECT_FALSE(isPhpSourceName(name)) << name;
  EXPECT_TRUE(isPhpScriptName("a.Php"));
  EXPECT_FALSE(isPhpScriptName("a.phtml"));
}

TEST(PhpCgi, CommandLineAndEnvironment) {
  auto argv = phpCgiArgv(phpCgiCommand(), "/data/runtime/homes/p/tmp");
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 3),
            (std::vector<std::string>{"php-cgi", "-b", "127.0.0.1:$PORT"}));
  auto has = [&](const std::string& setting) {
    for (std::size_t i = 3; i + 1 < argv.size(); i += 2)
      if (argv[i] == "-d" && argv[i + 1] == setting) return true;
    return false;
  };
  EXPECT_TRUE(has("cgi.fix_pathinfo=0"));
  EXPECT_TRUE(has("display_errors=0"));
  EXPECT_TRUE(has("fastcgi.logging=0"));
  EXPECT_TRUE(has("session.save_path=/data/runtime/homes/p/tmp"));
  EXPECT_EQ(argv.size() % 2, 1u) << "every override is a -d and its setting";
  auto env = phpCgiEnvironment();
  EXPECT_NE(std::find(env.begin(), env.end(),
                      std::pair<std::string, std::string>("PHP_FCGI_CHILDREN", "4")),
            env.end());
  EXPECT_EQ(phpBuildStep(), (std::vector<std::string>{"mkdir", "-p", ".php-sessions"}));
}

TEST_F(PhpRouteTest, AnIndexPhpReleaseRunsPhpCgiWhenItIsInstalled) {
  auto tools = [](std::set<std::string> names) {
    return [names](const std::string& tool) { return names.contains(tool); };
  };
  StartChoice choice = chooseStartCommand(std::nullopt, "", dir_, tools({"php-cgi"}));
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->kind, StartKind::Php);
  EXPECT_EQ(choice.plan->cmd, "php-cgi -b 127.0.0.1:$PORT");
  EXPECT_EQ(choice.plan->argv, phpCgiCommand());
  EXPECT_EQ(choice.plan->runtime, "PHP");
  EXPECT_EQ(choice.plan->build, phpBuildStep());
  // php-fpm alone is not enough: the platform runs php-cgi.
  choice = chooseStartCommand(std::nullopt, "", dir_, tools({"php-fpm"}));
  ASSERT_TRUE(choice.error);
  EXPECT_EQ(*choice.error,
            "this release needs PHP (it has index.php), which is not installed on this server");
  // A start command wins over detection: PHP's own HTTP server is an ordinary app.
  choice = chooseStartCommand("php -S 127.0.0.1:$PORT", "", dir_, tools({"php-cgi"}));
  ASSERT_TRUE(choice.plan);
  EXPECT_EQ(choice.plan->kind, StartKind::Process);
  EXPECT_EQ(choice.plan->runtime, "PHP");
}

}  // namespace
