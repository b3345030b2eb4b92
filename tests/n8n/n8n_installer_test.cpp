// The n8n installer against the SDK's fake host, as a third party would test theirs: what it
// asks of each service (the shared tree, the key once, the start options, the release), what
// it answers, and how it fails. The real n8n runs in tests/n8n/e2e_n8n_test.cpp.
#include <gtest/gtest.h>

#include <berth/services/runtime_releases.hpp>
#include <berth/services/runtime_shared_trees.hpp>
#include <berth/testing/fake_host.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "n8n_installer.hpp"
#include "payload_pins.hpp"

namespace {

using berth::n8n::N8nInstaller;

const std::string kShare = BERTH_TEST_BINARY_DIR "/share/berth";
const std::string kPayload = kShare + "/templates/n8n";

std::string readWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Call {
  std::string service, method;
  nlohmann::json request;
};

class N8nInstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host.setShareDir(kShare);
    N8nInstaller::Timing fast;
    fast.poll = std::chrono::milliseconds(1);
    fast.progress_every = std::chrono::seconds(0);
    host.fakeInstaller(std::make_shared<N8nInstaller>(fast), "n8n");
    fake("projects.secrets.v1", [this](const nlohmann::json& r) {
      bool stored = !key_exists;
      if (stored) generated_key = r["value"];
      return nlohmann::json{
          {"name", r["name"]}, {"scope", "runtime"}, {"updated_at", 1}, {"stored", stored}};
    });
    fake("runtime.shared_trees.v1", [this](const nlohmann::json&) {
      berth::runtime_shared_trees::Tree tree;
      tree.name = "t";
      tree.path = "/data/shared/t";
      tree.log = "npm http fetch x";
      tree.started_at = 1;
      tree.state = building_answers-- > 0 ? "building" : tree_end;
      if (tree_end == "failed") tree.error = "the build step sh exited with code 1";
      return berth::runtime_shared_trees::toJson(tree);
    });
    fake("runtime.apps.v1", [](const nlohmann::json& r) { return r; });
    fake("projects.directory.v1", [](const nlohmann::json& r) { return r; });
    fake("runtime.releases.v1", [this](const nlohmann::json& r) {
      berth::runtime_releases::Release release;
      release.id = "rel1";
      release.project = "flows-ann";
      release.status = "building";
      release.cmd = "sh start.sh";
      release.region = "local";
      if (r.contains("timeout_seconds")) {
        release.status = release_end;
        release.build_log = "";
        if (release_end == "failed") release.error = "the app did not start";
      }
      return berth::runtime_releases::toJson(release);
    });
    fake("templates.installs.v1", [](const nlohmann::json&) {
      return nlohmann::json{{"noted", true}};
    });
  }

  void fake(const std::string& service, std::function<nlohmann::json(const nlohmann::json&)> fn) {
    host.fakeService(service,
                     [this, service, fn](std::string_view method, const nlohmann::json& request) {
                       calls.push_back({service, std::string(method), request});
                       return fn(request);
                     });
  }

  std::vector<Call> callsTo(const std::string& service, const std::string& method = "") const {
    std::vector<Call> out;
    for (const Call& c : calls)
      if (c.service == service && (method.empty() || c.method == method)) out.push_back(c);
    return out;
  }

  nlohmann::json install() {
    return host.install("n8n", nlohmann::json::object(),
                        {{"id", "p1"},
                         {"name", "flows-ann"},
                         {"account_id", "a1"},
                         {"url", "http://flows-ann.example:8080"}});
  }

  berth::testing::FakeHost host;
  std::vector<Call> calls;
  int building_answers = 2;
  std::string tree_end = "ready";
  std::string release_end = "live";
  bool key_exists = false;
  nlohmann::json generated_key;
};

TEST_F(N8nInstallerTest, TheTreeIsNamedForItsPinsAndDigest) {
  auto pins = berth::n8n::readPayloadPins(kPayload);
  EXPECT_EQ(pins.n8n_version, "2.41.1");
  EXPECT_EQ(pins.node_version, "24.21.0");
  EXPECT_TRUE(
      std::regex_match(pins.treeName(), std::regex(R"(n8n-2\.41\.1-node24\.21\.0-[0-9a-f]{12})")))
      << pins.treeName();
  EXPECT_EQ(berth::n8n::readPayloadPins(kPayload).digest, pins.digest) << "stable";
}

