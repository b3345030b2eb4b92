// The pure parts of several nodes: which addresses a node may register (and nginx may proxy to
// without a resolver), the default one, the cluster.* settings, the edge's forwarding location
// (accepted by nginx -t; the secret goes to another node's edge and to no app), and the
// response conversion's checks of a proxy to a node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cluster/live_nodes.hpp"
#include "config/settings.hpp"
#include "edge/nginx_config.hpp"
#include "util/process.hpp"

using namespace berth::core;
namespace fs = std::filesystem;

namespace {

std::string tempDir() {
  char pattern[] = "/tmp/berth-cluster-nodes.XXXXXX";
  return ::mkdtemp(pattern);
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(NodeAddress, IpLiteralsAndPortsOnly) {
  EXPECT_TRUE(isNodeAddress("10.0.0.5:8080"));
  EXPECT_TRUE(isNodeAddress("127.0.0.1:1"));
  EXPECT_TRUE(isNodeAddress("[fd00::5]:8080"));
  EXPECT_TRUE(isNodeAddress("[::1]:65535"));
  EXPECT_FALSE(isNodeAddress("node-a:8080"));  // a name needs a resolver in nginx
  EXPECT_FALSE(isNodeAddress("10.0.0.5"));
  EXPECT_FALSE(isNodeAddress("10.0.0.5:0"));
  EXPECT_FALSE(isNodeAddress("10.0.0.5:65536"));
  EXPECT_FALSE(isNodeAddress("10.0.0.5:80x"));
  EXPECT_FALSE(isNodeAddress("10.0.0.5:80/evil"));
  EXPECT_FALSE(isNodeAddress("fd00::5:8080"));  // IPv6 only in brackets
  EXPECT_FALSE(isNodeAddress("[fd00::5]"));
  EXPECT_FALSE(isNodeAddress(":8080"));
  EXPECT_FALSE(isNodeAddress(""));
  EXPECT_FALSE(isNodeAddress("0.0.0.0:8080"));  // a wildcard names no machine
  EXPECT_FALSE(isNodeAddress("[::]:8080"));
}

TEST(NodeAddress, DefaultFromTheListenAddress) {
  EXPECT_EQ(defaultNodeAddress("10.0.0.5", 8080), "10.0.0.5:8080");
  EXPECT_EQ(defaultNodeAddress("localhost", 8080), "127.0.0.1:8080");
  EXPECT_EQ(defaultNodeAddress("[fd00::5]", 80), "[fd00::5]:80");
  EXPECT_EQ(defaultNodeAddress("0.0.0.0", 8080), "");  // a wildcard: cluster.node_address must
  EXPECT_EQ(defaultNodeAddress("[::]", 8080), "");
}

TEST(ClusterSettings, AddressAndLabels) {
  const std::string dir = tempDir();
  const std::string file = dir + "/berth.yaml";
  std::ofstream(file) << "server:\n  listen: 0.0.0.0:8080\n"
                         "cluster:\n  node_address: 10.1.2.3:8080\n"
                         "  labels:\n    region: eu-west\n    zone: b\n";
  Settings s = loadSettings(file, {});
  ASSERT_TRUE(s.cluster.node_address);
  EXPECT_EQ(nodeAddress(s), "10.1.2.3:8080");
  EXPECT_EQ(s.cluster.labels, (nlohmann::json{{"region", "eu-west"}, {"zone", "b"}}));

  std::ofstream(file) << "server:\n  listen: 127.0.0.1:8080\n";
  EXPECT_EQ(nodeAddress(loadSettings(file, {})), "127.0.0.1:8080");
  std::ofstream(file) << "server:\n  listen: 0.0.0.0:8080\n  project_listen: 10.0.0.9:80\n";
  EXPECT_EQ(nodeAddress(loadSettings(file, {})), "10.0.0.9:80");

  for (const char* bad :
       {"cluster:\n  node_address: node-a:8080\n", "cluster:\n  node_address: 0.0.0.0:8080\n",
        "cluster:\n  labels: [a, b]\n", "cluster:\n  labels:\n    a: [1]\n",
        "cluster:\n  nodes: 3\n"}) {
    std::ofstream(file) << bad;
    try {
      loadSettings(file, {});
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("cluster."), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}

TEST(ClusterEdge, TheForwardingLocationCarriesTheSecretToNodesOnly) {
  const std::string dir = tempDir();
  EdgeLayout layout;
  layout.listen = {"127.0.0.1", 18080};
  layout.apps_domain = "apps.example.test";
  layout.backend_port = 18081;
  layout.data_dir = dir;
  layout.runtime_dir = dir + "/edge";
  layout.access_log_file = dir + "/access.log";
  layout.app_rules.push_back({"a.apps.example.test", 19000});
  const std::string secret(64, 'f');
  layout.forward_proof = secret;
  const std::string text = renderNginxConfig(layout);
  EXPECT_NE(text.find("proxy_pass http://$berth_node$request_uri;"), std::string::npos);
  // Once per server (the API's and the projects'): the forwarding location's header.
  EXPECT_EQ(count(text, "proxy_set_header X-Berth-Forwarded " + secret + ";"), 2u);
  EXPECT_EQ(count(text, secret), 2u);
  // Every other way to an app blanks it; PHP's too.
  EXPECT_GT(count(text, "proxy_set_header X-Berth-Forwarded \"\";"), 3u);
  EXPECT_NE(text.find("fastcgi_param HTTP_X_BERTH_FORWARDED \"\";"), std::string::npos);

  fs::create_directories(layout.runtime_dir);
  const std::string path = layout.runtime_dir + "/nginx.conf";
  std::ofstream(path) << text;
  auto result = runCommand({"/usr/sbin/nginx", "-t", "-p", layout.runtime_dir + "/", "-c", path});
  EXPECT_TRUE(result.status.ok()) << result.output;

  layout.forward_proof = "not hex!";
  EXPECT_THROW(renderNginxConfig(layout), std::invalid_argument);
  layout.forward_proof.clear();
  EXPECT_EQ(renderNginxConfig(layout).find("_berth_node"), std::string::npos);
  fs::remove_all(dir);
}
