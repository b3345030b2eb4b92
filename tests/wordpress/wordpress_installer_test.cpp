// The WordPress installer against the SDK's fake host, as a third party would test theirs: the
// body's refusals and the package pin (nothing called), what it asks of each service and in
// which order (the tree, the keys once, the release, the one-off install with the password on
// stdin only, the cron schedule), what it answers, and how it fails. The tree's build script
// runs for real on Debian's WordPress in TheBuildScriptMakesASiteWithoutLinks.
#include <gtest/gtest.h>

#include <berth/services/runtime_commands.hpp>
#include <berth/services/runtime_releases.hpp>
#include <berth/services/runtime_shared_trees.hpp>
#include <berth/services/scheduler_schedules.hpp>
#include <berth/testing/fake_host.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "install_body.hpp"
#include "package_pin.hpp"
#include "wordpress_installer.hpp"

namespace {

namespace fs = std::filesystem;
using berth::wordpress::WordpressInstaller;

const std::string kShare = BERTH_TEST_BINARY_DIR "/share/berth";
const std::string kPayload = kShare + "/templates/wordpress";
const std::string kPassword = "correct horse 'battery' \"staple\"";

std::string readWhole(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A dpkg status file with the two packages at `version` (one of them, when `theme` is false).
void writeStatus(const fs::path& path, const std::string& version, bool theme = true) {
  std::ofstream out(path);
  out << "Package: adduser\nStatus: install ok installed\nVersion: 3.134\n\n";
  out << "Package: wordpress\nStatus: install ok installed\nPriority: optional\nVersion: "
      << version << "\nDepends: php\n\n";
  if (theme)
    out << "Package: wordpress-theme-twentytwentythree\nStatus: install ok installed\nVersion: "
        << version << "\n";
}

struct Call {
  std::string service, method;
  nlohmann::json request;
};

class WordpressInstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("berth-wp-installer-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    status = dir / "status";
    writeStatus(status, berth::wordpress::kPinnedPackageVersion);
    host.setShareDir(kShare);
    WordpressInstaller::Settings settings;
    settings.dpkg_status = status;
    WordpressInstaller::Timing fast;
    fast.poll = std::chrono::milliseconds(1);
    fast.progress_every = std::chrono::seconds(0);
    installer = std::make_shared<WordpressInstaller>(settings, fast);
    host.fakeInstaller(installer, "wordpress");

    fake("runtime.shared_trees.v1", [this](const nlohmann::json&) {
      berth::runtime_shared_trees::Tree tree;
      tree.name = "t";
      tree.path = "/data/shared/wordpress-t";
      tree.log = "berth wordpress build: copying WordPress 6.1.9 from /usr/share/wordpress";
      tree.started_at = 1;
      tree.state = building_answers-- > 0 ? "building" : tree_end;
      if (tree_end == "failed") tree.error = "the build step sh exited with code 1";
      return berth::runtime_shared_trees::toJson(tree);
    });
    fake("projects.secrets.v1", [this](const nlohmann::json& r) {
      return nlohmann::json{
          {"name", r["name"]}, {"scope", "runtime"}, {"updated_at", 1}, {"stored", !keys_exist}};
    });
    fake("runtime.apps.v1", [](const nlohmann::json& r) { return r; });
    fake("projects.directory.v1", [](const nlohmann::json& r) { return r; });
    fake("runtime.releases.v1", [this](const nlohmann::json& r) {
      berth::runtime_releases::Release release;
      release.id = "rel1";
      release.project = "blog-ann";
      release.status = "building";
      release.runtime = "php";
      release.region = "local";
      if (r.contains("timeout_seconds")) {
        release.status = release_end;
        release.build_log = "";
        if (release_end == "failed") release.error = "the app did not start";
      }
      return berth::runtime_releases::toJson(release);
    });
    fake("runtime.commands.v1",
         [this](const nlohmann::json&) { return berth::runtime_commands::toJson(ran); });
    fake("scheduler.schedules.v1", [](const nlohmann::json& r) {
      berth::scheduler_schedules::Schedule s;
      s.id = std::string(48, 'a');
      s.project = "blog-ann";
      s.account_id = "a1";
      s.name = r["name"];
      s.spec = r["spec"];
      s.path = r["path"];
      s.created_at = 1;
      s.next_run_at = 900;
      return berth::scheduler_schedules::toJson(
          berth::scheduler_schedules::Ensured{s, true, false});
    });
    fake("templates.installs.v1", [](const nlohmann::json&) {
      return nlohmann::json{{"noted", true}};
    });
    ran.exit_code = 0;
    ran.output =
        "berth: WordPress did not send the mail \"[My WordPress Site] New WordPress Site\" to 1 "
        "recipient(s): this server sends no mail\n"
        "berth-install-result: {\"installed\":true,\"user\":\"ann\",\"user_created\":true,"
        "\"title\":\"Ann's blog\",\"permalink_structure\":\"/%postname%/\"}\n";
    ran.duration_ms = 900;
  }

  void TearDown() override { fs::remove_all(dir); }

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

  // "service method" of every call but the progress lines, in order.
  std::vector<std::string> order() const {
    std::vector<std::string> out;
    for (const Call& c : calls)
      if (c.service != "templates.installs.v1") out.push_back(c.service + " " + c.method);
    return out;
  }

  nlohmann::json install(const nlohmann::json& body) {
    return host.install("wordpress", body,
                        {{"id", "p1"},
                         {"name", "blog-ann"},
                         {"account_id", "a1"},
                         {"url", "http://blog-ann.example:8080"},
                         {"cmd", project_cmd}});
  }

  nlohmann::json goodBody() const {
    return {{"email", "ann@example.com"},
            {"password", kPassword},
            {"title", "Ann's blog"},
            {"user", "ann"}};
  }

  // The status and message of a refused install.
  std::pair<int, std::string> refusal(const nlohmann::json& body) {
    try {
      install(body);
    } catch (const berth::Error& e) {
      return {e.status(), e.message()};
    }
    return {0, "installed"};
  }

  fs::path dir, status;
  berth::testing::FakeHost host;
  std::shared_ptr<WordpressInstaller> installer;
  std::vector<Call> calls;
  int building_answers = 2;
  std::string tree_end = "ready";
  std::string release_end = "live";
  bool keys_exist = false;
  std::string project_cmd;
  berth::runtime_commands::Ran ran;
};

TEST_F(WordpressInstallerTest, AWrongBodyIsRefusedBeforeAnythingIsCalled) {
  const std::string email_rule =
      "email must be an e-mail address such as ann@example.com (6 to 100 characters)";
  const std::string user_rule =
      "user must be 1 to 60 characters of letters, digits, '_', '-', '.' and '@'";
  const std::vector<std::pair<nlohmann::json, std::pair<int, std::string>>> cases = {
      // The core's own checks of the declared fields (422, plain text).
      {{{"email", "ann@example.com"}}, {422, "missing field: password"}},
      {{{"password", kPassword}}, {422, "missing field: email"}},
      {{{"email", "ann@example.com"}, {"password", 12345678}},
       {422, "field password must be a string"}},
      // The installer's rules (400).
      {{{"email", "ann@example.com"}, {"password", "seven77"}},
       {400, "password must be at least 8 characters"}},
      {{{"email", "ann@example.com"}, {"password", "ééééééé"}},  // 14 bytes, 7 characters
       {400, "password must be at least 8 characters"}},
      {{{"email", "ann@example.com"}, {"password", " leading space"}},
       {400, "password must not start or end with white space (WordPress would cut it off)"}},
      {{{"email", "ann@example.com"}, {"password", std::string(4097, 'x')}},
       {400, "password must be at most 4096 bytes"}},
      {{{"email", "ann"}, {"password", kPassword}}, {400, email_rule}},
      {{{"email", "ann@localhost"}, {"password", kPassword}}, {400, email_rule}},
      {{{"email", "ann smith@example.com"}, {"password", kPassword}}, {400, email_rule}},
      {{{"email", "ann@exa..mple.com"}, {"password", kPassword}}, {400, email_rule}},
      {{{"email", "ann@-example.com"}, {"password", kPassword}}, {400, email_rule}},
      {{{"email", "ann@example.com"}, {"password", kPassword}, {"title", ""}},
       {400, "title must be 1 to 200 characters on one line"}},
      {{{"email", "ann@example.com"}, {"password", kPassword}, {"title", "two\nlines"}},
       {400, "title must be 1 to 200 characters on one line"}},
      {{{"email", "ann@example.com"}, {"password", kPassword}, {"user", ""}}, {400, user_rule}},
      {{{"email", "ann@example.com"}, {"password", kPassword}, {"user", "ann smith"}},
       {400, user_rule}},
      {{{"email", "ann@example.com"}, {"password", kPassword}, {"user", std::string(61, 'a')}},
       {400, user_rule}},
      {{{"email", "ann@example.com"}, {"password", kPassword}, {"username", "ann"}},
       {400, "unknown field username: a WordPress install takes email, password, title and user"}},
  };
  for (const auto& [body, expected] : cases) {
    EXPECT_EQ(refusal(body), expected) << body.dump();
    EXPECT_TRUE(calls.empty()) << body.dump() << " called " << calls.front().service;
    calls.clear();
  }
}

TEST_F(WordpressInstallerTest, AnotherDebianPackageIsRefusedBeforeAnythingIsCalled) {
  writeStatus(status, "6.1.10+dfsg1-0+deb12u1");
  auto [code, message] = refusal(goodBody());
  EXPECT_EQ(code, 501);
  EXPECT_EQ(message,
            "WordPress cannot be installed: Debian's wordpress 6.1.10+dfsg1-0+deb12u1 is installed "
            "on this server, but the pinned version (wordpress.package_version in berth.yaml) is "
            "6.1.9+dfsg1-0+deb12u1; install that version (apt-get install "
            "wordpress=6.1.9+dfsg1-0+deb12u1) or change the pin");
  EXPECT_TRUE(calls.empty());

  writeStatus(status, berth::wordpress::kPinnedPackageVersion, false);
  std::tie(code, message) = refusal(goodBody());
  EXPECT_EQ(code, 501);
  EXPECT_EQ(message,
            "WordPress cannot be installed: Debian's wordpress-theme-twentytwentythree package is "
            "not installed on this server, but the pinned version (wordpress.package_version in "
            "berth.yaml) is 6.1.9+dfsg1-0+deb12u1; install that version (apt-get install "
            "wordpress-theme-twentytwentythree=6.1.9+dfsg1-0+deb12u1) or change the pin");
  EXPECT_TRUE(calls.empty());

  // A new pin is taken (the plugin's start() passes wordpress.package_version).
  writeStatus(status, "6.1.10+dfsg1-0+deb12u1");
  installer->setPackageVersion("6.1.10+dfsg1-0+deb12u1");
  EXPECT_NO_THROW(install(goodBody()));
}

TEST_F(WordpressInstallerTest, AFreshInstallMakesEverythingInOrder) {
  const nlohmann::json answer = install(goodBody());

  std::vector<std::string> expected = {"runtime.shared_trees.v1 ensure",
                                       "runtime.shared_trees.v1 get",
                                       "runtime.shared_trees.v1 get"};
  for (int i = 0; i < 8; ++i) expected.push_back("projects.secrets.v1 set");
  for (const char* step :
       {"runtime.apps.v1 set_start_options", "runtime.releases.v1 create",
        "runtime.releases.v1 wait", "runtime.commands.v1 run", "scheduler.schedules.v1 ensure"})
    expected.push_back(step);
  EXPECT_EQ(order(), expected);

  // The tree: named for the pin and the payload, built from the payload by build.sh.
  auto ensure = callsTo("runtime.shared_trees.v1", "ensure");
  ASSERT_EQ(ensure.size(), 1u);
  const std::string digest =
      berth::wordpress::payloadDigest(kPayload, berth::wordpress::kPinnedPackageVersion);
  EXPECT_EQ(ensure[0].request["name"], "wordpress-6.1.9-" + digest);
  EXPECT_EQ(ensure[0].request["source"], kPayload);
  EXPECT_EQ(ensure[0].request["command"], nlohmann::json({"sh", "build.sh"}));
  EXPECT_EQ(ensure[0].request["environment"]["BERTH_WORDPRESS_VERSION"], "6.1.9");
  EXPECT_EQ(ensure[0].request["environment"]["BERTH_WORDPRESS_DIR"], "/usr/share/wordpress");
  auto progress = callsTo("templates.installs.v1", "progress");
  ASSERT_GE(progress.size(), 3u);
  EXPECT_EQ(progress[0].request["message"],
            "installing WordPress 6.1.9 (Debian's 6.1.9+dfsg1-0+deb12u1) on PHP and the "
            "project's PostgreSQL");
  EXPECT_NE(progress[1].request["message"].get<std::string>().find(
                "preparing WordPress 6.1.9 for this server"),
            std::string::npos)
      << progress[1].request.dump();

  // The keys and salts: eight runtime secrets, generated once, each different.
  auto secrets = callsTo("projects.secrets.v1", "set");
  ASSERT_EQ(secrets.size(), 8u);
  std::set<std::string> values;
  std::vector<std::string> names;
  for (const Call& c : secrets) {
    EXPECT_EQ(c.request["only_if_absent"], true) << c.request["name"];
    EXPECT_EQ(c.request["scope"], "runtime");
    const std::string value = c.request["value"];
    EXPECT_TRUE(std::regex_match(value, std::regex("[A-Za-z0-9+/]{64}"))) << value;
    values.insert(value);
    names.push_back(c.request["name"]);
  }
  EXPECT_EQ(values.size(), 8u);
  const std::vector<std::string> expected_names = {
      "WORDPRESS_AUTH_KEY",       "WORDPRESS_SECURE_AUTH_KEY", "WORDPRESS_LOGGED_IN_KEY",
      "WORDPRESS_NONCE_KEY",      "WORDPRESS_AUTH_SALT",       "WORDPRESS_SECURE_AUTH_SALT",
      "WORDPRESS_LOGGED_IN_SALT", "WORDPRESS_NONCE_SALT"};
  EXPECT_EQ(names, expected_names);
  for (const std::string& value : values)
    EXPECT_EQ(answer.dump().find(value), std::string::npos) << "a key's value is never answered";

  // Start options cleared: nothing another app left applies to a PHP release.
  auto options = callsTo("runtime.apps.v1", "set_start_options");
  ASSERT_EQ(options.size(), 1u);
  EXPECT_TRUE(options[0].request["readiness_path"].is_null());
  EXPECT_EQ(options[0].request["read_only_paths"], nlohmann::json::array());
  EXPECT_EQ(options[0].request["environment"], nlohmann::json::object());
  EXPECT_TRUE(callsTo("projects.directory.v1").empty()) << "no start command to clear";

  // The release: the tree's site, PHP by detection (no start command).
  auto create = callsTo("runtime.releases.v1", "create");
  ASSERT_EQ(create.size(), 1u);
  EXPECT_EQ(create[0].request["folder"], "/data/shared/wordpress-t/site");
  EXPECT_FALSE(create[0].request.contains("cmd"));
  EXPECT_EQ(create[0].request["files"], nlohmann::json::array());
  auto wait = callsTo("runtime.releases.v1", "wait");
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_EQ(wait[0].request["release_id"], "rel1");

  // The one-off install: in that release, the body on stdin, the password nowhere else.
  auto run = callsTo("runtime.commands.v1", "run");
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0].request["argv"], nlohmann::json({"php", ".berth/install.php"}));
  EXPECT_EQ(run[0].request["release_id"], "rel1");
  EXPECT_EQ(run[0].request["project_id"], "p1") << "the core names the project";
  const nlohmann::json stdin_body =
      nlohmann::json::parse(run[0].request["stdin"].get<std::string>());
  EXPECT_EQ(stdin_body, nlohmann::json({{"email", "ann@example.com"},
                                        {"password", kPassword},
                                        {"title", "Ann's blog"},
                                        {"keep_title", false},
                                        {"user", "ann"}}));
  for (const Call& c : calls) {
    nlohmann::json shown = c.request;
    if (c.service == "runtime.commands.v1") shown.erase("stdin");
    EXPECT_EQ(shown.dump().find("battery"), std::string::npos)
        << c.service << " " << c.method << " was given the password";
  }
  for (const auto& line : host.logs())
    EXPECT_EQ(line.message.find("battery"), std::string::npos) << line.message;
  EXPECT_EQ(answer.dump().find("battery"), std::string::npos);

  // WordPress's cron: a schedule, since DISABLE_WP_CRON stops it running on page views.
  auto cron = callsTo("scheduler.schedules.v1", "ensure");
  ASSERT_EQ(cron.size(), 1u);
  EXPECT_EQ(cron[0].request["name"], "wordpress-cron");
  EXPECT_EQ(cron[0].request["spec"], "*/15 * * * *");
  EXPECT_EQ(cron[0].request["path"], "/wp-cron.php");

  ASSERT_EQ(answer["schedules"].size(), 1u);
  EXPECT_EQ(answer["schedules"][0]["path"], "/wp-cron.php");
  EXPECT_EQ(answer["schedules"][0]["spec"], "*/15 * * * *");
  EXPECT_EQ(answer["secrets"], nlohmann::json(expected_names));
  EXPECT_EQ(answer["keys_generated"], 8);
  EXPECT_EQ(answer["release"], nlohmann::json({{"id", "rel1"}, {"status", "live"}}));
  EXPECT_EQ(answer["wordpress"]["version"], "6.1.9");
  EXPECT_EQ(answer["wordpress"]["package"], "6.1.9+dfsg1-0+deb12u1");
  EXPECT_EQ(answer["site"]["installed"], true);
  EXPECT_EQ(answer["site"]["title"], "Ann's blog");
  EXPECT_EQ(answer["admin"],
            nlohmann::json({{"user", "ann"}, {"email", "ann@example.com"}, {"created", true}}));
  EXPECT_EQ(answer["next"], "open http://blog-ann.example:8080/wp-admin/ and sign in as ann");
}