TEST_F(N8nInstallerTest, AFreshInstallWaitsForTheTreeThenSetsEverythingUp) {
  nlohmann::json answer = install();
  auto pins = berth::n8n::readPayloadPins(kPayload);

  auto ensure = callsTo("runtime.shared_trees.v1", "ensure");
  ASSERT_EQ(ensure.size(), 1u);
  EXPECT_EQ(ensure[0].request["name"], pins.treeName());
  EXPECT_EQ(ensure[0].request["source"], kPayload);
  EXPECT_EQ(ensure[0].request["command"], nlohmann::json({"sh", "build.sh"}));
  EXPECT_EQ(ensure[0].request["project_id"], "p1") << "the core names the project";
  EXPECT_EQ(callsTo("runtime.shared_trees.v1", "get").size(), 2u) << "polled while building";
  auto progress = callsTo("templates.installs.v1", "progress");
  ASSERT_GE(progress.size(), 2u);
  EXPECT_NE(progress[1].request["message"].get<std::string>().find(
                "building n8n 2.41.1 on Node 24.21.0 for this server"),
            std::string::npos)
      << progress[1].request.dump();

  auto secret = callsTo("projects.secrets.v1", "set");
  ASSERT_EQ(secret.size(), 1u);
  EXPECT_EQ(secret[0].request["name"], "N8N_ENCRYPTION_KEY");
  EXPECT_EQ(secret[0].request["only_if_absent"], true);
  EXPECT_TRUE(
      std::regex_match(secret[0].request["value"].get<std::string>(), std::regex("[0-9a-f]{64}")));

  auto options = callsTo("runtime.apps.v1", "set_start_options");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(options[0].request["readiness_path"], "/healthz/readiness");
  EXPECT_EQ(options[0].request["start_timeout_seconds"], 180);
  EXPECT_EQ(options[0].request["read_only_paths"], nlohmann::json({"/data/shared/t"}));
  EXPECT_EQ(options[0].request["environment"]["BERTH_N8N_HOME"], "/data/shared/t");

  auto cache = callsTo("projects.directory.v1", "set_cache");
  ASSERT_EQ(cache.size(), 1u) << "webhooks are never answered from the edge's cache";
  EXPECT_EQ(cache[0].request["cache_enabled"], false);

  auto create = callsTo("runtime.releases.v1", "create");
  ASSERT_EQ(create.size(), 1u);
  EXPECT_EQ(create[0].request["cmd"], "sh start.sh");
  EXPECT_EQ(create[0].request["files"][0]["path"], "start.sh");
  EXPECT_EQ(create[0].request["files"][0]["content"], readWhole(kPayload + "/start.sh"));
  auto wait = callsTo("runtime.releases.v1", "wait");
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_EQ(wait[0].request["release_id"], "rel1");

  EXPECT_EQ(answer["secrets"], nlohmann::json({"N8N_ENCRYPTION_KEY"}));
  EXPECT_EQ(answer["schedules"], nlohmann::json::array());
  EXPECT_EQ(answer["release"]["status"], "live");
  EXPECT_EQ(answer["key_generated"], true);
  EXPECT_EQ(answer.dump().find(generated_key.get<std::string>()), std::string::npos)
      << "the key's value is never in the answer";
  EXPECT_NE(answer["next"].get<std::string>().find("http://flows-ann.example:8080"),
            std::string::npos);
}

TEST_F(N8nInstallerTest, ASecondInstallKeepsTheKey) {
  key_exists = true;
  building_answers = 0;
  nlohmann::json answer = install();
  EXPECT_EQ(answer["key_generated"], false);
  EXPECT_EQ(callsTo("runtime.shared_trees.v1", "get").size(), 0u)
      << "a ready tree is not waited for";
  EXPECT_EQ(callsTo("runtime.releases.v1", "create").size(), 1u) << "a new release";
}

TEST_F(N8nInstallerTest, AFailedTreeBuildFailsTheInstallAndTouchesNothing) {
  tree_end = "failed";
  try {
    install();
    FAIL() << "installed";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 502);
    EXPECT_EQ(e.message(),
              "n8n 2.41.1 could not be built for this server: the build step sh exited with "
              "code 1; run the install again to retry");
  }
  EXPECT_TRUE(callsTo("projects.secrets.v1").empty());
  EXPECT_TRUE(callsTo("runtime.apps.v1").empty());
  EXPECT_TRUE(callsTo("runtime.releases.v1").empty());
}

TEST_F(N8nInstallerTest, AReleaseThatFailsFailsTheInstallWithItsError) {
  release_end = "failed";
  try {
    install();
    FAIL() << "installed";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 502);
    EXPECT_EQ(e.message(), "the n8n release rel1 did not become ready: the app did not start");
  }
}

}  // namespace
