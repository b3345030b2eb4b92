// berth.yaml: defaults, the shipped file, every kind of refusal, --set, plugin sections.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/settings.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A directory of its own under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "berth-config-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string write(const std::string& name, const std::string& content) const {
    const std::string file = (path_ / name).string();
    std::ofstream(file) << content;
    return file;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

class ConfigTest : public ::testing::Test {
 protected:
  Settings load(const std::string& yaml, const std::vector<Override>& overrides = {}) {
    return loadSettings(dir_.write("berth.yaml", yaml), overrides);
  }

  // The ConfigError message for this file and these overrides; fails the test when it loads.
  std::string refusal(const std::string& yaml, const std::vector<Override>& overrides = {}) {
    const std::string file = dir_.write("berth.yaml", yaml);
    try {
      loadSettings(file, overrides);
    } catch (const ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "loaded without error:\n" << yaml;
    return "";
  }

  std::string file() const { return (dir_.path() / "berth.yaml").string(); }

  TempDir dir_;
};

std::string absolute(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

// ---- defaults and the shipped file -------------------------------------------------------

void expectDefaults(const Settings& s) {
  EXPECT_EQ(s.listen.host, "127.0.0.1");
  EXPECT_EQ(s.listen.port, 8080);
  EXPECT_EQ(s.listen.str(), "127.0.0.1:8080");
  EXPECT_FALSE(s.project_listen.has_value());
  EXPECT_EQ(s.apps_domain, "localhost");
  EXPECT_EQ(s.drain_seconds, 10);
  EXPECT_EQ(s.data_dir, absolute("var"));
  EXPECT_EQ(s.database.url, "");
  EXPECT_EQ(s.database.tenants_url, "");
  EXPECT_EQ(s.database.pool_size, 8);
  EXPECT_EQ(s.database.embedded_port, 0);
  EXPECT_EQ(s.database.embedded_user, "");
  EXPECT_EQ(s.database.pg_bin_dir, "");
  EXPECT_EQ(s.database.connect_timeout_seconds, 5);
  EXPECT_EQ(s.log.level, "info");
  EXPECT_EQ(s.log.format, "text");
  EXPECT_EQ(s.log.file, "");
  EXPECT_EQ(s.edge.nginx, "nginx");
  EXPECT_EQ(s.edge.worker_processes, 2);
  EXPECT_EQ(s.edge.backend_port, 0);
  EXPECT_EQ(s.edge.backend_threads, 4);
  EXPECT_EQ(s.edge.json_body_limit, "2m");
  EXPECT_EQ(s.edge.cache_max_size, "1g");
  EXPECT_EQ(s.plugins.dir, absolute(BERTH_DEFAULT_PLUGIN_DIR));
  // Without plugins.enabled: every library in plugins.dir, by name.
  std::vector<std::string> expected;
  for (const auto& entry : std::filesystem::directory_iterator(s.plugins.dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("libberth_", 0) == 0 && name.size() > 12 &&
        name.substr(name.size() - 3) == ".so")
      expected.push_back(name.substr(9, name.size() - 12));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(s.plugins.enabled, expected);
  EXPECT_EQ(s.plan_order, (std::vector<std::string>{"free", "hobby", "pro", "scale"}));
  ASSERT_EQ(s.plans.size(), 4u);
  EXPECT_EQ(s.plans.at("free"), 3);
  EXPECT_EQ(s.plans.at("hobby"), 10);
  EXPECT_EQ(s.plans.at("pro"), std::nullopt);
  EXPECT_EQ(s.plans.at("scale"), std::nullopt);
  EXPECT_EQ(s.job_threads, 4);
  EXPECT_TRUE(s.plugin_sections.empty());
}

TEST_F(ConfigTest, EmptyFileGivesEveryDefault) {
  const Settings s = load("");
  EXPECT_EQ(s.file, file());
  expectDefaults(s);
}

TEST_F(ConfigTest, CommentsOnlyGiveEveryDefault) {
  expectDefaults(load("# nothing set\n"));
}

TEST_F(ConfigTest, ShippedFileLoadsAndStatesTheDefaults) {
  const std::string shipped = std::string(BERTH_TEST_SOURCE_DIR) + "/etc/berth.yaml";
  Settings s = loadSettings(shipped, {});
  EXPECT_EQ(s.file, shipped);
  // The shipped file spells out the projects plugin's keys with their defaults; the core's
  // own keys are all at their defaults.
  ASSERT_EQ(s.plugin_sections.size(), 1u);
  const nlohmann::json& projects = s.plugin_sections.at("projects");
  // secrets_key is left out: scripts/start.sh then gives the install a key file.
  EXPECT_FALSE(projects.contains("secrets_key"));
  EXPECT_EQ(projects.at("creation_burst"), 8);
  EXPECT_EQ(projects.at("reserved_names").size(), 8u);
  s.plugin_sections.clear();
  expectDefaults(s);
}

TEST_F(ConfigTest, ReadsEveryCoreKey) {
  const Settings s = load(R"(
server:
  listen: "[::1]:9000"
  project_listen: 0.0.0.0:9001
  apps_domain: apps.example.com
  drain_seconds: 300
data_dir: state/here/
database:
  url: postgresql://berth@db/berth
  pool_size: 200
  embedded_port: 65535
  embedded_user: pg
  pg_bin_dir: /usr/lib/postgresql/15/bin
  connect_timeout_seconds: 1
log:
  level: debug
  format: json
  file: /var/log/berth.log
edge:
  nginx: /usr/sbin/nginx
  worker_processes: 64
  backend_port: 18080
  backend_threads: 1
  json_body_limit: 512k
  cache_max_size: 300m
plugins:
  dir: lib/plugins
  enabled: [storage, projects]
plans:
  starter: 1
  team: 0
  unlimited: ~
jobs:
  threads: 64
)");
  EXPECT_EQ(s.listen.host, "[::1]");
  EXPECT_EQ(s.listen.port, 9000);
  ASSERT_TRUE(s.project_listen.has_value());
  EXPECT_EQ(s.project_listen->str(), "0.0.0.0:9001");
  EXPECT_EQ(s.apps_domain, "apps.example.com");
  EXPECT_EQ(s.drain_seconds, 300);
  EXPECT_EQ(s.data_dir, absolute("state/here"));
  EXPECT_EQ(s.database.url, "postgresql://berth@db/berth");
  EXPECT_EQ(s.database.pool_size, 200);
  EXPECT_EQ(s.database.embedded_port, 65535);
  EXPECT_EQ(s.database.embedded_user, "pg");
  EXPECT_EQ(s.database.pg_bin_dir, "/usr/lib/postgresql/15/bin");
  EXPECT_EQ(s.database.connect_timeout_seconds, 1);
  EXPECT_EQ(s.log.level, "debug");
  EXPECT_EQ(s.log.format, "json");
  EXPECT_EQ(s.log.file, "/var/log/berth.log");
  EXPECT_EQ(s.edge.nginx, "/usr/sbin/nginx");
  EXPECT_EQ(s.edge.worker_processes, 64);
  EXPECT_EQ(s.edge.backend_port, 18080);
  EXPECT_EQ(s.edge.backend_threads, 1);
  EXPECT_EQ(s.edge.json_body_limit, "512k");
  EXPECT_EQ(s.edge.cache_max_size, "300m");
  EXPECT_EQ(s.plugins.dir, absolute("lib/plugins"));
  EXPECT_EQ(s.plugins.enabled, (std::vector<std::string>{"storage", "projects"}));
  EXPECT_EQ(s.plan_order, (std::vector<std::string>{"starter", "team", "unlimited"}));
  EXPECT_EQ(s.plans.at("starter"), 1);
  EXPECT_EQ(s.plans.at("team"), 0);
  EXPECT_EQ(s.plans.at("unlimited"), std::nullopt);
  EXPECT_EQ(s.job_threads, 64);
}

TEST_F(ConfigTest, EmptyProjectListenMeansNone) {
  EXPECT_FALSE(load("server:\n  project_listen: \"\"\n").project_listen.has_value());
}

TEST_F(ConfigTest, EmptyPluginListLoadsNoPlugin) {
  EXPECT_TRUE(load("plugins:\n  enabled: []\n").plugins.enabled.empty());
}

// ---- refusals -----------------------------------------------------------------------------

TEST_F(ConfigTest, MissingFileIsRefused) {
  const std::string missing = (dir_.path() / "absent.yaml").string();
  try {
    loadSettings(missing, {});
    FAIL() << "loaded a missing file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read config file " + missing + ": No such file or directory");
  }
}

TEST_F(ConfigTest, InvalidYamlNamesFileAndLine) {
  const std::string message = refusal("server:\n  listen: 127.0.0.1:8080\n  bad: [1, 2\n");
  EXPECT_EQ(message.rfind(file() + ": line ", 0), 0u) << message;
  EXPECT_NE(message.find("invalid YAML"), std::string::npos) << message;
  // The flow list opened on line 3 is still open when the file ends on line 4.
  EXPECT_TRUE(message.find("line 3") != std::string::npos ||
              message.find("line 4") != std::string::npos)
      << message;
}

TEST_F(ConfigTest, TopLevelListIsRefused) {
  EXPECT_EQ(refusal("- a\n- b\n"),
            file() + ": expected a map of settings at the top level, got a list");
}

TEST_F(ConfigTest, UnknownKeyInCoreSectionNamesKeyAndKnownOnes) {
  EXPECT_EQ(refusal("server:\n  lisen: 127.0.0.1:80\n"),
            file() +
                ": server.lisen: unknown key (known: listen, project_listen, apps_domain, "
                "drain_seconds, public_url)");
}

TEST_F(ConfigTest, UnknownTopLevelValueIsRefused) {
  const std::string message = refusal("colour: red\n");
  EXPECT_EQ(message.rfind(file() + ": colour: unknown key", 0), 0u) << message;
}

TEST_F(ConfigTest, DuplicateKeyIsRefused) {
  EXPECT_EQ(refusal("server:\n  listen: 127.0.0.1:1\n  listen: 127.0.0.1:2\n"),
            file() + ": server.listen: duplicate key (line 3)");
}

// Found by the config fuzz target: an alias inside its own anchor made the tree a cycle, whose
// walk overflowed the stack (berthd crashed on a 20-byte file), and an alias repeated at every
// level doubled the tree each time (forty lines took longer than anyone would wait).
TEST_F(ConfigTest, AliasesThatExpandWithoutBoundAreRefused) {
  const std::string cycle =
      " levels once its aliases are expanded (is an alias inside its own anchor?)";
  EXPECT_EQ(refusal("projects:\n  a: &a [*a]\n"),
            file() + ": line 2: nested deeper than 1000" + cycle);
  EXPECT_EQ(refusal("projects: &a\n  b: *a\n"),
            file() + ": line 1: nested deeper than 1000" + cycle);
  EXPECT_EQ(refusal("", {{"projects.x", "&a [*a]"}}),
            file() + ": line 1: nested deeper than 1000" + cycle);
  std::string doubling = "projects:\n  l0: &a0 [x, x]\n";
  for (int i = 1; i < 40; ++i) {
    doubling += "  l" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" +
                std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
  }
  EXPECT_EQ(refusal(doubling),
            file() +
                ": the document holds more than 50000 values once its aliases (*name) are "
                "expanded");
  // Aliases within the bounds load as before, and so does a document nested 400 deep.
  const Settings s = load("projects:\n  a: &a [x, y]\n  b: *a\n  deep: " + std::string(400, '[') +
                          std::string(400, ']') + "\n");
  EXPECT_EQ(s.plugin_sections.at("projects")["b"], json::array({"x", "y"}));
}

// The cluster of project databases: a URL or key=value text libpq reads, checked at start; a
// text it cannot read is refused without being repeated (it may hold a password).
TEST_F(ConfigTest, TenantsUrlIsReadAndCheckedByLibpq) {
  EXPECT_EQ(load("database:\n  tenants_url: postgresql://admin:pw@tenants.internal/postgres\n")
                .database.tenants_url,
            "postgresql://admin:pw@tenants.internal/postgres");
  EXPECT_EQ(
      load("database:\n  tenants_url: host=/run/postgresql user=berth\n").database.tenants_url,
      "host=/run/postgresql user=berth");
  EXPECT_EQ(load("", {{"database.tenants_url", "postgresql://t/postgres"}}).database.tenants_url,
            "postgresql://t/postgres");
  const std::string bad = "postgresql://admin:hunter2@[::1/postgres";
  std::string refused = refusal("database:\n  tenants_url: \"" + bad + "\"\n");
  EXPECT_EQ(refused.rfind(file() + ": database.tenants_url: expected a PostgreSQL URL", 0), 0u)
      << refused;
  EXPECT_EQ(refused.find("hunter2"), std::string::npos) << refused;
  refused = refusal("database:\n  tenants_url: \"host\"\n");
  EXPECT_NE(refused.find("database.tenants_url"), std::string::npos) << refused;
}

// yaml-cpp's own refusal of a deep text says only "bad file".
TEST_F(ConfigTest, TooDeepATextIsRefusedClearly) {
  EXPECT_EQ(refusal("projects: " + std::string(600, '[') + std::string(600, ']') + "\n"),
            file() +
                ": line 1, column 1211: invalid YAML: nested too deeply (lists and maps nest "
                "at most about 500 levels deep)");
}

TEST_F(ConfigTest, WrongTypesAreRefused) {
  EXPECT_EQ(refusal("server:\n  drain_seconds: ten\n"),
            file() + ": server.drain_seconds: expected an integer, got \"ten\"");
  EXPECT_EQ(refusal("database: 5\n"), file() + ": database: expected a map of settings, got \"5\"");
  EXPECT_EQ(refusal("database:\n  url: [a]\n"),
            file() + ": database.url: expected a string, got a list");
  EXPECT_EQ(refusal("plugins:\n  enabled: projects\n"),
            file() + ": plugins.enabled: expected a list, got \"projects\"");
  EXPECT_EQ(refusal("plugins:\n  enabled: [[projects]]\n"),
            file() + ": plugins.enabled[0]: expected a string, got a list");
  EXPECT_EQ(refusal("jobs:\n  threads: 2.5\n"),
            file() + ": jobs.threads: expected an integer, got \"2.5\"");
}

TEST_F(ConfigTest, OutOfRangeValuesAreRefused) {
  EXPECT_EQ(refusal("server:\n  drain_seconds: 0\n"),
            file() + ": server.drain_seconds: must be from 1 to 300, got 0");
  EXPECT_EQ(refusal("database:\n  pool_size: 201\n"),
            file() + ": database.pool_size: must be from 1 to 200, got 201");
  EXPECT_EQ(refusal("database:\n  embedded_port: -1\n"),
            file() + ": database.embedded_port: must be from 0 to 65535, got -1");
  EXPECT_EQ(refusal("edge:\n  worker_processes: 65\n"),
            file() + ": edge.worker_processes: must be from 1 to 64, got 65");
  EXPECT_EQ(refusal("jobs:\n  threads: 0\n"),
            file() + ": jobs.threads: must be from 1 to 64, got 0");
}

TEST_F(ConfigTest, BadValuesAreRefused) {
  EXPECT_EQ(refusal("server:\n  apps_domain: Apps.Example.com\n"),
            file() +
                ": server.apps_domain: expected a lower-case DNS name such as "
                "apps.example.com, got \"Apps.Example.com\"");
  EXPECT_EQ(refusal("edge:\n  json_body_limit: 2 MB\n"),
            file() +
                ": edge.json_body_limit: expected a size in nginx's form such as 512k or "
                "2m, got \"2 MB\"");
  for (std::string bad : {"512k", "1000", "0m", "1 g", "-1g"}) {
    EXPECT_EQ(refusal("edge:\n  cache_max_size: \"" + bad + "\"\n"),
              file() +
                  ": edge.cache_max_size: expected a size in megabytes or gigabytes such as "
                  "512m or 1g, got \"" +
                  bad + "\"")
        << bad;
  }
  EXPECT_EQ(refusal("data_dir: \"\"\n"), file() + ": data_dir: must not be empty");
  EXPECT_EQ(refusal("plugins:\n  enabled: [Projects]\n"),
            file() + ": plugins.enabled: expected plugin ids ([a-z][a-z0-9_]*), got \"Projects\"");
  EXPECT_EQ(refusal("plans:\n  free: -1\n"),
            file() + ": plans.free: must be from 0 to 9223372036854775807, got -1");
  EXPECT_EQ(refusal("plans:\n  free: lots\n"),
            file() + ": plans.free: expected an integer, got \"lots\"");
}

TEST_F(ConfigTest, BadListenIsRefusedWithTheValue) {
  EXPECT_EQ(refusal("server:\n  listen: abc\n"),
            file() + ": server.listen: expected host:port, got \"abc\"");
  EXPECT_EQ(refusal("server:\n  listen: \"127.0.0.1:\"\n"),
            file() + ": server.listen: expected host:port, got \"127.0.0.1:\"");
  EXPECT_EQ(refusal("server:\n  listen: 127.0.0.1:0\n"),
            file() + ": server.listen: port must be from 1 to 65535, got 0");
  const std::string bad_host = refusal("server:\n  project_listen: example.com:80\n");
  EXPECT_EQ(bad_host.rfind(file() + ": server.project_listen: expected host:port", 0), 0u)
      << bad_host;
}

TEST_F(ConfigTest, BadLogLevelAndFormatAreRefused) {
  EXPECT_EQ(refusal("log:\n  level: verbose\n"),
            file() + ": log.level: expected one of debug, info, warn, error, got \"verbose\"");
  EXPECT_EQ(refusal("log:\n  format: xml\n"),
            file() + ": log.format: expected one of text, json, got \"xml\"");
}

TEST_F(ConfigTest, DuplicatePluginIdIsRefused) {
  EXPECT_EQ(refusal("plugins:\n  enabled: [projects, storage, projects]\n"),
            file() + ": plugins.enabled: duplicate plugin id \"projects\"");
}

TEST_F(ConfigTest, EmptyPlansAreRefused) {
  const std::string message = refusal("plans: {}\n");
  EXPECT_EQ(message.rfind(file() + ": plans: expected a map of plan name", 0), 0u) << message;
  EXPECT_NE(message.find("at least one plan"), std::string::npos) << message;
  EXPECT_EQ(refusal("plans:\n").rfind(file() + ": plans: ", 0), 0u);
}

// ---- --set overrides ---------------------------------------------------------------------

TEST_F(ConfigTest, OverridesSetScalarsListsAndPlans) {
  const Settings s = load("plans:\n  free: 3\n  pro:\n", {{"server.listen", "127.0.0.1:9000"},
                                                          {"plugins.enabled", "projects, storage"},
                                                          {"log.level", "debug"},
                                                          {"database.url", ""},
                                                          {"plans.free", "5"},
                                                          {"plans.enterprise", "null"}});
  EXPECT_EQ(s.listen.str(), "127.0.0.1:9000");
  EXPECT_EQ(s.plugins.enabled, (std::vector<std::string>{"projects", "storage"}));
  EXPECT_EQ(s.log.level, "debug");
  EXPECT_EQ(s.database.url, "");
  EXPECT_EQ(s.plan_order, (std::vector<std::string>{"free", "pro", "enterprise"}));
  EXPECT_EQ(s.plans.at("free"), 5);
  EXPECT_EQ(s.plans.at("enterprise"), std::nullopt);
}

TEST_F(ConfigTest, OverrideWithEmptyListLoadsNoPlugin) {
  EXPECT_TRUE(load("", {{"plugins.enabled", ""}}).plugins.enabled.empty());
}

TEST_F(ConfigTest, OverridesApplyBeforeChecking) {
  // The file's own value is bad, but the override replaces it before anything is checked.
  EXPECT_EQ(load("server:\n  listen: abc\n", {{"server.listen", "localhost:81"}}).listen.str(),
            "localhost:81");
}

TEST_F(ConfigTest, OverrideValuesAreChecked) {
  EXPECT_EQ(refusal("", {{"server.drain_seconds", "forever"}}),
            file() + ": server.drain_seconds: expected an integer, got \"forever\"");
  EXPECT_EQ(refusal("", {{"plugins.enabled", "projects,projects"}}),
            file() + ": plugins.enabled: duplicate plugin id \"projects\"");
}

TEST_F(ConfigTest, OverrideOfUnknownKeyIsRefused) {
  EXPECT_EQ(refusal("", {{"server.bogus", "1"}}).rfind(file() + ": server.bogus: unknown key", 0),
            0u);
  EXPECT_EQ(refusal("", {{"colour", "red"}}).rfind(file() + ": colour: unknown key", 0), 0u);
  EXPECT_EQ(refusal("", {{"data_dir.sub", "x"}}).rfind(file() + ": data_dir.sub: unknown key", 0),
            0u);
  EXPECT_EQ(refusal("", {{"server.listen.port", "80"}})
                .rfind(file() + ": server.listen.port: unknown key", 0),
            0u);
  const std::string malformed = refusal("", {{"server..listen", "x"}});
  EXPECT_NE(malformed.find("expected a dotted key"), std::string::npos) << malformed;
}

TEST_F(ConfigTest, OverrideCreatesPluginSection) {
  const Settings s =
      load("", {{"projects.secrets_key", "abc"}, {"runtime.idle_stop_seconds", "60"}});
  EXPECT_EQ(s.plugin_sections.at("projects"), json({{"secrets_key", "abc"}}));
  EXPECT_EQ(s.plugin_sections.at("runtime"), json({{"idle_stop_seconds", 60}}));
}

// ---- plugin sections ---------------------------------------------------------------------

TEST_F(ConfigTest, PluginSectionsBecomeJsonWithTypesKept) {
  const Settings s = load(R"(
projects:
  secrets_key: "0011"
  enabled_flag: true
  quoted_flag: "true"
  yes_word: yes
  count: 42
  ratio: 1.5
  nothing:
  names: [a, b]
  limits: {free: 3, pro: null}
runtime:
)");
  EXPECT_EQ(s.plugin_sections.at("projects"), json::parse(R"({
    "secrets_key": "0011", "enabled_flag": true, "quoted_flag": "true", "yes_word": "yes",
    "count": 42, "ratio": "1.5", "nothing": null, "names": ["a", "b"],
    "limits": {"free": 3, "pro": null}})"));
  EXPECT_EQ(s.plugin_sections.at("runtime"), json::object());
  EXPECT_TRUE(s.plugin_sections.at("projects")["count"].is_number_integer());
}

std::vector<PluginKey> projectKeys() {
  return {
      {"secrets_key", 2, "", 1, 0, "AES key"},
      {"idle", 1, 900, 1, 86400, "idle seconds"},
      {"verbose", 0, false, 1, 0, "talk more"},
      {"reserved_names", 3, json::array({"admin"}), 1, 0, "names nobody may take"},
      {"limits", 4, json::object(), 1, 0, "per plan"},
  };
}

TEST_F(ConfigTest, PluginKeysFillDefaults) {
  const Settings s = load("projects:\n  idle: 60\n");
  EXPECT_EQ(applyPluginKeys(s, "projects", projectKeys()),
            json::parse(R"({"secrets_key": "", "idle": 60, "verbose": false,
                            "reserved_names": ["admin"], "limits": {}})"));
  // A plugin without a section gets every default.
  EXPECT_EQ(applyPluginKeys(s, "storage", {{"root", 2, "blobs", 1, 0, ""}}),
            json({{"root", "blobs"}}));
}

TEST_F(ConfigTest, PluginKeysAcceptEveryType) {
  const Settings s = load(R"(
projects:
  secrets_key: abc
  verbose: true
  reserved_names: [www, api]
  limits: {free: 3, pro: ~}
)");
  const json section = applyPluginKeys(s, "projects", projectKeys());
  EXPECT_EQ(section["secrets_key"], "abc");
  EXPECT_EQ(section["verbose"], true);
  EXPECT_EQ(section["reserved_names"], json::array({"www", "api"}));
  EXPECT_EQ(section["limits"], json::parse(R"({"free": 3, "pro": null})"));
}

TEST_F(ConfigTest, PluginListKeyTakesCommaSeparatedOverride) {
  const Settings s = load("", {{"projects.reserved_names", "www, api"}});
  EXPECT_EQ(applyPluginKeys(s, "projects", projectKeys())["reserved_names"],
            json::array({"www", "api"}));
}

TEST_F(ConfigTest, PluginUnknownKeyListsKnownKeys) {
  const Settings s = load("projects:\n  secret_key: abc\n");
  try {
    applyPluginKeys(s, "projects", projectKeys());
    FAIL() << "unknown plugin key accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              file() +
                  ": projects.secret_key: unknown key (known: secrets_key, idle, verbose, "
                  "reserved_names, limits)");
  }
}

std::string pluginRefusal(const Settings& s, const std::vector<PluginKey>& keys) {
  try {
    applyPluginKeys(s, "projects", keys);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST_F(ConfigTest, PluginWrongTypesAreRefused) {
  const auto keys = projectKeys();
  EXPECT_EQ(pluginRefusal(load("projects:\n  idle: soon\n"), keys),
            file() + ": projects.idle: expected an integer, got \"soon\"");
  EXPECT_EQ(pluginRefusal(load("projects:\n  verbose: 1\n"), keys),
            file() + ": projects.verbose: expected true or false, got 1");
  EXPECT_EQ(pluginRefusal(load("projects:\n  secrets_key: 1234\n"), keys)
                .rfind(file() + ": projects.secrets_key: expected a string", 0),
            0u);
  EXPECT_EQ(pluginRefusal(load("projects:\n  reserved_names: [1, 2]\n"), keys),
            file() + ": projects.reserved_names: expected a list of strings, got a list");
  EXPECT_EQ(pluginRefusal(load("projects:\n  limits: [1]\n"), keys),
            file() + ": projects.limits: expected a map of name to integer or nothing, got a list");
  EXPECT_EQ(pluginRefusal(load("projects:\n  limits: {free: many}\n"), keys),
            file() + ": projects.limits.free: expected an integer or nothing, got \"many\"");
}

TEST_F(ConfigTest, PluginIntRangeIsEnforcedOnlyWhenGiven) {
  const auto keys = projectKeys();
  EXPECT_EQ(pluginRefusal(load("projects:\n  idle: 0\n"), keys),
            file() + ": projects.idle: must be from 1 to 86400, got 0");
  EXPECT_EQ(pluginRefusal(load("projects:\n  idle: 86401\n"), keys),
            file() + ": projects.idle: must be from 1 to 86400, got 86401");
  // min > max: unbounded.
  const Settings s = load("projects:\n  count: -5\n");
  EXPECT_EQ(applyPluginKeys(s, "projects", {{"count", 1, 0, 1, 0, ""}})["count"], -5);
}

TEST_F(ConfigTest, PluginDefaultOfWrongTypeIsReported) {
  const std::string message = pluginRefusal(load(""), {{"idle", 1, "soon", 1, 0, ""}});
  EXPECT_NE(message.find("projects.idle: the plugin's default: expected an integer"),
            std::string::npos)
      << message;
}

TEST_F(ConfigTest, UnclaimedSectionNeedsAPluginLibrary) {
  TempDir plugins;
  plugins.write("libberth_dormant.so", "");
  const Settings s =
      load("plugins:\n  dir: " + plugins.path().string() + "\nloaded: {a: 1}\ndormant: {b: 2}\n");
  EXPECT_NO_THROW(checkUnclaimedSections(s, {"loaded"}));

  const Settings typo = load("plugins:\n  dir: " + plugins.path().string() + "\nprojcts: {a: 1}\n");
  try {
    checkUnclaimedSections(typo, {"projects"});
    FAIL() << "a section naming no plugin was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file() + ": projcts: unknown key", 0), 0u) << e.what();
  }
}

// ---- parseListen --------------------------------------------------------------------------

TEST(ParseListenTest, AcceptsIpv4LocalhostAndBracketedIpv6) {
  EXPECT_EQ(parseListen("10.0.0.1:80", "x").str(), "10.0.0.1:80");
  EXPECT_EQ(parseListen("localhost:65535", "x").port, 65535);
  const ListenAddress v6 = parseListen("[2001:db8::1]:443", "x");
  EXPECT_EQ(v6.host, "[2001:db8::1]");
  EXPECT_EQ(v6.port, 443);
  EXPECT_EQ(parseListen("127.0.0.1:0", "x").port, 0);
}

TEST(ParseListenTest, RefusesMalformedWithWhatAsPrefix) {
  for (const std::string bad :
       {"", "abc", "127.0.0.1", "127.0.0.1:", ":80", "1.2.3:80", "256.0.0.1:80", "::1:80", "[::1]",
        "[nothex]:80", "example.com:80", "127.0.0.1:http", "127.0.0.1:+80", "127.0.0.1:-1",
        "127.0.0.1:65536", "127.0.0.1:99999999999999999999"}) {
    try {
      parseListen(bad, "f.yaml: projects.dns_resolver");
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("f.yaml: projects.dns_resolver: ", 0), 0u) << message;
      EXPECT_NE(message.find("\"" + bad + "\""), std::string::npos) << message;
    }
  }
}

TEST_F(ConfigTest, PublicUrlAndSessionLifetimes) {
  Settings s = load(
      "server:\n  public_url: https://api.example.com/\n"
      "sessions:\n  idle_minutes: 30\n  max_hours: 2\n");
  EXPECT_EQ(publicUrl(s), "https://api.example.com");
  EXPECT_EQ(s.session_idle_minutes, 30);
  EXPECT_EQ(s.session_max_hours, 2);
  Settings defaults = load("# nothing set\n");
  EXPECT_EQ(publicUrl(defaults), "http://127.0.0.1:8080");
  EXPECT_EQ(defaults.session_idle_minutes, 7 * 24 * 60);
  EXPECT_EQ(defaults.session_max_hours, 30 * 24);
  EXPECT_NE(refusal("server:\n  public_url: api.example.com\n").find("server.public_url"),
            std::string::npos);
  EXPECT_NE(refusal("sessions:\n  max_hours: 0\n").find("sessions.max_hours"), std::string::npos);
  EXPECT_NE(refusal("sessions:\n  idle: 5\n").find("sessions.idle"), std::string::npos);
}

}  // namespace
}  // namespace berth::core
