#include "http/host_routing.hpp"

#include <gtest/gtest.h>

using berth::core::HostRouting;

TEST(HostRouting, NormalisesPortCaseAndTrailingDot) {
  EXPECT_EQ(HostRouting::normalise("Foo-Abcd.LocalHost:8080"), "foo-abcd.localhost");
  EXPECT_EQ(HostRouting::normalise("[::1]:8080"), "[::1]");
  EXPECT_EQ(HostRouting::normalise("example.com."), "example.com");
  EXPECT_EQ(HostRouting::normalise("127.0.0.1"), "127.0.0.1");
}

TEST(HostRouting, ProjectHostsAreOneLabelUnderAppsDomain) {
  HostRouting routing("localhost");
  EXPECT_TRUE(routing.isProjectHost("blog-x7k2.localhost"));
  EXPECT_FALSE(routing.isProjectHost("localhost"));
  EXPECT_FALSE(routing.isProjectHost("api.localhost"));
  EXPECT_FALSE(routing.isProjectHost("127.0.0.1"));
  EXPECT_FALSE(routing.isProjectHost("[::1]"));
  EXPECT_FALSE(routing.isProjectHost("a.b.localhost"));
  EXPECT_FALSE(routing.isProjectHost("evil_localhost"));
  EXPECT_FALSE(routing.isProjectHost("xlocalhost"));
}

// Found by the request_path fuzz target: labels no DNS name can have were project traffic.
TEST(HostRouting, ProjectLabelsAreDnsLabels) {
  HostRouting routing("localhost");
  EXPECT_FALSE(routing.isProjectHost("-blog.localhost"));
  EXPECT_FALSE(routing.isProjectHost("blog-.localhost"));
  EXPECT_FALSE(routing.isProjectHost(std::string(64, 'a') + ".localhost"));
  EXPECT_TRUE(routing.isProjectHost(std::string(63, 'a') + ".localhost"));
  EXPECT_TRUE(routing.isProjectHost("b--x.localhost"));
}

TEST(HostRouting, CustomHostsAreProjectTraffic) {
  HostRouting routing("apps.example.net");
  EXPECT_TRUE(routing.isProjectHost("shop-abcd.apps.example.net"));
  EXPECT_FALSE(routing.isProjectHost("www.shop.com"));
  routing.setCustomHosts({"WWW.Shop.com"});
  EXPECT_TRUE(routing.isProjectHost("www.shop.com"));
  routing.setCustomHosts({});
  EXPECT_FALSE(routing.isProjectHost("www.shop.com"));
}
