// cmake --install of this build, as an operator or a plugin author gets it: berthd finds the
// installed plugins without being told where they are, and a plugin built outside this tree
// against the installed SDK (find_package(BerthSdk), berth_add_plugin) links.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <berth/abi.h>

#include "support/berthd_process.hpp"
#include "support/pg_cluster.hpp"
#include "util/process.hpp"

namespace fs = std::filesystem;
using berth::core::runCommand;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string sdkVersion(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

class Install : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = berth::testing::makeTempDir("berth-install-");
    prefix_ = fs::path(dir_) / "prefix";
    auto installed =
        runCommand({"cmake", "--install", BERTH_TEST_BINARY_DIR, "--prefix", prefix_.string()}, {},
                   std::chrono::minutes(2));
    ASSERT_TRUE(installed.status.ok()) << installed.output;
  }
  void TearDown() override { berth::testing::removeTree(dir_); }

  std::string dir_;
  fs::path prefix_;
};

TEST_F(Install, BerthdFindsItsInstalledPlugins) {
  ASSERT_TRUE(fs::exists(prefix_ / "bin/berthd"));
  ASSERT_TRUE(fs::exists(prefix_ / "lib/berth/libberth_projects.so"));
  ASSERT_TRUE(fs::exists(prefix_ / "include/berth/plugin.hpp"));
  // No plugins.dir: the installed berthd looks in <prefix>/lib/berth, and its migrations run.
  const std::string url = berth::testing::sharedCluster().createDatabase("install");
  const fs::path config = fs::path(dir_) / "berth.yaml";
  write(config, "database:\n  url: \"" + url + "\"\ndata_dir: \"" + dir_ +
                    "/data\"\nplugins:\n  enabled: [projects]\n");
  auto migrate = [&] {
    return runCommand({(prefix_ / "bin/berthd").string(), "--config", config.string(), "migrate"},
                      {}, std::chrono::minutes(1));
  };
  // Taken away from the prefix (it still is in the build tree), the plugin is missing.
  const fs::path plugin = prefix_ / "lib/berth/libberth_projects.so";
  fs::rename(plugin, fs::path(dir_) / "aside.so");
  auto missing = migrate();
  EXPECT_FALSE(missing.status.ok()) << missing.output;
  EXPECT_NE(missing.output.find((prefix_ / "lib/berth").string()), std::string::npos)
      << missing.output;
  fs::rename(fs::path(dir_) / "aside.so", plugin);
  auto migrated = migrate();
  EXPECT_TRUE(migrated.status.ok()) << migrated.output;
}

TEST_F(Install, APluginBuildsOutsideTheTreeAgainstTheInstalledSdk) {
  const fs::path source = fs::path(dir_) / "mini";
  write(source / "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.18)\n"
        "project(mini CXX)\n"
        "set(CMAKE_CXX_STANDARD 20)\n"
        "find_package(BerthSdk " +
            sdkVersion(BERTH_ABI_MAJOR, BERTH_ABI_MINOR) +
            " REQUIRED)\n"
            "berth_add_plugin(mini SOURCES mini.cpp MIGRATIONS ${CMAKE_CURRENT_SOURCE_DIR}/sql)\n");
  write(source / "sql/0001_first.sql", "CREATE TABLE notes (id int);\n");
  write(source / "mini.cpp",
        "#include <berth/plugin.hpp>\n"
        "#include \"berth_migrations_mini.inc\"\n"
        "class Mini final : public berth::Plugin {\n"
        " public:\n"
        "  void registerAll(berth::Registrar& r) override {\n"
        "    r.migrations(kBerthMigrations, kBerthMigrationCount);\n"
        "    r.get(\"/mini\", [](berth::Request, berth::Responder resp) {\n"
        "      resp.json(200, {{\"mini\", true}});\n"
        "    });\n"
        "  }\n"
        "};\n"
        "BERTH_PLUGIN(Mini, \"mini\", \"0.1.0\", \"an example built outside the tree\",\n"
        "             BERTH_KIND_FEATURE)\n");
  const fs::path build = fs::path(dir_) / "mini-build";
  auto configured = runCommand({"cmake", "-S", source.string(), "-B", build.string(),
                                "-DCMAKE_PREFIX_PATH=" + prefix_.string()},
                               {}, std::chrono::minutes(2));
  ASSERT_TRUE(configured.status.ok()) << configured.output;
  auto built = runCommand({"cmake", "--build", build.string()}, {}, std::chrono::minutes(4));
  ASSERT_TRUE(built.status.ok()) << built.output;
  EXPECT_TRUE(fs::exists(build / "lib/berth/libberth_mini.so"));
}

// BerthSdkConfigVersion.cmake: the SDK's version is its ABI's; a later minor or another major
// than the installed one is refused when the plugin is configured, not when berthd loads it.
TEST_F(Install, FindPackageChecksTheSdkVersion) {
  auto configure = [&](const std::string& version) {
    const fs::path source = fs::path(dir_) / ("wants-" + version);
    write(source / "CMakeLists.txt",
          "cmake_minimum_required(VERSION 3.18)\n"
          "project(wants CXX)\n"
          "find_package(BerthSdk " +
              version + " REQUIRED)\n");
    return runCommand({"cmake", "-S", source.string(), "-B", (source / "build").string(),
                       "-DCMAKE_PREFIX_PATH=" + prefix_.string()},
                      {}, std::chrono::minutes(2));
  };
  EXPECT_TRUE(configure(sdkVersion(BERTH_ABI_MAJOR, 0)).status.ok());
  auto newer = configure(sdkVersion(BERTH_ABI_MAJOR, BERTH_ABI_MINOR + 1));
  EXPECT_FALSE(newer.status.ok()) << newer.output;
  EXPECT_NE(newer.output.find("compatible with requested version"), std::string::npos)
      << newer.output;
  EXPECT_FALSE(configure(sdkVersion(BERTH_ABI_MAJOR + 1, 0)).status.ok());
}

}  // namespace