TEST_F(WordpressInstallerTest, TheDefaultsApplyAndASecondInstallKeepsKeysAndTitle) {
  keys_exist = true;
  building_answers = 0;
  project_cmd = "node server.js";
  ran.output =
      "berth-install-result: {\"installed\":false,\"user\":\"admin\",\"user_created\":false,"
      "\"title\":\"Ann's blog\",\"permalink_structure\":\"/%postname%/\"}\n";
  const nlohmann::json answer =
      install({{"email", "ann@example.com"}, {"password", "eight888"}, {"title", nullptr}});
  EXPECT_EQ(answer["keys_generated"], 0);
  EXPECT_EQ(callsTo("projects.secrets.v1", "set").size(), 8u);
  EXPECT_EQ(callsTo("runtime.shared_trees.v1", "get").size(), 0u) << "a ready tree is not waited";
  auto set_cmd = callsTo("projects.directory.v1", "set_cmd");
  ASSERT_EQ(set_cmd.size(), 1u) << "a start command would replace PHP's detection";
  EXPECT_TRUE(set_cmd[0].request["cmd"].is_null());
  EXPECT_EQ(callsTo("runtime.releases.v1", "create").size(), 1u) << "a new release";

  auto run = callsTo("runtime.commands.v1", "run");
  ASSERT_EQ(run.size(), 1u);
  const nlohmann::json stdin_body =
      nlohmann::json::parse(run[0].request["stdin"].get<std::string>());
  EXPECT_EQ(stdin_body["user"], "admin");
  EXPECT_EQ(stdin_body["title"], "My WordPress Site");
  EXPECT_EQ(stdin_body["keep_title"], true) << "no title given: an installed site keeps its own";
  EXPECT_EQ(answer["site"]["installed"], false);
  EXPECT_EQ(answer["site"]["title"], "Ann's blog");
  EXPECT_EQ(answer["admin"]["created"], false);
  EXPECT_EQ(callsTo("scheduler.schedules.v1", "ensure").size(), 1u);
}

