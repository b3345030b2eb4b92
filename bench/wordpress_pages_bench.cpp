// bench/wordpress_pages: WordPress's front page and single post, uncached, on PostgreSQL
// through the Berth drop-in next to the same WordPress on MariaDB, in the same run and on the
// same path: two Berth projects on one berthd, both served by the edge and the platform's
// php-cgi. The first is installed by the wordpress template (PostgreSQL, wp-content/db.php);
// the second is a release of the same shared tree with a MariaDB wp-config.php and no db.php,
// on a MariaDB this bench starts (mariadbd on a loopback port) and installs with
// tests/wordpress/flows/install.php. Prints ms per page (median of sequential requests),
// req/s (wrk, rounds alternating between the sites) and the PostgreSQL/MariaDB ratio (goal
// 0.7), then the translator's cost per statement when tests/wordpress/translator/
// translate_corpus.php exists.
// Usage (as root): build/bench/bench_wordpress_pages [seconds per wrk round, default 8]
//                  [rounds, default 3]
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>
#include <vector>

#include "projects/api_support.hpp"
#include "support/berthd_process.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

constexpr const char* kPassword = "bench-passw0rd";

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "bench_wordpress_pages: %s\n", why.c_str());
  std::exit(1);
}

berth::core::RunResult mustRun(const std::vector<std::string>& argv,
                               const berth::core::SpawnOptions& options = {},
                               std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  auto r = berth::core::runCommand(argv, options, timeout);
  if (!r.status.ok()) {
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    fail(cmd + "failed: " + r.output);
  }
  return r;
}

uint16_t freePort() {
  auto r = mustRun({"/usr/bin/python3", "-c",
                    "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); "
                    "print(s.getsockname()[1])"});
  return static_cast<uint16_t>(std::stoi(r.output));
}

// A MariaDB of the bench's own: its folder, loopback port, user wp/wp and database wp.
struct MariaDb {
  std::string dir;
  uint16_t port = 0;
  berth::core::Child server;

