// ctest-label: api (starts a real berthd)
// BERTH_URL: every app learns the address people reach it at, its own host first, and its
// first verified custom domain once there is one; a running app restarts with the new value
// when the domain is verified (DNS from a dnsmasq on loopback), and it is never a secret's.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "../projects/api_support.hpp"
#include "../projects/dns_fixture.hpp"
#include "host_requests.hpp"
#include "support/berthd_suite.hpp"
#include "tar_builder.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::runtime_api;
using berth::runtime::testing::TarBuilder;

namespace {

const char* const kAddressApp = R"JS(
require('http').createServer((req, res) => {
  res.setHeader('cache-control', 'no-store');
  res.end(String(process.env.BERTH_URL));
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

class ApiPublicUrl : public OwnerSuite {
 protected:
  static void SetUpTestSuite() {
    dns_port = berth::core::freeLoopbackPort();
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    options.extra_yaml =
        secretsKeyYaml() + "  dns_resolver: \"127.0.0.1:" + std::to_string(dns_port) + "\"\n";
    startServer(options, "urlown");
    scratch = makeTempDir("berth-public-url");
  }
  static void TearDownTestSuite() {
    OwnerSuite::TearDownTestSuite();
    removeTree(scratch);
  }
  static std::string addressSeen(const std::string& name) {
    return onProjectHost(*server, name, "/").body;
  }
  static inline uint16_t dns_port = 0;
  static inline std::string scratch;
};

TEST_F(ApiPublicUrl, AnAppLearnsItsAddressAndItsDomainOnceVerified) {
  mustCreate(api(), "addr");
  const std::string name = projectName("addr", owner->slug);
  // A secret of that name changes nothing: the address is the platform's.
  ASSERT_EQ(api()
                .post("/projects/" + name + "/secrets",
                      {{"name", "BERTH_URL"}, {"value", "http://evil.test"}})
                .status,
            201);
  auto upload = api().raw("POST", "/projects/" + name + "/deploys",
                          TarBuilder()
                              .file("package.json", R"({"name": "addr", "main": "server.js"})")
                              .file("server.js", kAddressApp)
                              .finish(),
                          {"Content-Type: application/gzip"});
  ASSERT_EQ(upload.status, 202) << upload.body;
  const std::string own = api().get("/projects/" + name).json().value("url", "");
  ASSERT_FALSE(own.empty());
  ASSERT_TRUE(eventually([&] { return addressSeen(name) == own; }, std::chrono::seconds(60)))
      << addressSeen(name);

  const std::string host = "www.addr.test";
  auto added = api().post("/projects/" + name + "/domains", {{"host", host}});
  ASSERT_EQ(added.status, 201) << added.body;
  auto dns = startDnsmasq(dns_port, "addr.test",
                          {{"_berth." + host, "berth-verify=" + tokenOf(added.json())}},
                          scratch + "/dnsmasq.log");
  auto verified = api().raw("POST", "/projects/" + name + "/domains/" + host + "/verify", "");
  ASSERT_EQ(verified.status, 200) << verified.body;
  // The running app restarts with the domain's address, keeping the port of its own.
  std::string expected = own;
  expected.replace(expected.find("://") + 3, name.size() + std::string(".localhost").size(), host);
  EXPECT_TRUE(eventually([&] { return addressSeen(name) == expected; }, std::chrono::seconds(60)))
      << addressSeen(name) << " != " << expected;
}

}  // namespace
