#include "http/http_types.hpp"

#include <berth/util/percent_decode.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace berth::core;

TEST(PercentDecode, DecodesAndRefusesBadEscapes) {
  EXPECT_EQ(berth::percentDecode("a%20b%2Fc", false), "a b/c");
  EXPECT_EQ(berth::percentDecode("a+b", false), "a+b");
  EXPECT_EQ(berth::percentDecode("a+b", true), "a b");
  EXPECT_EQ(berth::percentDecode("%e2%82%ac", false), "\xe2\x82\xac");
  EXPECT_FALSE(berth::percentDecode("%", false));
  EXPECT_FALSE(berth::percentDecode("%2", false));
  EXPECT_FALSE(berth::percentDecode("%zz", false));
}

TEST(ParseQuery, KeepsOrderAndRepeats) {
  auto q = berth::requestQueryDecoded("age=gte.18&age=lte.30&name=eq.a%20b&flag&=x");
  ASSERT_EQ(q.size(), 5u);
  EXPECT_EQ(q[0], (std::pair<std::string, std::string>{"age", "gte.18"}));
  EXPECT_EQ(q[1].second, "lte.30");
  EXPECT_EQ(q[2].second, "eq.a b");
  EXPECT_EQ(q[3], (std::pair<std::string, std::string>{"flag", ""}));
}

TEST(HttpResponse, ErrorMergesExtraFields) {
  auto r = HttpResponse::error(409, "taken", R"({"suggestion":"blog-2"})");
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["error"], "taken");
  EXPECT_EQ(j["suggestion"], "blog-2");
  EXPECT_EQ(r.status, 409);
}

TEST(HttpResponse, FileAnswersAreConfinedToDataDir) {
  auto r = HttpResponse::file("/srv/data/blobs/ab/cd", "/srv/data", "image/png");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].second, "/_berth_file/blobs/ab/cd");
  auto spaced = HttpResponse::file("/srv/data/a b/%x?.png", "/srv/data", "");
  EXPECT_EQ(spaced.headers[0].second, "/_berth_file/a%20b/%25x%3F.png");
  EXPECT_EQ(HttpResponse::file("/etc/passwd", "/srv/data", "text/plain").status, 500);
  EXPECT_EQ(HttpResponse::file("/srv/data/../etc/passwd", "/srv/data", "text/plain").status, 500);
  EXPECT_EQ(HttpResponse::file("/srv/database/x", "/srv/data", "text/plain").status, 500);
}

TEST(HttpResponse, ProxyAnswersNameThePort) {
  auto r = HttpResponse::proxy(4321, "/a/b?x=1");
  EXPECT_EQ(r.headers[0].second, "/_berth_proxy/4321/a/b?x=1");
  auto cached = HttpResponse::proxyCached(4321, 60, "/a/b?x=1");
  EXPECT_EQ(cached.headers[0].first, "X-Accel-Redirect");
  EXPECT_EQ(cached.headers[0].second, "/_berth_cache/60/4321/a/b?x=1");
  EXPECT_EQ(HttpResponse::proxyCached(1, 0, "").headers[0].second, "/_berth_cache/0/1/");
}
