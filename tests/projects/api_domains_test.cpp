// ctest-label: api (starts a real berthd)
// Custom domains over real HTTP: the records an added domain answers, claims of one host by
// several projects until one verifies it, claims expiring, host checks, verification through a
// dnsmasq the test runs on loopback (berthd's projects.dns_resolver points at it), and a verified
// domain becoming project traffic at the edge until it is deleted.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "api_support.hpp"
#include "dns_fixture.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

std::string notADomain(const std::string& host) {
  return host + " is not a domain name";
}

std::string underAppsDomain(const std::string& host) {
  return host + " is under localhost, which the platform serves itself";
}

class ApiDomains : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    dns_port = berth::core::freeLoopbackPort();
    BerthdOptions options;
    options.plugins = {"projects"};
    options.extra_yaml =
        "projects:\n  dns_resolver: \"127.0.0.1:" + std::to_string(dns_port) + "\"\n";
    startServer(options);
  }
  static void TearDownTestSuite() { dropServer(); }
  static ApiClient api(const Account& a) { return server->api(a.token); }

  // What the edge answers for an unknown path on `host`: "no such route" where the host is API
  // traffic, "nothing is served here" where it is project traffic (no runtime plugin loaded).
  static std::string probe(const Account& a, const std::string& host) {
    return errorText(api(a).get("/berth-domain-probe", {"Host: " + host}));
  }

  static uint16_t dns_port;
};
uint16_t ApiDomains::dns_port = 0;

const std::string kApiTraffic = "no such route";
const std::string kProjectTraffic = "nothing is served here";

}  // namespace

TEST_F(ApiDomains, AddAnswers201WithTheTwoRecordsToPublish) {
  auto a = makeAccount(*server, "dmadd");
  mustCreate(api(a), "shop");
  int64_t before = nowSeconds();
  auto r = api(a).post("/projects/shop-dmadd/domains", {{"host", "shop.example.com"}});
  ASSERT_EQ(r.status, 201) << r.body;
  auto d = r.json();
  EXPECT_EQ(d["host"], "shop.example.com");
  EXPECT_EQ(d["verified"], false);
  ASSERT_TRUE(d.contains("verified_at")) << r.body;
  EXPECT_TRUE(d["verified_at"].is_null()) << r.body;
  ASSERT_TRUE(d["created_at"].is_number_integer()) << r.body;
  EXPECT_GE(d["created_at"].get<int64_t>(), before - 120);
  EXPECT_LE(d["created_at"].get<int64_t>(), nowSeconds() + 120);

  std::string token = tokenOf(d);
  EXPECT_FALSE(token.empty()) << r.body;
  EXPECT_EQ(token.find_first_of(" \t\"'\n"), std::string::npos) << token;
  ASSERT_TRUE(d["records"].is_array()) << r.body;
  EXPECT_EQ(
      d["records"],
      (json::array({
          {{"type", "TXT"},
           {"name", "_berth.shop.example.com"},
           {"value", "berth-verify=" + token}},
          {{"type", "CNAME"}, {"name", "shop.example.com"}, {"value", "shop-dmadd.localhost"}},
      })));

  auto list = api(a).get("/projects/shop-dmadd/domains");
  ASSERT_EQ(list.status, 200) << list.body;
  auto domains = list.json()["domains"];
  ASSERT_EQ(domains.size(), 1u) << list.body;
  EXPECT_EQ(domains[0]["host"], "shop.example.com");
  EXPECT_EQ(domains[0]["verified"], false);
  EXPECT_EQ(tokenOf(domains[0]), token);

  // A second domain gets a token of its own.
  r = api(a).post("/projects/shop-dmadd/domains", {{"host", "www.shop.example.com"}});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_NE(tokenOf(r.json()), token);
  EXPECT_EQ(api(a).get("/projects/shop-dmadd/domains").json()["domains"].size(), 2u);
}