TEST_F(WordpressInstallerTest, AFailedWpInstallSaysWhyAndMakesNoSchedule) {
  ran.exit_code = 1;
  ran.output =
      "PHP Warning:  something in /x.php on line 3\n"
      "berth install: WordPress stopped: Error establishing a database connection\n";
  EXPECT_EQ(refusal(goodBody()),
            std::make_pair(502, std::string("WordPress could not be installed (exit code 1): "
                                            "WordPress stopped: Error establishing a database "
                                            "connection; the project's logs have the details, "
                                            "and the install can be run again")));
  EXPECT_TRUE(callsTo("scheduler.schedules.v1").empty());

  // PHP itself failing (no line of ours): its last lines, never the password.
  ran.exit_code = 255;
  ran.output = "PHP Fatal error:  Uncaught Error: x(" + kPassword + ") in /a.php:1\n";
  auto [code, message] = refusal(goodBody());
  EXPECT_EQ(code, 502);
  EXPECT_EQ(message,
            "WordPress could not be installed (exit code 255): PHP Fatal error:  Uncaught "
            "Error: x([password]) in /a.php:1; the project's logs have the details, and "
            "the install can be run again");

  // Exit code 0 without the result line is not a success either (wp_die() exits 0).
  ran.exit_code = 0;
  ran.output = "<p>Error establishing a database connection</p>\n";
  std::tie(code, message) = refusal(goodBody());
  EXPECT_EQ(code, 502);
  EXPECT_EQ(message,
            "WordPress could not be installed (exit code 0): <p>Error establishing a "
            "database connection</p>; the project's logs have the details, and the "
            "install can be run again");

  ran.exit_code = 143;
  ran.timed_out = true;
  std::tie(code, message) = refusal(goodBody());
  EXPECT_EQ(code, 504);
  EXPECT_EQ(message, "WordPress's install did not finish within 300 s and was stopped");
}

