#include "edge/nginx_config.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "util/process.hpp"

using namespace berth::core;
namespace fs = std::filesystem;

namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/berth-nginx-conf.XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

EdgeLayout baseLayout(const std::string& dir) {
  EdgeLayout layout;
  layout.listen = {"127.0.0.1", 18080};
  layout.apps_domain = "apps.example.test";
  layout.backend_port = 18081;
  layout.data_dir = dir;
  layout.runtime_dir = dir + "/edge";
  layout.access_log_socket = dir + "/access.sock";
  return layout;
}

// nginx's own verdict on the rendered text.
RunResult nginxTest(const EdgeLayout& layout) {
  fs::create_directories(layout.runtime_dir);
  std::string path = layout.runtime_dir + "/nginx.conf";
  std::ofstream(path) << renderNginxConfig(layout);
  return runCommand({kNginx, "-t", "-p", layout.runtime_dir + "/", "-c", path});
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(RoutePatternRegex, ParametersAndRest) {
  EXPECT_EQ(routePatternRegex("/projects/:name/files/*path"), "^/projects/[^/]+/files/.+$");
  EXPECT_EQ(routePatternRegex("/projects/:name/deploys"), "^/projects/[^/]+/deploys$");
  EXPECT_EQ(routePatternRegex("/projects/:name/import"), "^/projects/[^/]+/import$");
  EXPECT_EQ(routePatternRegex("/"), "^/$");
}

TEST(RoutePatternRegex, LiteralSegmentsAreEscaped) {
  EXPECT_EQ(routePatternRegex("/v1.0/a+b/:id"), "^/v1\\.0/a\\+b/[^/]+$");
  EXPECT_EQ(routePatternRegex("/x(y)/[z]"), "^/x\\(y\\)/\\[z\\]$");
}

TEST(RoutePatternRegex, MatchesConcretePaths) {
  std::regex files(routePatternRegex("/projects/:name/files/*path"));
  EXPECT_TRUE(std::regex_match("/projects/blog-ab12/files/a.txt", files));
  EXPECT_TRUE(std::regex_match("/projects/blog-ab12/files/img/logo.png", files));
  EXPECT_FALSE(std::regex_match("/projects/blog-ab12/files/", files));
  EXPECT_FALSE(std::regex_match("/projects/a/b/files/x", files));
  EXPECT_FALSE(std::regex_match("/projects/blog/deploys", files));
  std::regex dotted(routePatternRegex("/v1.0/:id"));
  EXPECT_TRUE(std::regex_match("/v1.0/7", dotted));
  EXPECT_FALSE(std::regex_match("/v1x0/7", dotted));
}

TEST(NginxConfig, MinimalLayoutIsAccepted) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(NginxConfig, MainDirectives) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.worker_processes = 3;
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "daemon off;"));
  EXPECT_TRUE(contains(text, "master_process on;"));
  EXPECT_TRUE(contains(text, "worker_processes 3;"));
  EXPECT_TRUE(contains(text, "pid " + dir.path() + "/edge/nginx.pid;"));
  EXPECT_TRUE(contains(text, "error_log " + dir.path() + "/edge/error.log warn;"));
  EXPECT_TRUE(contains(text, "client_body_temp_path " + dir.path() + "/edge/client_body;"));
  EXPECT_TRUE(contains(text, "proxy_temp_path " + dir.path() + "/edge/proxy;"));
  EXPECT_TRUE(contains(text, "server 127.0.0.1:18081;"));
  EXPECT_TRUE(contains(text, "keepalive 32;"));
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Edge api;"));
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Edge project;"));
  EXPECT_TRUE(contains(text, "server_name api.apps.example.test _;"));
  EXPECT_TRUE(contains(text, "listen 127.0.0.1:18080 default_server;"));
  EXPECT_TRUE(contains(text, "client_max_body_size 2097152;"));
  EXPECT_TRUE(contains(text, "client_max_body_size 268435456;"));
  EXPECT_TRUE(contains(text, "syslog:server=unix:" + dir.path() + "/access.sock,nohostname"));
  EXPECT_TRUE(contains(text, "alias " + dir.path() + "/;"));
  EXPECT_FALSE(contains(text, "\nuser "));
}

