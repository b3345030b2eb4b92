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
  layout.access_log_file = dir + "/access.log";
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
  layout.request_id_prefix = "0a1b2c3d";
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "daemon off;"));
  // Request ids from counters, not nginx's random $request_id; berthd reads the same text.
  const std::string id = "0a1b2c3d-$pid-$connection-$connection_requests";
  EXPECT_TRUE(contains(text, "'{\"request_id\":\"" + id + "\","));
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Request-Id " + id + ";"));
  EXPECT_FALSE(contains(text, "$request_id"));
  EXPECT_TRUE(contains(text, "master_process on;"));
  EXPECT_TRUE(contains(text, "worker_processes 3;"));
  EXPECT_TRUE(contains(text, "pid " + dir.path() + "/edge/nginx.pid;"));
  EXPECT_TRUE(contains(text, "error_log " + dir.path() + "/edge/error.log warn;"));
  EXPECT_TRUE(contains(text, "client_body_temp_path " + dir.path() + "/edge/client_body;"));
  EXPECT_TRUE(contains(text, "proxy_temp_path " + dir.path() + "/edge/proxy;"));
  EXPECT_TRUE(contains(text, "server 127.0.0.1:18081;"));
  EXPECT_TRUE(contains(text, "keepalive 128;"));
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Edge api;"));
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Edge project;"));
  EXPECT_TRUE(contains(text, "server_name api.apps.example.test _;"));
  EXPECT_TRUE(contains(text, "listen 127.0.0.1:18080 default_server;"));
  EXPECT_TRUE(contains(text, "client_max_body_size 2097152;"));
  EXPECT_TRUE(contains(text, "client_max_body_size 268435456;"));
  EXPECT_TRUE(contains(text, "access_log " + dir.path() + "/access.log berth_project buffer="));
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
  // The project server is the only one there: any Host is project traffic.
  EXPECT_TRUE(contains(text, "listen 127.0.0.1:18090 default_server;"));
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
  EXPECT_TRUE(contains(text, "listen 0.0.0.0:18083 default_server;"));
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

// ---- edge cache ------------------------------------------------------------------------------

namespace {

// The text of the block that starts with `opening` (up to its closing brace at the same depth).
std::string blockOf(const std::string& text, const std::string& opening) {
  size_t start = text.find(opening);
  if (start == std::string::npos) return "";
  int depth = 0;
  for (size_t i = start; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(start, i - start + 1);
  }
  return "";
}

EdgeLayout cachingLayout(const std::string& dir) {
  auto layout = baseLayout(dir);
  layout.cache_rules = {{"shop.apps.example.test", "7.0", 60},
                        {"www.example.com", "7.0", 60},
                        {"blog.apps.example.test", "rel-12.3", 0},
                        {"default", "x", 5}};  // a map keyword as a host
  layout.cache_max_bytes = 512ull << 20;
  return layout;
}

}  // namespace

TEST(NginxConfig, WithoutRulesThereIsNoCache) {
  TempDir dir;
  auto text = renderNginxConfig(baseLayout(dir.path()));
  EXPECT_FALSE(contains(text, "proxy_cache_path"));
  EXPECT_FALSE(contains(text, "proxy_cache berth_cache"));
  EXPECT_FALSE(contains(text, "$berth_cache_key"));
  // A cache answer of a config not loaded yet is still proxied (uncached), never sent back to
  // berthd as a fresh request.
  auto fallback = blockOf(text, "location ~ ^/_berth_cache/[0-9]+/(?<berth_port>[0-9]+)/ {");
  ASSERT_FALSE(fallback.empty()) << text;
  EXPECT_TRUE(contains(fallback, "internal;"));
  EXPECT_TRUE(contains(fallback, "proxy_pass http://127.0.0.1:$berth_port;"));
  EXPECT_TRUE(contains(fallback, "add_header x-berth-cache MISS always;"));
  EXPECT_FALSE(contains(fallback, "proxy_cache "));
  auto proxy = blockOf(text, "location ~ ^/_berth_proxy/(?<berth_port>[0-9]+)/ {");
  EXPECT_TRUE(contains(proxy, "add_header x-berth-cache MISS always;")) << proxy;
  EXPECT_TRUE(contains(proxy, "proxy_hide_header x-berth-cache;")) << proxy;
}

