// The console's locations in the nginx.conf berthd renders: only in the API server block, only
// when there is a console folder, accepted by nginx -t, and a folder whose path could inject
// directives is refused rather than pasted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "edge/nginx_config.hpp"
#include "util/process.hpp"

using namespace berth::core;
namespace fs = std::filesystem;

namespace {

class ConsoleEdgeConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/berth-console-conf.XXXXXX";
    dir_ = ::mkdtemp(pattern);
    layout_.listen = {"127.0.0.1", 18080};
    layout_.apps_domain = "apps.example.test";
    layout_.backend_port = 18081;
    layout_.data_dir = dir_;
    layout_.runtime_dir = dir_ + "/edge";
    layout_.access_log_file = dir_ + "/access.log";
    layout_.console_dir = dir_ + "/share/berth/console";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The text of the server block whose first listen line is the API's default server.
  static std::string apiServer(const std::string& config) {
    size_t api = config.find("default_server;");
    size_t next = config.find("\n  server {", api);
    return config.substr(api, next - api);
  }

  std::string dir_;
  EdgeLayout layout_;
};

TEST_F(ConsoleEdgeConfig, OnlyTheApiServerServesTheConsole) {
  const std::string config = renderNginxConfig(layout_);
  const std::string api = apiServer(config);
  EXPECT_NE(api.find("location = /console {"), std::string::npos) << api;
  EXPECT_NE(api.find("location ^~ /console/ {"), std::string::npos) << api;
  EXPECT_NE(api.find("alias " + layout_.console_dir + "/;"), std::string::npos) << api;
  EXPECT_NE(api.find("location ^~ /console/vendor/ {"), std::string::npos) << api;
  // The rest (the project server block) has none of it.
  const std::string rest = config.substr(config.find(api) + api.size());
  EXPECT_EQ(rest.find("/console"), std::string::npos) << rest;
  EXPECT_EQ(config.find("unsafe-inline"), std::string::npos);
  EXPECT_EQ(config.find("unsafe-eval"), std::string::npos);
}

TEST_F(ConsoleEdgeConfig, NoFolderNoLocations) {
  layout_.console_dir.clear();
  EXPECT_EQ(renderNginxConfig(layout_).find("/console"), std::string::npos);
}

TEST_F(ConsoleEdgeConfig, NginxAcceptsIt) {
  fs::create_directories(layout_.runtime_dir);
  fs::create_directories(layout_.console_dir + "/vendor");
  const std::string path = layout_.runtime_dir + "/nginx.conf";
  std::ofstream(path) << renderNginxConfig(layout_);
  auto r = runCommand({"/usr/sbin/nginx", "-t", "-p", layout_.runtime_dir + "/", "-c", path});
  EXPECT_TRUE(r.status.ok()) << r.output;
}

TEST_F(ConsoleEdgeConfig, APathThatCouldInjectDirectivesIsRefused) {
  for (const std::string& bad :
       {std::string("relative/console"), dir_ + "/con sole",
        dir_ + "/x;\n  location / { return 200; }", dir_ + "/$host", dir_ + "/\"quoted\""}) {
    layout_.console_dir = bad;
    EXPECT_THROW(renderNginxConfig(layout_), std::invalid_argument) << bad;
  }
}

}  // namespace