TEST(NginxConfig, CustomHostsAndProjectListen) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.custom_hosts = {"www.example.com", "Shop.Example.ORG"};
  layout.project_listens = {{"127.0.0.1", 18090}, {"127.0.0.1", 18080}};
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "www.example.com shop.example.org;"));
  EXPECT_TRUE(contains(text, "\\.apps\\.example\\.test$"));
  EXPECT_TRUE(contains(text, "listen 127.0.0.1:18090;"));
  // The project server already listens on server.listen; a second "listen" would be refused.
  EXPECT_EQ(text.find("listen 127.0.0.1:18080;"), text.rfind("listen 127.0.0.1:18080;"));
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(NginxConfig, SpooledRoutesGetTheirOwnLimitAndError) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.spooled_routes = {{"POST", "/projects/:name/files/*path", 64ull << 20},
                           {"POST", "/projects/:name/deploys", 256ull << 20},
                           {"PUT", "/projects/:name/deploys", 300ull << 20}};
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "location ~ \"^/projects/[^/]+/files/.+$\""));
  EXPECT_TRUE(contains(text, "client_max_body_size 67108864;"));
  EXPECT_TRUE(contains(text, "client_body_in_file_only clean;"));
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Body-File $request_body_file;"));
  EXPECT_TRUE(contains(text, "proxy_pass_request_body off;"));
  EXPECT_TRUE(contains(text, "(limit 64 MB)"));
  // Two routes on one path share one location with the larger limit.
  EXPECT_EQ(text.find("/deploys$"), text.rfind("/deploys$"));
  EXPECT_TRUE(contains(text, "client_max_body_size 314572800;"));
  EXPECT_TRUE(contains(text, "(limit 300 MB)"));
  EXPECT_TRUE(contains(text, "(limit 2 MB)"));
  EXPECT_TRUE(contains(text, "(limit 256 MB)"));
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(NginxConfig, WorkerUser) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.worker_user = "nobody";
  auto text = renderNginxConfig(layout);
  auto nobody = lookupUser("nobody");
  ASSERT_TRUE(nobody.has_value());
  // Debian's nobody has no group called nobody, so the group must be named.
  EXPECT_TRUE(contains(text, "\nuser nobody nogroup;\n")) << text;
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(NginxConfig, EverythingTogether) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.custom_hosts = {"a.example.com", "b.example.com",
                         "very-long-name-of-a-shop.some-domain.example.co.uk"};
  layout.project_listens = {{"127.0.0.1", 18091}};
  layout.spooled_routes = {{"POST", "/projects/:name/files/*path", 64ull << 20},
                           {"POST", "/projects/:name/import", 256ull << 20}};
  layout.worker_user = ::geteuid() == 0 ? "nobody" : "";
  layout.worker_processes = 1;
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(NginxConfig, IPv6AndWildcardListen) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.listen = {"::1", 18082};
  layout.project_listens = {{"0.0.0.0", 18083}};
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "listen [::1]:18082 default_server;"));
  EXPECT_TRUE(contains(text, "listen 0.0.0.0:18083;"));
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(NginxConfig, HostsThatCouldInjectDirectivesAreRefused) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.custom_hosts = {"evil.com; include /etc/passwd"};
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
  layout.custom_hosts = {"evil{}.com"};
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
  layout.custom_hosts = {};
  layout.apps_domain = "local host";
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
}

TEST(NginxConfig, ErrorsAreJson) {
  TempDir dir;
  auto text = renderNginxConfig(baseLayout(dir.path()));
  EXPECT_TRUE(contains(text, "error_page 413 = @berth_413;"));
  EXPECT_TRUE(contains(text, "error_page 502 = @berth_502;"));
  EXPECT_TRUE(contains(text, "error_page 504 = @berth_504;"));
  EXPECT_TRUE(contains(text, "return 502 '{\"error\":\"berthd is not answering; try again\"}';"));
  EXPECT_TRUE(contains(text, "return 504 '{\"error\":\"the upstream took too long to answer\"}';"));
  EXPECT_TRUE(contains(text, "default_type application/json;"));
  EXPECT_FALSE(contains(text, "proxy_intercept_errors on"));
}
