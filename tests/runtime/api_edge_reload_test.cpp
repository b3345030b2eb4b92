// ctest-label: api (starts a real berthd)
// An edge reload never cuts an answer in flight. The first request of a fresh PHP app (held
// while php-cgi starts, then FastCGI through the edge) streams 200 KB; between its first bytes
// and the rest the edge reloads (another project's first answer publishes its cache rule), and
// the client must still get the whole body.
//
// How it used to break (nginx before 1.23.1, Debian 12's 1.22, with epoll): a read of the app's
// answer that takes exactly what FIONREAD said was waiting leaves the read event "ready", so the
// buffered upstream path drops the request's only timer while it waits for more. An old worker
// of a reload exits as soon as it has no timer left, closing the client's connection: the answer
// ends after its first few KB (ERR_INCOMPLETE_CHUNKED_ENCODING in a browser). The first part
// below reaches nginx as 8192 bytes: it reads 4 KB (its header buffer), asks FIONREAD, and
// reads the other 4 KB into a buffer of exactly that size.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
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

// Its first 12 KB fill php-cgi's FastCGI buffer once: one write of exactly 8192 bytes (a
// record of 8184), as a page of WordPress begins; the rest stays in PHP while it says so (a
// file in HOME) and waits for the test's go (another file); then the rest streams slowly.
const char* const kStreamPhp = R"PHP(<?php
header('Content-Type: text/plain');
header('Cache-Control: no-store');
$home = getenv('HOME');
echo str_repeat('a', 12287), "\n";
touch("$home/paused");
for ($i = 0; $i < 600 && !file_exists("$home/go"); $i++) usleep(50000);
$line = str_repeat('b', 1023) . "\n";
for ($i = 0; $i < 188; $i++) { echo $line; flush(); usleep(2000); }
)PHP";

constexpr size_t kFirstPart = 12288;
constexpr int kLines = 188;
constexpr size_t kWholeBody = kFirstPart + kLines * 1024;  // 200 KB

// The pids of nginx's workers (the master's children), from /proc.
std::set<pid_t> nginxWorkers(pid_t master) {
  std::set<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* entry = ::readdir(proc)) {
    pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == master && state != "Z") out.insert(pid);
  }
  ::closedir(proc);
  return out;
}

class ApiEdgeReload : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    if (!berth::runtime::toolOnPath("php-cgi")) return;
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    options.extra_yaml =
        secretsKeyYaml() +
        "  creation_burst: 100\n"
        "runtime:\n"
        "  start_timeout_seconds: 10\n"
        "  stop_grace_seconds: 2\n" +
        (berth::runtime::toolOnPath("bwrap") ? "" : "  unsafe_run_without_sandbox: true\n");
    startServer(options, "reloadown");
  }
  void SetUp() override {
    if (!berth::runtime::toolOnPath("php-cgi"))
      GTEST_SKIP() << "php-cgi is not installed here (scripts/install-deps.sh installs it)";
  }

  static void deploy(const std::string& name, const std::string& archive) {
    deployLive(api(), name, archive, std::chrono::seconds(60));
  }
};

TEST_F(ApiEdgeReload, TheFirstAnswerOfAFreshPhpAppArrivesWholeThroughAReload) {
  const std::string streaming = project("reloadstream");
  const std::string other = project("reloadother");
  deploy(streaming, TarBuilder().file("index.php", kStreamPhp).finish());
  deploy(other, TarBuilder().file("index.php", "<?php echo 'other';").finish());
  const std::string home = server->dataDir() + "/runtime/homes/" + projectId(*server, streaming);
  const std::string edge_dir = server->dataDir() + "/edge";
  const auto error_log_start = std::filesystem::file_size(edge_dir + "/error.log");

  HttpResult answer;
  std::thread client([&] { answer = onProjectHost(*server, streaming, "/"); });

  // The first part is out and PHP waits: the request's worker is one of these.
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(home + "/paused"); },
                         std::chrono::seconds(30)))
      << "the script never started";
  const pid_t master = static_cast<pid_t>(std::stol(readFile(edge_dir + "/nginx.pid")));
  const std::set<pid_t> before = nginxWorkers(master);

  // A routing change: the other project's first answer gives its host a cache rule.
  EXPECT_EQ(onProjectHost(*server, other, "/").body, "other");
  EXPECT_TRUE(eventually([&] {
    for (pid_t pid : nginxWorkers(master))
      if (!before.contains(pid)) return true;
    return false;
  })) << "the edge did not reload";
  // An old worker that had lost every timer exits at once, taking the connection along.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::ofstream(home + "/go") << "go\n";
  client.join();

  EXPECT_EQ(answer.error, "");
  EXPECT_EQ(answer.status, 200);
  ASSERT_EQ(answer.body.size(), kWholeBody) << "the answer was cut short";
  std::string expected(kFirstPart - 1, 'a');
  expected += '\n';
  for (int i = 0; i < kLines; ++i) expected.append(1023, 'b').push_back('\n');
  EXPECT_EQ(answer.body, expected);
  const std::string error_log = readFile(edge_dir + "/error.log").substr(error_log_start);
  EXPECT_EQ(error_log.find("left in connection"), std::string::npos) << error_log;
}

}  // namespace
