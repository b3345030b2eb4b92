// ctest-label: e2e (a real WordPress on the platform's PHP and the project's PostgreSQL)
// WordPress installed the way a user installs it (POST /projects/{name}/app-templates/wordpress/
// install) and used the way a person uses it, through the project's address on the edge, by
// tests/wordpress/flows/drive.py: front page, login, dashboard, a post created over the REST
// API, the post at its pretty permalink, a visitor's comment approved and shown, search,
// category, feed, date archive, the admin's lists, site health and wp-cron.php. Then the
// install's own schedule requests /wp-cron.php (the scheduler's test clock makes its quarter
// hour a few seconds), and the project's logs must hold no 5xx answer and no "WordPress
// database error": every statement WordPress sent was translated and ran on PostgreSQL.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "../projects/api_support.hpp"
#include "support/starter_app_suite.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;

namespace {

constexpr const char* kUser = "editor";
constexpr const char* kPassword = "Flows-passw0rd-e2e";
constexpr const char* kTitle = "Berth Flows Blog";

class E2eWordpress : public StarterAppSuite {
 protected:
  static void SetUpTestSuite() {
    // minute_ms 400: the install's */15 wp-cron schedule fires every 6 real seconds.
    startServer("wordpress", "wpflows",
                "scheduler:\n"
                "  minute_ms: 400\n"
                "templates:\n"
                "  answer_within_seconds: 3\n");
  }
};

// The host part of the project's url (http://<host>[:port]), which WordPress knows as its own.
std::string hostOf(const std::string& url) {
  auto start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  return url.substr(start, url.find('/', start) - start);
}

TEST_F(E2eWordpress, InstallDriveCronAndCleanLogs) {
  mustCreate(api(), "blog");
  const std::string project = projectName("blog", owner->slug);

  auto started = api().post(installPath(project), {{"email", "editor@example.com"},
                                                   {"password", kPassword},
                                                   {"title", kTitle},
                                                   {"user", kUser}});
  ASSERT_TRUE(started.status == 200 || started.status == 202) << started.body;
  nlohmann::json state = started.json();
  if (started.status == 202) {
    eventually(
        [&] {
          state = api().get(installPath(project)).json();
          return state.value("status", "") != "installing";
        },
        std::chrono::minutes(20));
    ASSERT_EQ(state["status"], "installed") << state.dump();
    state = state["answer"];
  }
  ASSERT_EQ(state["site"]["installed"], true) << state.dump();
  EXPECT_EQ(state["admin"]["user"], kUser);
  EXPECT_EQ(state["release"]["status"], "live") << state.dump();
  const std::string url = state["site"]["url"];
  ASSERT_FALSE(url.empty()) << state.dump();

  // A person's flows through the edge, as drive.py walks them.
  const std::string drive = std::string(BERTH_TEST_SOURCE_DIR) + "/tests/wordpress/flows/drive.py";
  auto flows = berth::core::runCommand(
      {"/usr/bin/python3", drive, "--base", server->baseUrl(), "--host-header", hostOf(url),
       "--user", kUser, "--password", kPassword, "--site-title", kTitle},
      {}, std::chrono::minutes(10));
  std::printf("%s", flows.output.c_str());
  EXPECT_TRUE(flows.status.ok()) << flows.output << "\nthe edge's error log:\n"
                                 << readFile(server->dataDir() + "/edge/error.log");
  int steps = 0;
  std::istringstream lines(flows.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{", 0) != 0) continue;
    auto step = nlohmann::json::parse(line, nullptr, false);
    ++steps;
    EXPECT_EQ(step.value("ok", false), true) << line;
  }
  EXPECT_EQ(steps, 18) << flows.output;

  // The install's schedule requests /wp-cron.php; its run must succeed.
  nlohmann::json cron;
  const bool ran = eventually(
      [&] {
        auto listed = api().get("/projects/" + project + "/schedules").json();
        for (const auto& s : listed.value("schedules", nlohmann::json::array()))
          if (s.value("path", "") == "/wp-cron.php" && !s["last_status"].is_null()) cron = s;
        return !cron.is_null();
      },
      std::chrono::minutes(2));
  ASSERT_TRUE(ran) << "the wp-cron schedule never ran";
  EXPECT_EQ(cron["last_status"], 200) << cron.dump();
  EXPECT_TRUE(cron["last_error"].is_null()) << cron.dump();

  // The project's logs: no 5xx, no database error (a statement the drop-in could not run),
  // no PHP fatal error. Request entries arrive from the edge's access log in batches: read until
  // the schedule's request is there and the count has settled.
  HttpResult logs;
  nlohmann::json entries;
  size_t seen = 0;
  int still = 0;
  eventually(
      [&] {
        logs = api().get("/projects/" + project + "/logs?limit=1000");
        entries = logs.json().value("logs", nlohmann::json::array());
        bool cron_logged = false;
        for (const auto& e : entries)
          if (e.value("kind", "") == "request" && e.value("path", "") == "/wp-cron.php")
            cron_logged = true;
        still = entries.size() == seen ? still + 1 : 0;
        seen = entries.size();
        return cron_logged && still >= 20;  // unchanged for two seconds
      },
      std::chrono::seconds(60));
  ASSERT_EQ(logs.status, 200) << logs.body;
  int requests = 0;
  for (const auto& e : entries) {
    const std::string message = e.value("message", "");
    if (e.value("kind", "") == "request") {
      ++requests;
      EXPECT_LT(e.value("status", 0), 500) << e.dump();
    }
    EXPECT_EQ(message.find("WordPress database error"), std::string::npos) << e.dump();
    EXPECT_EQ(message.find("PHP Fatal error"), std::string::npos) << e.dump();
    EXPECT_EQ(message.find("cannot translate MySQL"), std::string::npos) << e.dump();
  }
  EXPECT_GT(requests, 20) << logs.body.substr(0, 4000);
  std::printf("[wordpress] %d log entries, %d requests, none 5xx, no database error\n",
              static_cast<int>(entries.size()), requests);
}

}  // namespace
