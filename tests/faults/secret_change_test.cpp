// ctest-label: e2e
// berthd killed (SIGKILL) or stopped (SIGSTOP, longer than the client's timeout) at a random
// point of a secret change while the project's Node app runs. After the restart (or SIGCONT)
// the stored value is the old or the new one (the new one whenever the change was answered
// 201), and the running app settles on exactly the stored value: never an app serving the old
// value while the API holds the new one, or the reverse. Every route answers after each round.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "faults/fault_cases_support.hpp"
#include "projects/api_support.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

// Answers its GREETING and which process it is (a restart shows as a new instance).
const char* const kApp = R"JS(
const instance = Math.random().toString(36).slice(2, 10);
require('http').createServer((req, res) => {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({greeting: process.env.GREETING || null, instance}));
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

class SecretChangeFaults : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    options.extra_yaml = secretsKeyYaml() +
                         "runtime:\n  idle_stop_seconds: 600\n  start_timeout_seconds: 20\n"
                         "  stop_grace_seconds: 2\n";
    server = std::make_unique<BerthdProcess>(options);
    server->start();
    owner = makeAccount(*server, GetParam() == Mode::Kill ? "seckill" : "secstop");
    mustCreate(api(), "node");
    project = projectName("node", owner.slug);
    ASSERT_EQ(setSecret("v0", 10000).status, 201);
    deployLive(api(), project, nodeRelease(kApp));
  }
  void TearDown() override {
    if (server) stopCleanly(*server);
  }

  ApiClient api() const { return server->api(owner.token); }
  HttpResult setSecret(const std::string& value, long timeout_ms) const {
    HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = server->baseUrl() + "/projects/" + project + "/secrets";
    spec.body = json{{"name", "GREETING"}, {"value", value}}.dump();
    spec.headers = {"Content-Type: application/json", "Authorization: Bearer " + owner.token};
    spec.timeout_ms = timeout_ms;
    return send(spec);
  }
  // The value the API holds (projects.directory.v1 secrets: the same rows the app's
  // environment is read from).
  std::string stored() const {
    json vars = mustCallService(*server, "projects.directory.v1", "secrets",
                                {{"name", project}, {"scope", "runtime"}})
                    .at("vars");
    return vars.value("GREETING", "<absent>");
  }
  std::string appValue() const {
    auto r = onHost(*server, project, "/", 5000);
    if (r.status != 200) return "<" + std::to_string(r.status) + " " + r.body + r.error + ">";
    return r.json().value("greeting", "<null>");
  }

  std::unique_ptr<BerthdProcess> server;
  Account owner;
  std::string project;
};

TEST_P(SecretChangeFaults, TheAppRunsWithTheStoredValue) {
  const Mode mode = GetParam();
  FaultPlan plan("secret-change", mode);
  FaultTally tally("secret-change", mode);
  std::string old_value = "v0";
  for (int round = 1; round <= plan.rounds(); ++round) {
    ASSERT_EQ(appValue(), old_value) << "round " << round << ": the app before the change";
    const std::string new_value = "v" + std::to_string(round);
    // The change takes a few milliseconds and the app's restart a few hundred: kill points
    // fall across both.
    const auto kill_at = plan.delay(400);
    std::atomic<long> answered{-1};
    std::thread change([&] { answered = setSecret(new_value, 2000).status; });
    std::this_thread::sleep_for(kill_at);
    strikeBerthd(*server, mode);
    change.join();

    const std::string now_stored = stored();
    bool consistent = now_stored == old_value || now_stored == new_value;
    EXPECT_TRUE(consistent) << "round " << round << ": stored " << now_stored;
    if (answered == 201) {
      EXPECT_EQ(now_stored, new_value) << "round " << round << ": a 201 change was lost";
      consistent = consistent && now_stored == new_value;
    }
    // The app settles on the stored value and stays there.
    std::string seen;
    bool settled = eventually(
        [&] {
          seen = appValue();
          return seen == now_stored;
        },
        std::chrono::seconds(20));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (settled) seen = appValue();
    EXPECT_EQ(seen, now_stored) << "round " << round << " (" << modeName(mode) << " at "
                                << kill_at.count() << " ms, change answered " << answered
                                << "): the app runs with another value than the API holds";
    consistent = consistent && seen == now_stored;
    const std::string failing =
        routesAnswer(*server, owner.token, {project}) + leftovers(server->dataDir());
    EXPECT_EQ(failing, "") << "round " << round;
    const std::string point = "round " + std::to_string(round) + " at " +
                              std::to_string(kill_at.count()) + " ms, change answered " +
                              std::to_string(answered);
    recordPoint(tally, (consistent ? "" : "the app's value or the stored one is wrong\n") + failing,
                point);
    old_value = now_stored;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, SecretChangeFaults, ::testing::Values(Mode::Kill, Mode::Stop),
                         [](const auto& info) { return std::string(modeName(info.param)); });

}  // namespace