TEST_F(WordpressInstallerTest, AFailedTreeOrReleaseFailsTheInstall) {
  tree_end = "failed";
  EXPECT_EQ(
      refusal(goodBody()),
      std::make_pair(502, std::string("WordPress 6.1.9 could not be prepared for this server: "
                                      "the build step sh exited with code 1; run the install "
                                      "again to retry")));
  EXPECT_TRUE(callsTo("projects.secrets.v1").empty());
  EXPECT_TRUE(callsTo("runtime.releases.v1").empty());

  tree_end = "ready";
  release_end = "failed";
  EXPECT_EQ(refusal(goodBody()),
            std::make_pair(502, std::string("the WordPress release rel1 did not become ready: the "
                                            "app did not start")));
  EXPECT_TRUE(callsTo("runtime.commands.v1").empty());
}

TEST(WordpressPin, VersionsAndTheStatusFile) {
  using berth::wordpress::upstreamVersion;
  EXPECT_EQ(upstreamVersion("6.1.9+dfsg1-0+deb12u1"), "6.1.9");
  EXPECT_EQ(upstreamVersion("1:6.4.3-1"), "6.4.3");
  EXPECT_EQ(upstreamVersion("6.1.9"), "6.1.9");
  EXPECT_EQ(upstreamVersion("latest"), "");
  EXPECT_EQ(upstreamVersion("6.1.9/../x"), "");

  const fs::path file =
      fs::temp_directory_path() / ("berth-wp-status-" + std::to_string(::getpid()));
  {
    std::ofstream out(file);
    out << "Package: wordpress\nStatus: deinstall ok config-files\nVersion: 5.0\n\n"
           "Package: wordpress-l10n\nStatus: install ok installed\nVersion: 6.1.9\n\n"
           "Package: wordpress\nStatus: install ok installed\nVersion: 6.1.9+dfsg1-0+deb12u1\n";
  }
  EXPECT_EQ(berth::wordpress::installedVersion(file, "wordpress"), "6.1.9+dfsg1-0+deb12u1");
  EXPECT_EQ(berth::wordpress::installedVersion(file, "wordpress-theme-twentytwentythree"),
            std::nullopt);
  EXPECT_EQ(berth::wordpress::installedVersion("/nonexistent", "wordpress"), std::nullopt);
  fs::remove(file);

  try {
    berth::wordpress::checkInstalledPackages("/nonexistent", "latest");
    FAIL() << "a pin that is no version";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 500);
    EXPECT_EQ(e.message(),
              "wordpress.package_version is \"latest\", which is not a Debian version of WordPress "
              "such as 6.1.9+dfsg1-0+deb12u1");
  }
}

