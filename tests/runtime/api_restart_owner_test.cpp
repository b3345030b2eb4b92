// ctest-label: api (starts a real berthd)
// A berthd killed with its app running and started again is a new node (a new node id), and
// the app's claim in runtime.app_owners still names the killed one. The next request must be
// served (the app started afresh here), not answered 503 "the node that runs this project's
// app is gone" until the old claim expires.
#include <gtest/gtest.h>
#include <signal.h>

#include "host_requests.hpp"
#include "projects/api_support.hpp"
#include "support/fault_injection.hpp"
#include "support/release_upload.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::testing::faults::FaultServer;

namespace {

const char* const kApp = R"JS(
require('http').createServer((req, res) => {
  res.setHeader('content-type', 'text/plain');
  res.end('up ' + process.pid);
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

TEST(ApiRestartOwner, AnAppOfAKilledBerthdIsServedAtOnceAfterItsRestart) {
  BerthdOptions options;
  options.plugins = {"projects", "storage", "runtime"};
  options.extra_yaml = "runtime:\n  start_timeout_seconds: 30\n";
  FaultServer server(options);
  server.start();
  const Account owner = makeAccount(server.process(), "restart");
  mustCreate(server.api(owner.token), "svc");
  const std::string name = projectName("svc", owner.slug);
  deployLive(server.api(owner.token), name, nodeRelease(kApp), std::chrono::seconds(120));
  auto before = onProjectHost(server.process(), name, "/");
  ASSERT_EQ(before.status, 200) << before.body;

  ASSERT_EQ(::kill(server.pid(), SIGKILL), 0);
  server.restartAfterKill();
  // At once: the killed node's claim was renewed within the last second, and lasts 5 s.
  auto after = onProjectHost(server.process(), name, "/");
  EXPECT_EQ(after.status, 200) << after.body;
  EXPECT_EQ(after.body.rfind("up ", 0), 0u) << after.body;
}

}  // namespace