  void start() {
    dir = makeTempDir("bench-wp-mariadb");
    const std::string user = berth::core::lookupUser("mysql") ? "mysql" : "nobody";
    mustRun({"chown", user, dir});
    berth::core::SpawnOptions as;
    as.run_as = user;
    mustRun({"mariadb-install-db", "--no-defaults", "--datadir=" + dir + "/data",
             "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"},
            as);
    port = freePort();
    as.output_file = dir + "/server.log";
    server = berth::core::spawn(
        {"mariadbd", "--no-defaults", "--datadir=" + dir + "/data", "--socket=" + dir + "/sock",
         "--port=" + std::to_string(port), "--bind-address=127.0.0.1", "--skip-name-resolve",
         "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
         "--skip-log-bin", "--pid-file=" + dir + "/pid"},
        as);
    for (int i = 0; i < 300; ++i) {
      auto ping = berth::core::runCommand(
          {"mariadb", "--no-defaults", "-S", dir + "/sock", "-uroot", "-e", "SELECT 1"});
      if (ping.status.ok()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    mustRun({"mariadb", "--no-defaults", "-S", dir + "/sock", "-uroot", "-e",
             "CREATE DATABASE wp; CREATE USER 'wp'@'%' IDENTIFIED BY 'wp'; "
             "GRANT ALL ON wp.* TO 'wp'@'%';"});
  }
  ~MariaDb() {
    if (server.pid() > 0) {
      server.signal(SIGTERM);
      server.wait(std::chrono::seconds(30));
    }
    if (!dir.empty()) removeTree(dir);
  }
};

// wp-config.php of the MariaDB twin: Berth's settings (address from BERTH_URL, no cron on page
// views, no file changes, no requests off the machine), its own database.
std::string mariadbConfig(uint16_t port) {
  std::string salts;
  for (const char* key : {"AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT",
                          "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"})
    salts +=
        "define('" + std::string(key) + "', 'bench-" + key + "-0123456789abcdef0123456789');\n";
  return "<?php\n" + salts +
         "$berth_url = rtrim((string) getenv('BERTH_URL'), '/');\n"
         "if (!defined('WP_HOME') && $berth_url !== '') { define('WP_HOME', $berth_url); "
         "define('WP_SITEURL', $berth_url); }\n"
         "define('DB_NAME', 'wp');\ndefine('DB_USER', 'wp');\ndefine('DB_PASSWORD', 'wp');\n"
         "define('DB_HOST', '127.0.0.1:" +
         std::to_string(port) +
         "');\n"
         "define('DB_CHARSET', 'utf8mb4');\ndefine('DB_COLLATE', '');\n$table_prefix = 'wp_';\n"
         "define('DISABLE_WP_CRON', true);\ndefine('DISALLOW_FILE_EDIT', true);\n"
         "define('DISALLOW_FILE_MODS', true);\ndefine('AUTOMATIC_UPDATER_DISABLED', true);\n"
         "define('WP_AUTO_UPDATE_CORE', false);\ndefine('WP_HTTP_BLOCK_EXTERNAL', true);\n"
         "define('WP_DEBUG', false);\n"
         "if (!defined('ABSPATH')) { define('ABSPATH', __DIR__ . '/'); }\n"
         "require_once ABSPATH . 'wp-settings.php';\n";
}

std::string hostOf(const std::string& url) {
  auto start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  return url.substr(start, url.find('/', start) - start);
}

struct Site {
  std::string name, project, host;
};

HttpResult page(const BerthdProcess& server, const Site& site, const std::string& path) {
  return sendToHost(server.baseUrl(), site.host, "GET", path, {}, "", 120000);
}

double wrkRequestsPerSecond(const BerthdProcess& server, const Site& site, const std::string& path,
                            int seconds, long* non2xx) {
  auto r = mustRun({"wrk", "-t2", "-c4", "-d" + std::to_string(seconds) + "s", "-H",
                    "Host: " + site.host, server.baseUrl() + path},
                   {}, std::chrono::seconds(seconds + 60));
  std::smatch m;
  if (!std::regex_search(r.output, m, std::regex(R"(Requests/sec:\s+([0-9.]+))")))
    fail("wrk printed no Requests/sec: " + r.output);
  if (std::regex_search(r.output, m, std::regex(R"(Non-2xx or 3xx responses:\s+(\d+))")))
    *non2xx += std::stol(m[1]);
  std::regex_search(r.output, m, std::regex(R"(Requests/sec:\s+([0-9.]+))"));
  return std::stod(m[1]);
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 8;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string source = BERTH_TEST_SOURCE_DIR;

  BerthdOptions options;
  options.plugins = {"projects", "storage", "runtime", "scheduler", "templates", "wordpress"};
  options.extra_yaml = "projects:\n  secrets_key: \"" + std::string(64, 'b') +
                       "\"\ntemplates:\n  answer_within_seconds: 3\n";
  BerthdProcess server(options);
  server.start();
  auto api = server.api(projects_api::makeAccount(server, "bench").token);

  Site pg{"PostgreSQL (drop-in)", "", ""}, my{"MariaDB (stock)", "", ""};
  for (Site* s : {&pg, &my}) {
    auto created = api.post("/projects", {{"name", s == &pg ? "wppg" : "wpmy"}});
    if (created.status != 201) fail("create: " + created.body);
    s->project = created.json()["name"];
    s->host = hostOf(created.json()["url"]);
    auto uncached = api.patch("/projects/" + s->project, {{"cache_enabled", false}});
    if (uncached.status != 200) fail("cache off: " + uncached.body);
  }

  // PostgreSQL: the template's install.
  const std::string install = "/projects/" + pg.project + "/app-templates/wordpress/install";
  auto started = api.post(install, {{"email", "bench@example.com"}, {"password", kPassword}});
  nlohmann::json state = started.json();
  while (started.status == 202 && state.value("status", "") == "installing") {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    state = api.get(install).json();
  }
  if (started.status == 202) {
    if (state.value("status", "") != "installed") fail("install: " + state.dump());
    state = state["answer"];
  } else if (started.status != 200) {
    fail("install: " + started.body);
  }
  std::string tree = state["wordpress"]["tree"];
  if (fs::exists(tree + "/site/wp-settings.php")) tree += "/site";
  if (!fs::exists(tree + "/wp-settings.php")) fail("no WordPress tree at " + tree);

  // MariaDB: the same tree, its own wp-config.php, no drop-in; installed from the CLI, then
  // deployed as a release of the second project.
  MariaDb mariadb;
  mariadb.start();
  const std::string work = makeTempDir("bench-wp-release");
  const std::string copy = work + "/site";
  mustRun({"cp", "-a", tree, copy});
  fs::remove(copy + "/wp-content/db.php");
  fs::remove_all(copy + "/wp-content/berth-pgsql");
  std::ofstream(copy + "/wp-config.php") << mariadbConfig(mariadb.port);
  const std::string my_url = "http://" + my.host;
  mustRun({"php", source + "/tests/wordpress/flows/install.php", copy, my_url, "admin", kPassword});
  mustRun({"tar", "-C", copy, "-czf", work + "/release.tar.gz", "."});
  std::ifstream in(work + "/release.tar.gz", std::ios::binary);
  std::string archive((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto deployed = api.raw("POST", "/projects/" + my.project + "/deploys", archive,
                          {"Content-Type: application/gzip"});
  if (deployed.status != 202) fail("deploy: " + deployed.body);
  const std::string deploy_id = deployed.json()["id"];
  for (;;) {
    auto one = api.get("/projects/" + my.project + "/deploys/" + deploy_id).json();
    const std::string status = one.value("status", "");
    if (status == "live") break;
    if (status != "building") fail("deploy ended " + one.dump());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  removeTree(work);

  // Both sites answer both pages (the first request wakes php-cgi).
  const std::vector<std::pair<std::string, std::string>> pages = {{"front page", "/"},
                                                                  {"single post", "/hello-world/"}};
  for (const Site* s : {&pg, &my})
    for (const auto& [label, path] : pages)
      for (int i = 0; i < 3; ++i) {
        auto r = page(server, *s, path);
        if (r.status != 200 || r.body.find("Hello world!") == std::string::npos)
          fail(s->name + " " + path + " answered " + std::to_string(r.status) + ": " +
               r.body.substr(0, 2000));
      }

  std::printf(
      "WordPress %s, uncached, through the edge and php-cgi; wrk -t2 -c4 %d s x %d rounds\n",
      state["wordpress"].value("version", "?").c_str(), seconds, rounds);
  std::printf("| page | site | ms per page (median of 30) | req/s (median) | per round |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const auto& [label, path] : pages) {
    // Latency: one request at a time, the two sites interleaved.
    std::vector<double> ms[2];
    for (int i = 0; i < 30; ++i)
      for (int which = 0; which < 2; ++which) {
        const Site& s = which == 0 ? pg : my;
        auto t = Clock::now();
        auto r = page(server, s, path);
        ms[which].push_back(msSince(t));
        if (r.status != 200) fail(s.name + " " + path + ": " + std::to_string(r.status));
      }
    const double latency[2] = {median(ms[0]), median(ms[1])};
    // Throughput: rounds alternate between the two sites, so drift hits both alike.
    std::vector<double> per[2];
    long non2xx = 0;
    for (int round = 0; round < rounds; ++round)
      for (int which = 0; which < 2; ++which)
        per[which].push_back(
            wrkRequestsPerSecond(server, which == 0 ? pg : my, path, seconds, &non2xx));
    for (int which = 0; which < 2; ++which) {
      std::string rounds_text;
      for (double v : per[which])
        rounds_text += (rounds_text.empty() ? "" : ", ") + std::to_string(static_cast<int>(v));
      std::printf("| %s | %s | %.1f | %.1f | %s |\n", label.c_str(),
                  (which == 0 ? pg : my).name.c_str(), latency[which], median(per[which]),
                  rounds_text.c_str());
    }
    std::string ratios;
    for (int round = 0; round < rounds; ++round) {
      char one[32];
      std::snprintf(one, sizeof one, "%s%.2f", round ? ", " : "", per[0][round] / per[1][round]);
      ratios += one;
    }
    std::printf(
        "%s: PostgreSQL/MariaDB req/s %.2f (per round %s; goal 0.7), ms per page %.2fx; "
        "non-2xx answers %ld\n",
        label.c_str(), median(per[0]) / median(per[1]), ratios.c_str(), latency[0] / latency[1],
        non2xx);
  }

  const std::string translate = source + "/tests/wordpress/translator/translate_corpus.php";
  if (fs::exists(translate)) {
    auto r = berth::core::runCommand({"php", translate}, {}, std::chrono::minutes(5));
    std::printf("translator (%s):\n%s", translate.c_str(), r.output.c_str());
  } else {
    std::printf("translator: %s is not there yet\n", translate.c_str());
  }
  server.terminate();
  return 0;
}