TEST(NginxConfig, CacheRulesRenderTheZoneTheMapAndALocationPerTtl) {
  TempDir dir;
  auto layout = cachingLayout(dir.path());
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "proxy_cache_path " + layout.runtime_dir +
                                 "/cache levels=1:2 keys_zone=berth_cache:8m max_size=512m "
                                 "inactive=1d use_temp_path=off;"))
      << text;
  auto map = blockOf(text, "map $host $berth_cache_key {");
  EXPECT_TRUE(contains(map, "default \"\";")) << map;
  EXPECT_TRUE(contains(map, "\\shop.apps.example.test 7.0;")) << map;
  EXPECT_TRUE(contains(map, "\\www.example.com 7.0;")) << map;
  EXPECT_TRUE(contains(map, "\\blog.apps.example.test rel-12.3;")) << map;
  EXPECT_TRUE(contains(map, "\\default x;")) << map;  // a host, not the map's default

  // One location per distinct ttl, before the catch-all (regex locations match in order).
  size_t ttl0 = text.find("location ~ ^/_berth_cache/0/(?<berth_port>[0-9]+)/ {");
  size_t ttl5 = text.find("location ~ ^/_berth_cache/5/(?<berth_port>[0-9]+)/ {");
  size_t ttl60 = text.find("location ~ ^/_berth_cache/60/(?<berth_port>[0-9]+)/ {");
  size_t any = text.find("location ~ ^/_berth_cache/[0-9]+/(?<berth_port>[0-9]+)/ {");
  ASSERT_NE(ttl0, std::string::npos);
  ASSERT_NE(ttl5, std::string::npos);
  ASSERT_NE(ttl60, std::string::npos);
  EXPECT_LT(ttl60, any);
  EXPECT_LT(ttl0, any);
  auto sixty = blockOf(text, "location ~ ^/_berth_cache/60/(?<berth_port>[0-9]+)/ {");
  EXPECT_TRUE(contains(sixty, "internal;"));
  EXPECT_TRUE(contains(sixty, "proxy_cache berth_cache;"));
  EXPECT_TRUE(contains(sixty, "proxy_cache_key \"$berth_cache_key|$host|$request_uri\";"));
  EXPECT_TRUE(contains(sixty, "proxy_cache_valid 60s;"));
  EXPECT_TRUE(contains(sixty, "proxy_cache_bypass $berth_cache_off $berth_cache_private;"));
  EXPECT_TRUE(contains(sixty,
                       "proxy_no_cache $berth_cache_off $berth_cache_private "
                       "$upstream_http_x_accel_redirect"));
  EXPECT_TRUE(contains(sixty, "proxy_hide_header x-berth-cache;"));
  EXPECT_TRUE(contains(sixty, "add_header x-berth-cache $berth_cache_status always;"));
  EXPECT_TRUE(contains(sixty, "proxy_ignore_headers X-Accel-Redirect"));
  EXPECT_TRUE(contains(sixty, "proxy_set_header Upgrade $http_upgrade;"));
  EXPECT_TRUE(contains(sixty, "error_page 502 = $berth_app_502_page;"));
  auto zero = blockOf(text, "location ~ ^/_berth_cache/0/(?<berth_port>[0-9]+)/ {");
  EXPECT_TRUE(contains(zero, "proxy_cache berth_cache;"));
  EXPECT_FALSE(contains(zero, "proxy_cache_valid")) << zero;  // only what the answer allows

  // The project server looks the cache up before asking berthd, and never stores its answers.
  auto project = blockOf(text.substr(text.find("server_name \"~^(?<berth_sub>")), "location / {");
  EXPECT_TRUE(contains(project, "proxy_pass http://berth_backend;")) << project;
  EXPECT_TRUE(contains(project, "proxy_cache berth_cache;"));
  EXPECT_TRUE(contains(project, "proxy_cache_key \"$berth_cache_key|$host|$request_uri\";"));
  EXPECT_TRUE(contains(project, "proxy_no_cache 1;"));
  EXPECT_TRUE(contains(project, "proxy_cache_bypass $berth_cache_off $berth_cache_private;"));
  EXPECT_TRUE(contains(project, "add_header x-berth-cache $berth_cache_hit always;"));
  EXPECT_TRUE(contains(project, "proxy_set_header Range $http_range;"));
  EXPECT_TRUE(contains(project, "proxy_set_header If-None-Match $http_if_none_match;"));
  // The API server asks berthd every time.
  auto api = blockOf(text, "location / {");
  EXPECT_FALSE(contains(api, "proxy_cache")) << api;
  EXPECT_TRUE(contains(text,
                       "map \"$http_authorization$http_cookie$http_upgrade$http_x_berth_schedule\" "
                       "$berth_cache_private { '' ''; default 1; }"));

  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

