// ctest-label: api (starts a real berthd)
// A hostile tenant cannot squat another tenant's custom domain. The attacker claims the
// victim's domain first; the claim routes nothing and blocks nobody: the victim claims it too,
// verifies it through DNS (a dnsmasq on loopback, projects.dns_resolver), owns it, and the
// attacker's claim is gone at that moment. A verified domain cannot be claimed or verified by
// anyone else, and an unverified claim expires.
#include <gtest/gtest.h>

#include "../projects/api_support.hpp"
#include "../projects/dns_fixture.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

const std::string kApiTraffic = "no such route";
const std::string kProjectTraffic = "nothing is served here";

class Domains : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    dns_port = berth::core::freeLoopbackPort();
    BerthdOptions options;
    options.plugins = {"projects"};
    options.extra_yaml = "projects:\n  creation_burst: 100\n  dns_resolver: \"127.0.0.1:" +
                         std::to_string(dns_port) + "\"\n";
    startServer(options);
    scratch = makeTempDir("berth-domains-dns");
  }
  static void TearDownTestSuite() {
    removeTree(scratch);
    ProjectsServerSuite::TearDownTestSuite();
  }
  // What the edge answers for an unknown path on `host`: API traffic or project traffic (no
  // runtime plugin loaded).
  static std::string probe(const Account& a, const std::string& host) {
    return errorText(api(a).get("/berth-domain-probe", {"Host: " + host}));
  }
  static HttpResult verify(const Account& a, const std::string& project, const std::string& host) {
    return api(a).raw("POST", "/projects/" + project + "/domains/" + host + "/verify", "");
  }
  static json domains(const Account& a, const std::string& project) {
    return api(a).get("/projects/" + project + "/domains").json().at("domains");
  }

  static inline uint16_t dns_port = 0;
  static inline std::string scratch;
};

TEST_F(Domains, AnUnverifiedClaimDoesNotKeepTheRealOwnerFromItsDomain) {
  auto attacker = makeAccount(*server, "squatter");
  auto victim = makeAccount(*server, "owner");
  mustCreate(api(attacker), "grab");
  mustCreate(api(victim), "shop");
  const std::string host = "shop.victim.test";
  const std::string clash = "the domain " + host + " is already on a project";

  // The attacker is first.
  auto squat = api(attacker).post("/projects/grab-squatter/domains", {{"host", host}});
  ASSERT_EQ(squat.status, 201) << squat.body;
  // Its claim routes nothing.
  EXPECT_EQ(probe(attacker, host), kApiTraffic);

  // The victim can still claim its domain.
  auto claim = api(victim).post("/projects/shop-owner/domains", {{"host", host}});
  ASSERT_EQ(claim.status, 201) << claim.body;
  EXPECT_EQ(claim.json()["verified"], false);
  std::string victim_token = tokenOf(claim.json());
  ASSERT_NE(victim_token, tokenOf(squat.json()));

  // DNS holds the victim's token, which the attacker cannot publish: its verify fails.
  auto dns =
      startDnsmasq(dns_port, "victim.test", {{"_berth." + host, "berth-verify=" + victim_token}},
                   scratch + "/dnsmasq.log");
  auto r = verify(attacker, "grab-squatter", host);
  EXPECT_EQ(r.status, 400) << r.body;

  // The victim verifies it and owns it: its traffic goes to the victim's project.
  r = verify(victim, "shop-owner", host);
  ASSERT_EQ(r.status, 200) << r.body << "\n" << readFile(scratch + "/dnsmasq.log");
  EXPECT_EQ(r.json()["verified"], true);
  EXPECT_TRUE(eventually([&] { return probe(victim, host) == kProjectTraffic; }))
      << probe(victim, host);
  auto owned = domains(victim, "shop-owner");
  ASSERT_EQ(owned.size(), 1u) << owned.dump();
  EXPECT_EQ(owned[0]["verified"], true);

  // The attacker's claim is gone, in the table too; it can neither verify nor claim again.
  EXPECT_TRUE(domains(attacker, "grab-squatter").empty());
  EXPECT_EQ(tableText(*server, "projects.domains").find(tokenOf(squat.json())), std::string::npos);
  r = verify(attacker, "grab-squatter", host);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no domain called " + host);
  r = api(attacker).post("/projects/grab-squatter/domains", {{"host", host}});
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(errorText(r), clash);
  r = api(attacker).del("/projects/grab-squatter/domains/" + host);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(probe(victim, host), kProjectTraffic);
}

TEST_F(Domains, ManySquattedClaimsAllGoWhenTheOwnerVerifies) {
  auto attacker = makeAccount(*server, "squatmany");
  auto victim = makeAccount(*server, "ownermany");
  for (std::string label : {"ga", "gb", "gc"}) mustCreate(api(attacker), label);
  mustCreate(api(victim), "site");
  const std::string host = "www.many.test";
  for (std::string label : {"ga", "gb", "gc"}) {
    auto r = api(attacker).post("/projects/" + label + "-squatmany/domains", {{"host", host}});
    ASSERT_EQ(r.status, 201) << label << ": " << r.body;
  }
  auto claim = api(victim).post("/projects/site-ownermany/domains", {{"host", host}});
  ASSERT_EQ(claim.status, 201) << claim.body;
  auto dns = startDnsmasq(dns_port, "many.test",
                          {{"_berth." + host, "berth-verify=" + tokenOf(claim.json())}},
                          scratch + "/dnsmasq-many.log");
  auto r = verify(victim, "site-ownermany", host);
  ASSERT_EQ(r.status, 200) << r.body;
  for (std::string label : {"ga", "gb", "gc"})
    EXPECT_TRUE(domains(attacker, label + "-squatmany").empty()) << label;
  std::string table = tableText(*server, "projects.domains");
  for (std::string label : {"ga", "gb", "gc"})
    EXPECT_EQ(table.find(projectId(*server, label + "-squatmany")), std::string::npos) << label;
}

TEST_F(Domains, AnUnverifiedClaimExpires) {
  auto attacker = makeAccount(*server, "squatold");
  mustCreate(api(attacker), "grab");
  const std::string host = "old.expired.test";
  ASSERT_EQ(api(attacker).post("/projects/grab-squatold/domains", {{"host", host}}).status, 201);
  {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    db.exec("UPDATE projects.domains SET created_at = created_at - $2 WHERE host = $1",
            {host, std::to_string(7 * 86400 + 60)});
  }
  EXPECT_TRUE(domains(attacker, "grab-squatold").empty());
  auto r = verify(attacker, "grab-squatold", host);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no domain called " + host);
}

}  // namespace