TEST_F(ApiDomains, AClaimBlocksNobodyUntilOneProjectVerifiesIt) {
  auto a = makeAccount(*server, "dmdupa");
  auto b = makeAccount(*server, "dmdupb");
  mustCreate(api(a), "one");
  mustCreate(api(a), "two");
  mustCreate(api(b), "theirs");
  const std::string host = "dup.claims.test";
  const std::string clash = "the domain " + host + " is already on a project";
  auto first = api(a).post("/projects/one-dmdupa/domains", {{"host", host}});
  ASSERT_EQ(first.status, 201) << first.body;
  // The same project twice is refused, as docs/openapi.yaml says (POST /projects/{name}/domains).
  auto r = api(a).post("/projects/one-dmdupa/domains", {{"host", host}});
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(errorText(r), clash);
  // Any other project, the same account's or anyone's, may claim it while it is unverified.
  auto second = api(a).post("/projects/two-dmdupa/domains", {{"host", host}});
  ASSERT_EQ(second.status, 201) << second.body;
  auto theirs = api(b).post("/projects/theirs-dmdupb/domains", {{"host", host}});
  ASSERT_EQ(theirs.status, 201) << theirs.body;
  std::set<std::string> tokens = {tokenOf(first.json()), tokenOf(second.json()),
                                  tokenOf(theirs.json())};
  EXPECT_EQ(tokens.size(), 3u) << "each claim has a token of its own";
  for (const auto& [account, project] :
       {std::pair{a, "one-dmdupa"}, std::pair{a, "two-dmdupa"}, std::pair{b, "theirs-dmdupb"}}) {
    auto listed = api(account).get("/projects/" + std::string(project) + "/domains").json();
    ASSERT_EQ(listed["domains"].size(), 1u) << project << ": " << listed.dump();
    EXPECT_EQ(listed["domains"][0]["verified"], false);
  }

  // The first to verify owns it; the other claims are dropped at that moment.
  std::string root = makeTempDir("berth-dnsmasq");
  auto dns = startDnsmasq(dns_port, "claims.test",
                          {{"_berth." + host, "berth-verify=" + tokenOf(theirs.json())}},
                          root + "/dnsmasq.log");
  r = api(b).raw("POST", "/projects/theirs-dmdupb/domains/" + host + "/verify", "");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["verified"], true);
  for (std::string project : {"one-dmdupa", "two-dmdupa"}) {
    EXPECT_TRUE(api(a).get("/projects/" + project + "/domains").json()["domains"].empty())
        << project;
    r = api(a).raw("POST", "/projects/" + project + "/domains/" + host + "/verify", "");
    EXPECT_EQ(r.status, 404) << project << ": " << r.body;
    EXPECT_EQ(errorText(r), "no domain called " + host);
    // A verified host is on a project: a new claim is refused, as before.
    r = api(a).post("/projects/" + project + "/domains", {{"host", host}});
    EXPECT_EQ(r.status, 409) << project << ": " << r.body;
    EXPECT_EQ(errorText(r), clash);
  }
  std::string table = tableText(*server, "projects.domains");
  for (std::string project : {"one-dmdupa", "two-dmdupa"})
    EXPECT_EQ(table.find(projectId(*server, project)), std::string::npos) << project;
  EXPECT_TRUE(eventually([&] { return probe(b, host) == kProjectTraffic; })) << probe(b, host);

  // Once removed it is free for anyone.
  ASSERT_EQ(api(b).del("/projects/theirs-dmdupb/domains/" + host).status, 204);
  r = api(a).post("/projects/one-dmdupa/domains", {{"host", host}});
  EXPECT_EQ(r.status, 201) << r.body;
  removeTree(root);
}

TEST_F(ApiDomains, AnUnverifiedClaimExpiresAfterTheConfiguredDays) {
  auto a = makeAccount(*server, "dmexpa");
  auto b = makeAccount(*server, "dmexpb");
  mustCreate(api(a), "site");
  mustCreate(api(b), "site");
  const std::string base = "/projects/site-dmexpa/domains";
  const std::string host = "old.expiry.test";
  auto claimed = api(a).post(base, {{"host", host}});
  ASSERT_EQ(claimed.status, 201) << claimed.body;
  ASSERT_EQ(api(a).post(base, {{"host", "young.expiry.test"}}).status, 201);
  // Made 7 days and a minute old (projects.domain_claim_days is 7 by default); the other claim
  // 6 days old.
  {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    db.exec("UPDATE projects.domains SET created_at = created_at - $2 WHERE host = $1",
            {host, std::to_string(7 * 86400 + 60)});
    db.exec("UPDATE projects.domains SET created_at = created_at - $2 WHERE host = $1",
            {std::string("young.expiry.test"), std::to_string(6 * 86400)});
  }
  // Expired, it is ignored by every route, before the job has removed it.
  auto listed = api(a).get(base).json()["domains"];
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_EQ(listed[0]["host"], "young.expiry.test");
  auto r = api(a).raw("POST", base + "/" + host + "/verify", "");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no domain called " + host);

  // It blocks nobody: another project claims the host, and the old claim is dropped.
  r = api(b).post("/projects/site-dmexpb/domains", {{"host", host}});
  EXPECT_EQ(r.status, 201) << r.body;
  // Its own project may claim it again, with a new token.
  r = api(a).post(base, {{"host", host}});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_NE(tokenOf(r.json()), tokenOf(claimed.json()));
  EXPECT_EQ(tableText(*server, "projects.domains").find(tokenOf(claimed.json())),
            std::string::npos);

  // An expired claim deleted answers as a missing one, and is gone.
  {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    db.exec("UPDATE projects.domains SET created_at = created_at - $2 WHERE host = $1",
            {host, std::to_string(8 * 86400)});
  }
  r = api(a).del(base + "/" + host);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no domain called " + host);
  EXPECT_TRUE(api(b).get("/projects/site-dmexpb/domains").json()["domains"].empty());
}