TEST(WordpressPin, TheTreeNameFollowsThePinAndThePayload) {
  const std::string a = berth::wordpress::payloadDigest(kPayload, "6.1.9+dfsg1-0+deb12u1");
  EXPECT_TRUE(std::regex_match(a, std::regex("[0-9a-f]{12}")));
  EXPECT_EQ(berth::wordpress::payloadDigest(kPayload, "6.1.9+dfsg1-0+deb12u1"), a) << "stable";
  EXPECT_NE(berth::wordpress::payloadDigest(kPayload, "6.1.9+dfsg1-0+deb12u2"), a);
  EXPECT_EQ(berth::wordpress::treeName("6.1.9+dfsg1-0+deb12u1", a), "wordpress-6.1.9-" + a);
}

TEST(WordpressPin, ThisServerHasThePinnedPackages) {
  if (!berth::wordpress::installedVersion(berth::wordpress::kDpkgStatus, "wordpress"))
    GTEST_SKIP() << "Debian's wordpress is not installed (scripts/install-deps.sh installs it)";
  EXPECT_NO_THROW(berth::wordpress::checkInstalledPackages(
      berth::wordpress::kDpkgStatus, berth::wordpress::kPinnedPackageVersion));
}

// build.sh on Debian's real WordPress, outside the sandbox: the site it makes has no link,
// none of Debian's configuration, and Berth's files where WordPress looks for them.
TEST(WordpressBuild, TheBuildScriptMakesASiteWithoutLinks) {
  if (!fs::exists("/usr/share/wordpress/wp-includes/version.php"))
    GTEST_SKIP() << "Debian's wordpress is not installed (scripts/install-deps.sh installs it)";
  const fs::path tree = fs::temp_directory_path() / ("berth-wp-tree-" + std::to_string(::getpid()));
  fs::remove_all(tree);
  fs::copy(kPayload, tree, fs::copy_options::recursive);
  const std::string command =
      "cd '" + tree.string() + "' && BERTH_WORDPRESS_VERSION=6.1.9 sh build.sh > build.log 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << readWhole(tree / "build.log");
  const fs::path site = tree / "site";
  for (const auto& entry : fs::recursive_directory_iterator(site))
    EXPECT_FALSE(entry.is_symlink()) << entry.path();
  EXPECT_EQ(readWhole(site / "wp-config.php"), readWhole(tree / "wp-config.php"))
      << "Berth's, not Debian's dispatcher";
  EXPECT_FALSE(fs::exists(site / ".htaccess"));
  EXPECT_TRUE(fs::is_regular_file(site / "index.php")) << "a PHP release by detection";
  EXPECT_TRUE(fs::is_regular_file(site / "wp-includes/ID3/getid3.php")) << "getID3, dereferenced";
  EXPECT_TRUE(fs::is_regular_file(site / "wp-includes/js/underscore.min.js"));
  EXPECT_TRUE(fs::is_regular_file(site / "wp-includes/js/crop/cropper.js"));
  EXPECT_GT(fs::file_size(site / "wp-includes/certificates/ca-bundle.crt"), 1000u);
  EXPECT_TRUE(fs::is_regular_file(site / "wp-content/themes/twentytwentythree/style.css"));
  EXPECT_TRUE(fs::is_regular_file(site / "wp-content/db.php"));
  EXPECT_TRUE(fs::is_regular_file(site / "wp-content/berth-pgsql/autoload.php"));
  EXPECT_TRUE(fs::is_regular_file(site / "wp-content/mu-plugins/berth.php"));
  EXPECT_TRUE(fs::is_regular_file(site / ".berth/install.php"));

  // Another WordPress than the pin: refused, saying which.
  const std::string wrong =
      "cd '" + tree.string() + "' && BERTH_WORDPRESS_VERSION=6.2 sh build.sh > wrong.log 2>&1";
  EXPECT_NE(std::system(wrong.c_str()), 0);
  EXPECT_NE(readWhole(tree / "wrong.log").find("holds WordPress 6.1.9, not the pinned 6.2"),
            std::string::npos)
      << readWhole(tree / "wrong.log");
  fs::remove_all(tree);
}

}  // namespace