// nginx's parser reads "\n", "\r" and "\t" in a word as control characters before map drops
// its leading backslash: a host starting with n, r or t must reach map as "\\host".
TEST(NginxConfig, HostsStartingWithNRorTReachTheMapsWhole) {
  TempDir dir;
  auto layout = cachingLayout(dir.path());
  layout.cache_rules.push_back({"nodeapp.apps.example.test", "9.0", 60});
  layout.cache_rules.push_back({"tea.example.com", "9.0", 60});
  layout.app_rules = {{"nodeapp.apps.example.test", 40003}, {"rail.example.com", 40004}};
  auto text = renderNginxConfig(layout);
  auto keys = blockOf(text, "map $host $berth_cache_key {");
  EXPECT_TRUE(contains(keys, "\\\\nodeapp.apps.example.test 9.0;")) << keys;
  EXPECT_TRUE(contains(keys, "\\\\tea.example.com 9.0;")) << keys;
  EXPECT_TRUE(contains(keys, "\\\\default x;")) << keys;
  auto upstreams = blockOf(text, "map $host $berth_app_upstream {");
  EXPECT_TRUE(contains(upstreams, "\\\\nodeapp.apps.example.test berth_app_40003;")) << upstreams;
  EXPECT_TRUE(contains(upstreams, "\\\\rail.example.com berth_app_40004;")) << upstreams;
  auto routes = blockOf(text, "map $host $berth_app_route_of_host {");
  EXPECT_TRUE(contains(routes, "\\\\nodeapp.apps.example.test 60;")) << routes;
  EXPECT_TRUE(contains(routes, "\\\\rail.example.com u;")) << routes;
}

TEST(NginxConfig, CacheRulesThatCouldInjectDirectivesAreRefused) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.cache_rules = {{"shop.example.com", "a;b", 60}};
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
  layout.cache_rules = {{"shop.example.com; include /etc/passwd", "k", 60}};
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
  layout.cache_rules = {{"shop.example.com", "k", 60}, {"shop.example.com", "j", 60}};
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);  // a host twice
  layout.cache_rules = {{"Shop.example.com", "k", 60}};            // rules reach here normalised
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
}

