// ctest-label: e2e (the real n8n: builds its 2.9 GB tree from the npm registry, minutes)
// n8n installed the way a user installs it, and used the way a person uses it, through the
// project's address on the edge: the cold install (the shared tree built once, an install that
// arrives meanwhile says so and waits for the same build), the editor page, the owner created
// by the first visitor, a workflow with a webhook trigger activated and called, the project
// stopped when idle and the webhook called again (held until n8n is ready, not lost), a second
// project installed from the tree already built, and a re-install keeping the key.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "n8n/n8n_editor.hpp"
#include "support/starter_app_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::n8n_editor;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class E2eN8n : public StarterAppSuite {
 protected:
  static void SetUpTestSuite() {
    startServer("n8n", "n8nown",
                "runtime:\n"
                "  idle_stop_seconds: 20\n"
                "  stop_grace_seconds: 20\n"
                "templates:\n"
                "  answer_within_seconds: 3\n");
  }
  // The install's state once it is not "installing" any more.
  static nlohmann::json finished(const std::string& project, std::chrono::minutes limit) {
    nlohmann::json state;
    eventually(
        [&] {
          state = api().get(installPath(project)).json();
          return state.value("status", "") != "installing";
        },
        limit);
    return state;
  }
};

TEST_F(E2eN8n, InstallUseIdleWakeAndASecondProject) {
  mustCreate(api(), "flows");
  mustCreate(api(), "flows2");
  const std::string first = projectName("flows", owner->slug);
  const std::string second = projectName("flows2", owner->slug);

  // The cold install: the tree is built for this server first (202, with its progress).
  const auto cold = Clock::now();
  auto started = api().post(installPath(first), nlohmann::json::object());
  ASSERT_EQ(started.status, 202) << started.body;
  EXPECT_EQ(started.json()["status_url"], installPath(first));
  // An install that arrives while the tree builds says so, and waits for the same build.
  std::this_thread::sleep_for(std::chrono::seconds(20));
  auto meanwhile = api().post(installPath(second), nlohmann::json::object());
  ASSERT_EQ(meanwhile.status, 202) << meanwhile.body;
  EXPECT_NE(meanwhile.json().value("progress", "").find("building n8n 2.41.1 on Node 24.21.0"),
            std::string::npos)
      << meanwhile.body;

  nlohmann::json installed = finished(first, std::chrono::minutes(45));
  ASSERT_EQ(installed["status"], "installed") << installed.dump();
  std::printf("[n8n] cold install (tree built): %.1f s\n", secondsSince(cold));
  const nlohmann::json& answer = installed["answer"];
  EXPECT_EQ(answer["template"], "n8n");
  EXPECT_EQ(answer["secrets"], nlohmann::json({"N8N_ENCRYPTION_KEY"}));
  EXPECT_EQ(answer["key_generated"], true);
  EXPECT_EQ(answer["release"]["status"], "live");
  EXPECT_EQ(answer["project"]["cache_enabled"], false) << answer.dump();

  // The key is listed by name only.
  auto secrets = api().get("/projects/" + first + "/secrets");
  ASSERT_EQ(secrets.status, 200) << secrets.body;
  const nlohmann::json listed = secrets.json()["secrets"];
  ASSERT_EQ(listed.size(), 1u) << secrets.body;
  EXPECT_EQ(listed[0]["name"], "N8N_ENCRYPTION_KEY");
  EXPECT_FALSE(listed[0].contains("value")) << secrets.body;

  // The editor through the project's address: the first request starts n8n and is held until
  // it can serve.
  const auto wake = Clock::now();
  auto editor = onN8n(*server, first, "GET", "/");
  EXPECT_EQ(editor.status, 200) << editor.body.substr(0, 4000);
  EXPECT_NE(editor.body.find(kEditorTitle), std::string::npos) << editor.body.substr(0, 4000);
  std::printf("[n8n] first start, editor page: %.1f s\n", secondsSince(wake));

  const std::string cookie = createOwner(*server, first);
  ASSERT_FALSE(cookie.empty());
  activateWebhookWorkflow(*server, first, cookie);
  auto called = firstWebhookAnswer(*server, first);
  EXPECT_EQ(called.status, 200) << called.body;
  EXPECT_EQ(called.body, kWebhookAnswer);

  // Idle: the runtime stops n8n; the next webhook call is held while it starts, not lost.
  auto state = [&] { return api().get("/projects/" + first).json().value("state", ""); };
  EXPECT_TRUE(eventually([&] { return state() == "stopped"; }, std::chrono::minutes(3))) << state();
  const auto held = Clock::now();
  auto after_idle = callWebhook(*server, first);
  EXPECT_EQ(after_idle.status, 200) << after_idle.body;
  EXPECT_EQ(after_idle.body, kWebhookAnswer);
  EXPECT_EQ(state(), "running") << "the call reached n8n (the edge keeps no webhook answers)";
  std::printf("[n8n] webhook after an idle stop, first byte: %.3f s (%ld %s)\n", secondsSince(held),
              after_idle.status, after_idle.body.substr(0, 200).c_str());

  // The second project waited for the same tree and is installed from it.
  nlohmann::json other = finished(second, std::chrono::minutes(10));
  ASSERT_EQ(other["status"], "installed") << other.dump();
  EXPECT_EQ(other["answer"]["n8n"]["tree"], answer["n8n"]["tree"]);
  auto second_editor = onN8n(*server, second, "GET", "/");
  EXPECT_NE(second_editor.body.find(kEditorTitle), std::string::npos)
      << second_editor.body.substr(0, 4000);

  // A re-install keeps the key (n8n refuses to start with another) and n8n's data.
  const int64_t key_updated = listed[0]["updated_at"];
  const auto again = Clock::now();
  auto rerun = api().post(installPath(first), nlohmann::json::object());
  ASSERT_TRUE(rerun.status == 200 || rerun.status == 202) << rerun.body;
  nlohmann::json reinstalled = finished(first, std::chrono::minutes(10));
  ASSERT_EQ(reinstalled["status"], "installed") << reinstalled.dump();
  std::printf("[n8n] re-install with the tree built: %.1f s\n", secondsSince(again));
  EXPECT_EQ(reinstalled["answer"]["key_generated"], false);
  EXPECT_NE(reinstalled["answer"]["release"]["id"], answer["release"]["id"]);
  auto kept = api().get("/projects/" + first + "/secrets").json()["secrets"];
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0]["updated_at"], key_updated);
  auto after_reinstall = callWebhook(*server, first);
  EXPECT_EQ(after_reinstall.body, kWebhookAnswer) << "the workflow survived the re-install";
}

}  // namespace
