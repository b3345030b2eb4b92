// SPDX-License-Identifier: MIT
// Services::configValue<T>(key): a declared key's value, berth.yaml's or else the default
// declared in registerAll, so a plugin writes each default once; a key never declared, or a
// value of another type, is a clear 500 rather than a silent fallback.
#include <gtest/gtest.h>
#include <berth/testing/fake_host.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

class SettingsPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configBool("enabled", true, "a bool");
    r.configInt("workers", 8, "an int", berth::IntRange{1, 64});
    r.configString("root", "blobs", "a string");
    r.configStringList("names", {"api", "www"}, "a list");
    r.configIntMap("quota", {{"free", 3}, {"pro", std::nullopt}}, "an int map");
  }
  void start(berth::Services& services) override {
    enabled = services.configValue<bool>("enabled");
    workers = services.configValue<int64_t>("workers");
    small_workers = services.configValue<int>("workers");
    root = services.configValue<std::string>("root");
    names = services.configValue<std::vector<std::string>>("names");
    quota = services.configValue<json>("quota");
    try {
      services.configValue<int>("undeclared");
    } catch (const berth::Error& e) {
      undeclared = std::to_string(e.status()) + " " + e.what();
    }
    try {
      services.configValue<int>("root");
    } catch (const berth::Error& e) {
      wrong_type = std::to_string(e.status()) + " " + e.what();
    }
  }

  bool enabled = false;
  int64_t workers = 0;
  int small_workers = 0;
  std::string root;
  std::vector<std::string> names;
  json quota;
  std::string undeclared;
  std::string wrong_type;
};

TEST(ConfigValue, GivesTheDeclaredDefaultsWhenTheSectionIsEmpty) {
  berth::testing::FakeHost host;
  SettingsPlugin& plugin = host.load<SettingsPlugin>();
  host.start();
  EXPECT_TRUE(plugin.enabled);
  EXPECT_EQ(plugin.workers, 8);
  EXPECT_EQ(plugin.small_workers, 8);
  EXPECT_EQ(plugin.root, "blobs");
  EXPECT_EQ(plugin.names, (std::vector<std::string>{"api", "www"}));
  EXPECT_EQ(plugin.quota, json::parse(R"({"free":3,"pro":null})"));
}

TEST(ConfigValue, GivesTheSectionsValues) {
  berth::testing::FakeHost host;
  SettingsPlugin& plugin = host.load<SettingsPlugin>();
  host.start({{"enabled", false}, {"workers", 2}, {"root", "/srv"}, {"names", {"x"}}});
  EXPECT_FALSE(plugin.enabled);
  EXPECT_EQ(plugin.workers, 2);
  EXPECT_EQ(plugin.root, "/srv");
  EXPECT_EQ(plugin.names, std::vector<std::string>{"x"});
  EXPECT_EQ(plugin.quota, json::parse(R"({"free":3,"pro":null})")) << "the rest keep defaults";
}

TEST(ConfigValue, RefusesAKeyNeverDeclaredOrOfAnotherType) {
  berth::testing::FakeHost host;
  SettingsPlugin& plugin = host.load<SettingsPlugin>();
  host.start();
  EXPECT_EQ(plugin.undeclared, "500 config key undeclared was not declared");
  EXPECT_EQ(plugin.wrong_type, "500 config key root does not hold the declared type");
}

}  // namespace
