// ctest-label: api (starts a real berthd)
// A request is not failed because its app is replaced under it: one waiting for the app's
// start when a secret change restarts it, or when another release goes live, is served by
// the replacement; one already handed to the app (a slow handler) when a secret change
// restarts it gets its answer (the old app is drained before it is signalled).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "../projects/api_support.hpp"
#include "host_requests.hpp"
#include "support/berthd_suite.hpp"
#include "support/release_upload.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::testing::stopCleanly;
using nlohmann::json;

namespace {

// Listens only after `delay` ms, so that requests certainly wait for its start.
std::string lateApp(int delay, const std::string& says) {
  return "setTimeout(() => require('http').createServer((q, s) => s.end('" + says +
         "\\n')).listen(Number(process.env.PORT), '127.0.0.1'), " + std::to_string(delay) + ");";
}

// Answers /slow a second after the request came; its SIGTERM ends it at once (node's default).
const char* const kSlowHandlerApp = R"JS(
require('http').createServer((req, res) => {
  res.setHeader('cache-control', 'no-store');
  if (req.url === '/slow') { setTimeout(() => res.end('slow answer\n'), 1000); return; }
  res.end('quick\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

class ApiAppReplacement : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    options.extra_yaml = secretsKeyYaml() +
                         "  creation_burst: 100\n"
                         "runtime:\n"
                         "  idle_stop_seconds: 30\n"
                         "  start_timeout_seconds: 20\n"
                         "  stop_grace_seconds: 2\n";
    startServer(options, "replown");
  }

  static std::string deploy(const std::string& name, const std::string& archive) {
    return deployLive(api(), name, archive, std::chrono::seconds(60));
  }

  static void setSecret(const std::string& name, const std::string& value) {
    auto r = api().post("/projects/" + name + "/secrets",
                        {{"name", "GREETING"}, {"value", value}, {"scope", "runtime"}});
    ASSERT_EQ(r.status, 201) << r.body;
  }

  static std::future<HttpResult> request(const std::string& name, const std::string& path,
                                         const std::string& method = "GET") {
    return std::async(std::launch::async,
                      [=] { return onProjectHost(*server, name, path, {}, method); });
  }
};

TEST_F(ApiAppReplacement, ARequestWaitingForTheStartOutlivesARestartForASecret) {
  std::string name = project("waitsecret");
  setSecret(name, "first");
  deploy(name, nodeRelease(lateApp(2000, "started")));
  auto waiting = request(name, "/", "POST");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // the app is starting
  setSecret(name, "second");                                    // and restarts
  HttpResult r = waiting.get();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "started\n");
}

TEST_F(ApiAppReplacement, ARequestWaitingForTheStartIsServedByTheNewLiveRelease) {
  std::string name = project("waitdeploy");
  deploy(name, nodeRelease(lateApp(8000, "old release")));
  auto waiting = request(name, "/");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  deploy(name, nodeRelease(lateApp(0, "new release")));
  HttpResult r = waiting.get();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.body == "new release\n" || r.body == "old release\n") << r.body;
}

TEST_F(ApiAppReplacement, ARequestTheAppIsAnsweringOutlivesARestartForASecret) {
  std::string name = project("inflight");
  setSecret(name, "first");
  deploy(name, nodeRelease(kSlowHandlerApp));
  // The first request starts the app and is handed to it by berthd (not by a direct rule);
  // a POST, which nothing may send twice.
  auto slow = request(name, "/slow", "POST");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the app holds it
  setSecret(name, "second");
  HttpResult r = slow.get();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "slow answer\n");
  // And the restarted app serves.
  EXPECT_EQ(onProjectHost(*server, name, "/").status, 200);
}

}  // namespace
