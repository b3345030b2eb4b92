// SPDX-License-Identifier: MIT
// <berth/util/percent_decode.hpp>, the one percent decoder: the core's rule (a malformed escape
// refuses the text, which the core then takes as sent), its named variants ('+' as a space, a
// NUL refused, a malformed escape kept as written), and the fake host decoding a request the
// way the core does.
#include <gtest/gtest.h>
#include <berth/testing/fake_host.hpp>
#include <berth/util/percent_decode.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

using berth::percentDecode;
using berth::PercentDecoding;
using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(PercentDecode, DecodesEscapesOfEitherCaseAndLeavesTheRest) {
  EXPECT_EQ(percentDecode("a%20b%2fc%2F"), "a b/c/");
  EXPECT_EQ(percentDecode("%e2%82%AC"), "\xe2\x82\xac");
  EXPECT_EQ(percentDecode("plain-text_~."), "plain-text_~.");
  EXPECT_EQ(percentDecode(""), "");
  EXPECT_EQ(percentDecode("%00", PercentDecoding{}), std::string(1, '\0'));
}

TEST(PercentDecode, AMalformedEscapeRefusesTheWholeText) {
  for (const char* bad : {"%", "%2", "a%zz", "%g0", "%0g", "ok%4", "%%41"})
    EXPECT_EQ(percentDecode(bad), std::nullopt) << bad;
}

TEST(PercentDecode, PlusIsASpaceOnlyWhenAsked) {
  EXPECT_EQ(percentDecode("a+b%2B"), "a+b+");
  EXPECT_EQ(percentDecode("a+b%2B", true), "a b+");
  EXPECT_EQ(percentDecode("a+b%2B", PercentDecoding{.plus_is_space = true}), "a b+");
  EXPECT_EQ(percentDecode("a+b%zz", true), std::nullopt);
}

TEST(PercentDecode, RefuseNulRefusesANulEscapedOrSentAsItself) {
  const PercentDecoding path{.refuse_nul = true};
  EXPECT_EQ(percentDecode("/a%00b", path), std::nullopt);
  EXPECT_EQ(percentDecode(std::string_view("/a\0b", 4), path), std::nullopt);
  EXPECT_EQ(percentDecode(std::string_view("/a\0b", 4)), std::string("/a\0b", 4))
      << "refused only when asked";
  EXPECT_EQ(percentDecode("/a%2500", path), "/a%00") << "an escaped percent sign is no NUL";
  EXPECT_EQ(percentDecode("/a%20b", path), "/a b");
  EXPECT_EQ(percentDecode("/a%zz", path), std::nullopt);
}

TEST(PercentDecode, KeepMalformedKeepsABadEscapeAsWrittenAndDecodesTheRest) {
  const PercentDecoding lenient{.keep_malformed = true};
  EXPECT_EQ(percentDecode("%zz%41", lenient), "%zzA");
  EXPECT_EQ(percentDecode("p%40ss%2", lenient), "p@ss%2");
  EXPECT_EQ(percentDecode("%", lenient), "%");
  EXPECT_EQ(percentDecode("a+b", lenient), "a+b");
}

TEST(RequestPathDecoded, IsDecodedOrExactlyAsSent) {
  EXPECT_EQ(berth::requestPathDecoded("/files/a%20b.txt"), "/files/a b.txt");
  EXPECT_EQ(berth::requestPathDecoded("/a+b"), "/a+b");
  EXPECT_EQ(berth::requestPathDecoded("/a%zz%41"), "/a%zz%41") << "not half decoded";
}

TEST(RequestQueryDecoded, DecodesEachNameAndValueOrKeepsItAsSent) {
  EXPECT_EQ(berth::requestQueryDecoded("a=1&b=x%20y+z&a=2"),
            (Pairs{{"a", "1"}, {"b", "x y z"}, {"a", "2"}}));
  EXPECT_EQ(berth::requestQueryDecoded("&&flag&=x&k=v=w&"),
            (Pairs{{"flag", ""}, {"", "x"}, {"k", "v=w"}}));
  EXPECT_EQ(berth::requestQueryDecoded("q=%zz+a&n%zz=b+c"),
            (Pairs{{"q", "%zz+a"}, {"n%zz", "b c"}}))
      << "a malformed name or value is kept as sent, its '+' too; the other is decoded";
  EXPECT_TRUE(berth::requestQueryDecoded("").empty());
}

// The fake host hands a plugin the path and query the core would.
class EchoPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.get("/echo/*rest",
          [](berth::Request req, berth::Responder resp) {
            nlohmann::json pairs = nlohmann::json::array();
            for (const auto& [name, value] : req.queryParams()) pairs.push_back({name, value});
            resp.json(200, {{"path", req.path()}, {"raw", req.rawPath()}, {"query", pairs}});
          },
          {.publicRoute = true});
  }
};

TEST(FakeHostDecoding, IsTheCores) {
  berth::testing::FakeHost host;
  host.load<EchoPlugin>();
  host.start();
  nlohmann::json answer = host.call("GET", "/echo/a%20b?x=1+2&y=%41").json();
  EXPECT_EQ(answer["path"], "/echo/a b");
  EXPECT_EQ(answer["raw"], "/echo/a%20b");
  EXPECT_EQ(answer["query"], nlohmann::json::parse(R"([["x","1 2"],["y","A"]])"));

  answer = host.call("GET", "/echo/a%zz%41?q=%zz+a&r=b+c").json();
  EXPECT_EQ(answer["path"], "/echo/a%zz%41") << "as sent, as the core does, not half decoded";
  EXPECT_EQ(answer["query"], nlohmann::json::parse(R"([["q","%zz+a"],["r","b c"]])"));
}

}  // namespace