TEST_F(ApiDomains, HostsThatAreNotDomainsOrAreThePlatformsAreRefused) {
  auto a = makeAccount(*server, "dmbad");
  mustCreate(api(a), "site");
  const std::string path = "/projects/site-dmbad/domains";
  std::string long_label(64, 'a');
  std::string too_long;
  for (int i = 0; i < 5; ++i) too_long += std::string(60, 'b') + ".";
  too_long += "com";
  for (std::string host :
       {std::string("shop"), std::string("-shop.example.com"), std::string("shop-.example.com"),
        std::string("shop..example.com"), std::string("sh op.example.com"),
        std::string("shop_x.example.com"), std::string("1.2.3.4"),
        std::string("shop.example.com:8080"), std::string("*.example.com"),
        long_label + ".example.com", too_long, std::string("shop.123"),
        std::string("http://shop.example.com"), std::string("shop.example.com/path")}) {
    auto r = api(a).post(path, {{"host", host}});
    EXPECT_EQ(r.status, 400) << host << ": " << r.body;
    EXPECT_EQ(errorText(r), notADomain(host)) << host;
  }
  for (std::string host : {"shop.localhost", "a.b.localhost", "site-dmbad.localhost"}) {
    auto r = api(a).post(path, {{"host", host}});
    EXPECT_EQ(r.status, 400) << host << ": " << r.body;
    EXPECT_EQ(errorText(r), underAppsDomain(host)) << host;
  }
  auto r = api(a).post(path, {{"host", 42}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.body, "field host must be a string");
  EXPECT_TRUE(api(a).get(path).json()["domains"].empty());
  // A name that merely ends in the same letters is not under it.
  EXPECT_EQ(api(a).post(path, {{"host", "shop.notlocalhost"}}).status, 201);
}

TEST_F(ApiDomains, VerificationReadsTheTxtRecordAndRoutesTheDomainToTheProject) {
  auto a = makeAccount(*server, "dmverify");
  mustCreate(api(a), "site");
  const std::string base = "/projects/site-dmverify/domains";
  std::map<std::string, json> added;
  for (std::string host : {"none.verify.test", "wrong.verify.test", "good.verify.test"}) {
    auto r = api(a).post(base, {{"host", host}});
    ASSERT_EQ(r.status, 201) << host << ": " << r.body;
    added[host] = r.json();
    ASSERT_FALSE(tokenOf(added[host]).empty()) << r.body;
  }
  std::string none_token = tokenOf(added["none.verify.test"]);
  std::string wrong_token = tokenOf(added["wrong.verify.test"]);
  std::string good_token = tokenOf(added["good.verify.test"]);

  // Unverified, the domain is API traffic.
  EXPECT_EQ(probe(a, "good.verify.test"), kApiTraffic);

  // No DNS server answers yet.
  auto r = api(a).raw("POST", base + "/good.verify.test/verify", "");
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(errorText(r).rfind("could not ask DNS: ", 0), 0u) << r.body;

  std::string root = makeTempDir("berth-dnsmasq");
  auto dns = startDnsmasq(dns_port, "verify.test",
                          {{"_berth.wrong.verify.test", "berth-verify=not-the-token"},
                           {"_berth.good.verify.test", "berth-verify=" + good_token}},
                          root + "/dnsmasq.log");

  r = api(a).raw("POST", base + "/none.verify.test/verify", "");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), "no TXT record found at _berth.none.verify.test; publish berth-verify=" +
                              none_token + " there");

  r = api(a).raw("POST", base + "/wrong.verify.test/verify", "");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r),
            "the TXT record at _berth.wrong.verify.test says \"berth-verify=not-the-token\", "
            "expected \"berth-verify=" +
                wrong_token + "\"");

  int64_t before = nowSeconds();
  r = api(a).raw("POST", base + "/good.verify.test/verify", "");
  ASSERT_EQ(r.status, 200) << r.body << "\n" << readFile(root + "/dnsmasq.log");
  auto verified = r.json();
  EXPECT_EQ(verified["host"], "good.verify.test");
  EXPECT_EQ(verified["verified"], true);
  ASSERT_TRUE(verified["verified_at"].is_number_integer()) << r.body;
  EXPECT_GE(verified["verified_at"].get<int64_t>(), before - 120);
  EXPECT_EQ(verified["records"], added["good.verify.test"]["records"]);
  EXPECT_EQ(verified["created_at"], added["good.verify.test"]["created_at"]);

  auto list = api(a).get(base).json()["domains"];
  ASSERT_EQ(list.size(), 3u) << list.dump();
  for (const auto& d : list) EXPECT_EQ(d["verified"], d["host"] == "good.verify.test") << d.dump();

  // Verified, it is the project's traffic; the unverified ones are not.
  EXPECT_TRUE(eventually([&] { return probe(a, "good.verify.test") == kProjectTraffic; }))
      << probe(a, "good.verify.test");
  EXPECT_EQ(probe(a, "wrong.verify.test"), kApiTraffic);
  EXPECT_EQ(probe(a, "none.verify.test"), kApiTraffic);
  EXPECT_EQ(probe(a, "localhost"), kApiTraffic);

  // Deleted, it is API traffic again.
  r = api(a).del(base + "/good.verify.test");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_TRUE(eventually([&] { return probe(a, "good.verify.test") == kApiTraffic; }))
      << probe(a, "good.verify.test");
  r = api(a).del(base + "/good.verify.test");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(errorText(r), "no domain called good.verify.test");
  removeTree(root);
}

