#include "domain_rules.hpp"

#include <gtest/gtest.h>

using namespace berth::projects;

namespace {
const std::string kApps = "apps.example.net";

std::string notADomain(const std::string& host) {
  return host + " is not a domain name";
}
}  // namespace

TEST(NormaliseHost, TrimsLowerCasesAndDropsOneTrailingDot) {
  EXPECT_EQ(normaliseHost("example.com."), "example.com");
  EXPECT_EQ(normaliseHost("  Shop.Example.COM \t"), "shop.example.com");
  EXPECT_EQ(normaliseHost("example.com.."), "example.com.");
  EXPECT_EQ(normaliseHost(""), "");
}

TEST(HostProblem, AcceptsOrdinaryNames) {
  for (const char* host : {"example.com", "shop.example.com", "xn--bcher-kva.example", "a.co",
                           "my-shop.example.co.uk", "1example.com", "x.y.z.w.example"}) {
    EXPECT_EQ(hostProblem(host, kApps), std::nullopt) << host;
  }
  EXPECT_EQ(hostProblem(normaliseHost("Example.COM."), kApps), std::nullopt);
}

TEST(HostProblem, RefusesWhatIsNotADomainName) {
  for (const char* host : {"localhost", "1.2.3.4", "a..b.com", "-a.com", "a-.com", ".example.com",
                           "example.com.", "example.123", "example.com:8080", "example.com/path",
                           "*.example.com", "a_b.example.com", "exa mple.com",
                           "b\xc3\xbc"
                           "cher.example",
                           "::1", "[::1]", "Example.com"}) {
    EXPECT_EQ(hostProblem(host, kApps), notADomain(host)) << host;
  }
}

TEST(HostProblem, LabelLengthLimit) {
  const std::string ok = std::string(63, 'a') + ".com";
  EXPECT_EQ(hostProblem(ok, kApps), std::nullopt);
  const std::string over = std::string(64, 'a') + ".com";
  EXPECT_EQ(hostProblem(over, kApps), notADomain(over));
}

TEST(HostProblem, TotalLengthLimit) {
  // Four 63-character labels with dots make 255; trimmed to exactly 253 and one past it.
  const std::string label(63, 'a');
  const std::string at_limit = label + "." + label + "." + label + "." + std::string(61, 'b');
  ASSERT_EQ(at_limit.size(), 253u);
  EXPECT_EQ(hostProblem(at_limit, kApps), std::nullopt);
  const std::string over = at_limit + "b";
  EXPECT_EQ(hostProblem(over, kApps), notADomain(over));
}

TEST(HostProblem, EmptyHost) {
  EXPECT_EQ(hostProblem("", kApps), "an empty host is not a domain name");
}

TEST(HostProblem, RefusesTheAppsDomainAndEverythingUnderIt) {
  EXPECT_EQ(hostProblem("shop.localhost", "localhost"),
            "shop.localhost is under localhost, which the platform serves itself");
  EXPECT_EQ(hostProblem("apps.example.net", kApps),
            "apps.example.net is under apps.example.net, which the platform serves itself");
  EXPECT_EQ(hostProblem("a.b.apps.example.net", kApps),
            "a.b.apps.example.net is under apps.example.net, which the platform serves itself");
  // The configured domain is compared normalised.
  EXPECT_EQ(hostProblem("shop.apps.example.net", "Apps.Example.NET."),
            "shop.apps.example.net is under apps.example.net, which the platform serves itself");
}

TEST(HostProblem, NeighboursOfTheAppsDomainAreFine) {
  // Only whole labels count: "myapps.example.net" is not under "apps.example.net".
  EXPECT_EQ(hostProblem("myapps.example.net", kApps), std::nullopt);
  EXPECT_EQ(hostProblem("example.net", kApps), std::nullopt);
  EXPECT_EQ(hostProblem("shop.localhost.com", "localhost"), std::nullopt);
}