TEST(EdgeCacheRule, HostsKeysAndTtlsAreChecked) {
  EXPECT_EQ(checkedEdgeCacheRule({"Shop.Example.COM.", "r1.0", 60}),
            (EdgeCacheRule{"shop.example.com", "r1.0", 60}));
  EXPECT_NO_THROW(checkedEdgeCacheRule({"a.b", std::string(100, 'k'), kMaxEdgeCacheTtl}));
  auto refusal = [](EdgeCacheRule rule) {
    try {
      checkedEdgeCacheRule(std::move(rule));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal({"shop.example.com", "a;b", 1}),
            "edge cache key for 'shop.example.com' must be 1 to 100 of A-Z a-z 0-9 . _ -: 'a;b'");
  EXPECT_NE(refusal({"shop.example.com", "", 1}), "accepted");
  EXPECT_NE(refusal({"shop.example.com", std::string(101, 'k'), 1}), "accepted");
  EXPECT_NE(refusal({"shop.example.com", "a b", 1}), "accepted");
  EXPECT_NE(refusal({"shop.example.com", "a\"b", 1}), "accepted");
  EXPECT_EQ(refusal({"bad host", "k", 1}), "edge cache host is not a valid host name: 'bad host'");
  EXPECT_NE(refusal({"", "k", 1}), "accepted");
  EXPECT_NE(refusal({"a..b", "k", 1}), "accepted");
  EXPECT_NE(refusal({"-a.b", "k", 1}), "accepted");
  EXPECT_NE(refusal({"a{b}", "k", 1}), "accepted");
  EXPECT_EQ(refusal({"a.b", "k", kMaxEdgeCacheTtl + 1}),
            "edge cache ttl for 'a.b' is 31536001 s, above the limit of 31536000 s (1 year)");
}

TEST(NginxConfig, FileTreesAppRoutesAndFastCgiRender) {
  TempDir dir;
  auto layout = cachingLayout(dir.path());
  layout.files_rules = {{"/_files/", dir.path() + "/blobs/edge/hosts", "", ""},
                        {"/", dir.path() + "/runtime/edge", "index.html", ""}};
  layout.app_rules = {{"shop.apps.example.test", 40001}, {"api.example.com", 40002}};
  layout.project_route_prefixes = {"/_data/", "/_files/"};
  auto text = renderNginxConfig(layout);
  auto project_server = text.substr(text.find("server_name \"~^(?<berth_sub>"));

  // Only plain GET/HEAD paths are looked up in a tree; "-" is never a host folder.
  auto gate = blockOf(
      text, "map \"$http_x_berth_schedule|$request_method:$request_uri\" $berth_tree_gate {");
  EXPECT_TRUE(contains(gate, R"re("~^\|(GET|HEAD):[^?]*(//|/\.|%2[eEfF]|%5[cC]|\\\\)" '';)re"))
      << gate;
  EXPECT_TRUE(contains(gate, R"re("~^\|(GET|HEAD):" 1;)re")) << gate;  // no schedule header
  EXPECT_TRUE(contains(text, "map $berth_tree_gate $berth_tree_host { 1 $host; default -; }"));
  auto files = blockOf(project_server, "location ~ \"^/_files/(?<berth_tree_rest>.*)$\" {");
  EXPECT_TRUE(contains(files, "root " + dir.path() + "/blobs/edge/hosts/$berth_tree_host;"))
      << files;
  EXPECT_TRUE(contains(files, "try_files /$berth_tree_rest$berth_tree_index_0 @berth_project;"));
  // No link below the host's entry is followed (the entry itself may be one).
  EXPECT_TRUE(contains(files, "disable_symlinks on from=$document_root;")) << files;

  // Running apps: an upstream each (kept alive), their route by host, berthd on a 502.
  auto upstream = blockOf(text, "upstream berth_app_40001 {");
  EXPECT_TRUE(contains(upstream, "server 127.0.0.1:40001 max_fails=0;")) << upstream;
  EXPECT_TRUE(contains(upstream, "keepalive 128;"));
  EXPECT_TRUE(contains(upstream, "keepalive_timeout 4s;"));
  auto routes = blockOf(text, "map $host $berth_app_route_of_host {");
  EXPECT_TRUE(contains(text,
                       "map $http_x_berth_schedule $berth_app_route { '' "
                       "$berth_app_route_of_host; default ''; }"));
  EXPECT_TRUE(contains(routes, "\\shop.apps.example.test 60;")) << routes;  // its cache rule
  EXPECT_TRUE(contains(routes, "\\api.example.com u;")) << routes;          // none: uncached
  auto root = blockOf(project_server, "location / {");
  EXPECT_TRUE(contains(root,
                       "if ($berth_app_route) { rewrite ^ /_berth_direct/$berth_app_route "
                       "last; }"))
      << root;
  EXPECT_TRUE(contains(root, "try_files $uri$berth_tree_index_1 @berth_project;")) << root;
  EXPECT_TRUE(contains(root, "disable_symlinks on from=$document_root;")) << root;
  auto uncached = blockOf(project_server, "location = /_berth_direct/u {");
  EXPECT_TRUE(contains(uncached, "proxy_pass http://$berth_app_upstream$request_uri;")) << uncached;
  EXPECT_TRUE(contains(uncached, "proxy_set_header Connection $berth_app_connection;"));
  EXPECT_TRUE(contains(uncached, "error_page 502 = @berth_project;"));
  // berthd's secrets never reach an app.
  EXPECT_TRUE(contains(uncached, "proxy_set_header X-Berth-Edge-Proof \"\";")) << uncached;
  EXPECT_TRUE(contains(uncached, "proxy_set_header X-Berth-Node-Proof \"\";")) << uncached;
  EXPECT_FALSE(contains(uncached, "proxy_cache "));
  auto cached = blockOf(project_server, "location = /_berth_direct/60 {");
  EXPECT_TRUE(contains(cached, "proxy_cache berth_cache;")) << cached;
  EXPECT_TRUE(contains(cached, "proxy_cache_valid 60s;"));
  // berthd's own project routes are never an app's; a prefix with a tree keeps its tree.
  auto data = blockOf(project_server, "location ^~ /_data/ {");
  EXPECT_TRUE(contains(data, "proxy_pass http://berth_backend;")) << data;
  EXPECT_FALSE(contains(project_server, "location ^~ /_files/ {"));
  auto named = blockOf(project_server, "location @berth_project {");
  EXPECT_TRUE(contains(named, "proxy_pass http://berth_backend;")) << named;

  // FastCGI: the script's file name comes from data_dir and the path berthd chose.
  auto fcgi = blockOf(text,
                      "location ~ ^/_berth_fcgi/(?<berth_port>[0-9]+)(?<berth_fcgi_root>/.*?)"
                      "/_berth_script(?<berth_fcgi_script>/.*)$ {");
  EXPECT_TRUE(contains(fcgi, "internal;")) << fcgi;
  EXPECT_TRUE(contains(fcgi, "fastcgi_pass 127.0.0.1:$berth_port;"));
  EXPECT_TRUE(contains(
      fcgi, "fastcgi_param SCRIPT_FILENAME " + dir.path() + "$berth_fcgi_root$berth_fcgi_script;"));
  EXPECT_TRUE(contains(fcgi, "fastcgi_param REQUEST_METHOD $berth_method;"));
  EXPECT_TRUE(contains(fcgi, "fastcgi_param HTTP_PROXY \"\";"));
  EXPECT_TRUE(contains(fcgi, "fastcgi_param HTTP_X_BERTH_EDGE_PROOF \"\";"));
  EXPECT_TRUE(contains(fcgi, "fastcgi_param HTTP_X_BERTH_NODE_PROOF \"\";"));

  // Cached FastCGI, per ttl of the cache rules: the proxy cache's key, GET only.
  auto fcgi_cached = blockOf(text,
                             "location ~ ^/_berth_fcgi_cache/60/(?<berth_port>[0-9]+)"
                             "(?<berth_fcgi_root>/.*?)/_berth_script(?<berth_fcgi_script>/.*)$ {");
  EXPECT_TRUE(contains(fcgi_cached, "fastcgi_cache berth_fcgi_cache;")) << fcgi_cached;
  EXPECT_TRUE(contains(fcgi_cached, "fastcgi_cache_key \"$berth_cache_key|$host|$request_uri\";"));
  EXPECT_TRUE(contains(fcgi_cached, "fastcgi_cache_valid 60s;"));
  EXPECT_TRUE(contains(fcgi_cached, "$berth_not_get"));
  EXPECT_TRUE(contains(fcgi_cached, "fastcgi_param SCRIPT_FILENAME " + dir.path() +
                                        "$berth_fcgi_root$berth_fcgi_script;"));
  EXPECT_TRUE(contains(text, "keys_zone=berth_fcgi_cache:"));

  // The access log names the method the client sent, not X-Accel-Redirect's GET.
  EXPECT_TRUE(contains(text, "\"method\":\"$berth_log_method\""));

  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

// A 502 of an app location asks berthd once more when nothing reached the app; the second
// failure, or one after bytes were sent, is the JSON answer.
TEST(NginxConfig, AnAppThatRefusedIsAskedForAgainOnce) {
  TempDir dir;
  auto layout = cachingLayout(dir.path());
  layout.files_rules = {{"/", dir.path() + "/runtime/edge", "index.html", ""}};
  layout.app_rules = {{"shop.apps.example.test", 40001}};
  auto text = renderNginxConfig(layout);
  auto map = blockOf(text, "map \"$berth_app_again|$upstream_bytes_sent\" $berth_app_502_page {");
  ASSERT_FALSE(map.empty()) << text;
  EXPECT_TRUE(contains(map, "volatile;")) << map;
  EXPECT_TRUE(contains(map, "\"~^[|](.* : )?0$\" @berth_app_again;")) << map;
  EXPECT_TRUE(contains(map, "default @berth_app_502;")) << map;

  const std::string fcgi_tail =
      "(?<berth_port>[0-9]+)(?<berth_fcgi_root>/.*?)/_berth_script(?<berth_fcgi_script>/.*)$ {";
  for (const std::string& opening :
       {std::string("location ~ ^/_berth_proxy/(?<berth_port>[0-9]+)/ {"),
        std::string("location ~ ^/_berth_cache/60/(?<berth_port>[0-9]+)/ {"),
        std::string("location ~ ^/_berth_cache/[0-9]+/(?<berth_port>[0-9]+)/ {"),
        "location ~ ^/_berth_fcgi/" + fcgi_tail, "location ~ ^/_berth_fcgi_cache/60/" + fcgi_tail,
        "location ~ ^/_berth_fcgi_cache/[0-9]+/" + fcgi_tail}) {
    auto block = blockOf(text, opening);
    ASSERT_FALSE(block.empty()) << opening;
    EXPECT_TRUE(contains(block, "error_page 502 = $berth_app_502_page;")) << block;
    EXPECT_TRUE(contains(block, "recursive_error_pages on;")) << block;
    EXPECT_FALSE(contains(block, "@berth_app_502;")) << block;
  }
  // A direct route's 502 still goes to berthd, which then proxies as above.
  EXPECT_TRUE(contains(blockOf(text, "location = /_berth_direct/60 {"),
                       "error_page 502 = @berth_project;"));

  // The project server asks berthd as it did at first, with the client's method kept, and
  // never from the cache (the request reads GET after X-Accel-Redirect).
  std::string project_server = text.substr(text.find("server_name \"~^(?<berth_sub>"));
  auto again = blockOf(project_server, "location @berth_app_again {");
  ASSERT_FALSE(again.empty()) << project_server;
  EXPECT_TRUE(contains(again, "set $berth_app_again 1;")) << again;
  EXPECT_TRUE(contains(again, "proxy_pass http://berth_backend;"));
  EXPECT_TRUE(contains(again, "proxy_request_buffering on;"));
  EXPECT_TRUE(contains(again, "proxy_method $berth_method;"));
  EXPECT_TRUE(contains(again, "proxy_set_header X-Berth-Edge project;"));
  EXPECT_TRUE(contains(again, "proxy_set_header X-Berth-Edge-Proof "));
  EXPECT_TRUE(contains(again, "proxy_set_header X-Berth-Body-File \"\";"));
  EXPECT_FALSE(contains(again, "set $berth_method")) << again;
  EXPECT_FALSE(contains(again, "proxy_cache ")) << again;
  // The API server's routes never proxy to apps: no second asking there.
  std::string api_server = text.substr(0, text.find("server_name \"~^(?<berth_sub>"));
  auto api_again = blockOf(api_server, "location @berth_app_again {");
  EXPECT_TRUE(contains(api_again, "return 502 ")) << api_again;
  EXPECT_FALSE(contains(api_again, "proxy_pass")) << api_again;

  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

TEST(EdgeFilesRule, PrefixesRootsAndIndexesAreChecked) {
  const std::string data = "/var/lib/berth";
  EXPECT_EQ(checkedEdgeFilesRule({"/_files/", data + "/blobs/edge/", "", ""}, data).root,
            data + "/blobs/edge");
  EXPECT_NO_THROW(checkedEdgeFilesRule({"/", data + "/x", "index.html", "/etc/x.types"}, data));
  auto refused = [&](EdgeFilesRule rule) {
    try {
      checkedEdgeFilesRule(std::move(rule), data);
    } catch (const std::invalid_argument&) {
      return true;
    }
    return false;
  };
  EXPECT_TRUE(refused({"_files/", data + "/x", "", ""}));
  EXPECT_TRUE(refused({"/_files", data + "/x", "", ""}));
  EXPECT_TRUE(refused({"/a b/", data + "/x", "", ""}));
  EXPECT_TRUE(refused({"/a/b/", data + "/x", "", ""}));
  EXPECT_TRUE(refused({"/../", data + "/x", "", ""}));
  EXPECT_TRUE(refused({"/_files/", "/etc", "", ""}));                 // outside data_dir
  EXPECT_TRUE(refused({"/_files/", data, "", ""}));                   // data_dir itself
  EXPECT_TRUE(refused({"/_files/", data + "/../etc", "", ""}));       // climbs out
  EXPECT_TRUE(refused({"/_files/", data + "/x;include y", "", ""}));  // would inject
  EXPECT_TRUE(refused({"/_files/", data + "/x", "../index", ""}));
  EXPECT_TRUE(refused({"/_files/", data + "/x", "a;b", ""}));
  EXPECT_TRUE(refused({"/_files/", data + "/x", "", "types;"}));
}

TEST(EdgeAppRule, HostsAndPortsAreChecked) {
  EXPECT_EQ(checkedEdgeAppRule({"Shop.Example.COM.", 40000}),
            (EdgeAppRule{"shop.example.com", 40000}));
  EXPECT_THROW(checkedEdgeAppRule({"bad host", 40000}), std::invalid_argument);
  EXPECT_THROW(checkedEdgeAppRule({"a.b", 80}), std::invalid_argument);
  EXPECT_THROW(checkedEdgeAppRule({"a..b", 40000}), std::invalid_argument);
}

// Every way to berthd carries the edge proof; every way to an app clears it and the node proof;
// files from disk never follow a link below data_dir.
TEST(NginxConfig, EdgeProofAndSecretsKeptFromApps) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  layout.edge_proof = std::string(64, 'a');
  layout.spooled_routes = {{"POST", "/projects/:name/deploys", 256ull << 20}};
  auto text = renderNginxConfig(layout);
  const std::string proof = "proxy_set_header X-Berth-Edge-Proof " + layout.edge_proof + ";";
  size_t backends = 0, proofs = 0;
  for (size_t at = text.find("proxy_pass http://berth_backend;"); at != std::string::npos;
       at = text.find("proxy_pass http://berth_backend;", at + 1))
    ++backends;
  for (size_t at = text.find(proof); at != std::string::npos; at = text.find(proof, at + 1))
    ++proofs;
  EXPECT_GE(backends, 3u);  // the API's, its spooled route's, the project server's
  EXPECT_EQ(proofs, backends);
  auto proxy = blockOf(text, "location ~ ^/_berth_proxy/(?<berth_port>[0-9]+)/ {");
  EXPECT_TRUE(contains(proxy, "proxy_set_header X-Berth-Edge-Proof \"\";")) << proxy;
  EXPECT_TRUE(contains(proxy, "proxy_set_header X-Berth-Node-Proof \"\";")) << proxy;
  auto file = blockOf(text, "location /_berth_file/ {");
  EXPECT_TRUE(contains(file, "disable_symlinks on from=" + dir.path() + ";")) << file;
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;

  // Without a proof the header is sent empty (berthd refuses those); anything but hex is
  // refused rather than pasted.
  layout.edge_proof.clear();
  EXPECT_TRUE(contains(renderNginxConfig(layout), "proxy_set_header X-Berth-Edge-Proof \"\";"));
  layout.edge_proof = "ab; include /etc/passwd";
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
}

// The access log shows no apikey value, however the name is spelled.
TEST(NginxConfig, AccessLogRedactsTheApikeyParameter) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "\"path\":\"$berth_log_uri\""));
  EXPECT_FALSE(contains(text, "\"path\":\"$request_uri\""));
  auto map = blockOf(text, "map $request_uri $berth_log_uri {");
  EXPECT_TRUE(contains(map, "apikey=REDACTED")) << map;
  EXPECT_TRUE(contains(map, "default $request_uri;")) << map;
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
}

// The pin server (EdgePins): only with a pin port; every worker its own socket; "who" answers
// the worker's pid; "hold" waits on the unix socket, long.
TEST(NginxConfig, PinServer) {
  TempDir dir;
  auto layout = baseLayout(dir.path());
  EXPECT_FALSE(contains(renderNginxConfig(layout), "_berth_pin"));
  layout.pin_port = 18082;
  layout.pin_socket = layout.runtime_dir + "/pins.sock";
  auto text = renderNginxConfig(layout);
  EXPECT_TRUE(contains(text, "listen 127.0.0.1:18082 reuseport;")) << text;
  EXPECT_TRUE(contains(text, "location = /_berth_pin/who { return 200 $pid; }")) << text;
  EXPECT_TRUE(contains(text, "proxy_pass http://unix:" + layout.pin_socket + ":/;")) << text;
  EXPECT_TRUE(contains(text, "proxy_set_header X-Berth-Pin-Worker $pid;")) << text;
  auto result = nginxTest(layout);
  EXPECT_TRUE(result.status.ok()) << result.output;
  layout.pin_socket = "/tmp/x; include /etc/passwd";
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
}

// Which nginx loses a request's timer with epoll (fixed in 1.23.1); unreadable text: assume so.
TEST(NginxConfig, WhichNginxNeedsPins) {
  EXPECT_TRUE(nginxLosesTimersWithEpoll("nginx version: nginx/1.22.1\n"));
  EXPECT_TRUE(nginxLosesTimersWithEpoll("nginx version: nginx/1.23.0"));
  EXPECT_FALSE(nginxLosesTimersWithEpoll("nginx version: nginx/1.23.1"));
  EXPECT_FALSE(nginxLosesTimersWithEpoll("nginx version: nginx/1.26.3 (Ubuntu)"));
  EXPECT_FALSE(nginxLosesTimersWithEpoll("nginx version: nginx/2.0.0"));
  EXPECT_TRUE(nginxLosesTimersWithEpoll("nginx version: openresty"));
  EXPECT_TRUE(nginxLosesTimersWithEpoll(""));
}