TEST_F(ApiDomains, ListAndDelete) {
  auto a = makeAccount(*server, "dmlist");
  mustCreate(api(a), "web");
  const std::string base = "/projects/web-dmlist/domains";
  auto empty = api(a).get(base);
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.json(), (json{{"domains", json::array()}}));
  for (std::string host : {"b.list.example", "a.list.example"})
    ASSERT_EQ(api(a).post(base, {{"host", host}}).status, 201) << host;
  std::set<std::string> hosts;
  // The JSON must outlive the loop: a range over a member of a temporary dangles.
  auto listed = api(a).get(base).json();
  for (const auto& d : listed["domains"]) hosts.insert(d.value("host", ""));
  EXPECT_EQ(hosts, (std::set<std::string>{"a.list.example", "b.list.example"}));

  auto r = api(a).del(base + "/a.list.example");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.body, "");
  auto left = api(a).get(base).json()["domains"];
  ASSERT_EQ(left.size(), 1u) << left.dump();
  EXPECT_EQ(left[0]["host"], "b.list.example");
  for (std::string host : {"a.list.example", "never.list.example"}) {
    r = api(a).del(base + "/" + host);
    EXPECT_EQ(r.status, 404) << host << ": " << r.body;
    EXPECT_EQ(errorText(r), "no domain called " + host);
  }
  r = api(a).get("/projects/none-dmlist/domains");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called none-dmlist");
}

// A domain deleted while another request lists them is simply left out of that list: the list
// is one read, so it never names a domain and then fails to find it (404 for the whole list).
TEST_F(ApiDomains, AListReadDuringDeletesNeverFails) {
  auto a = makeAccount(*server, "dmrace");
  mustCreate(api(a), "web");
  const std::string base = "/projects/web-dmrace/domains";
  for (int i = 0; i < 20; ++i)
    ASSERT_EQ(api(a).post(base, {{"host", "h" + std::to_string(i) + ".race.example"}}).status, 201);
  std::atomic<bool> done{false};
  std::thread churn([&] {
    // Delete and add back every host, over and over, while the lists below run.
    for (int round = 0; !done.load(); ++round) {
      const std::string host = "h" + std::to_string(round % 20) + ".race.example";
      api(a).del(base + "/" + host);
      api(a).post(base, {{"host", host}});
    }
  });
  std::map<int, int> statuses;
  for (int i = 0; i < 300; ++i) ++statuses[api(a).get(base).status];
  done = true;
  churn.join();
  EXPECT_EQ(statuses, (std::map<int, int>{{200, 300}}));
}
