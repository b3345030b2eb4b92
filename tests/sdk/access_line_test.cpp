// berth/util/access_line.hpp: the one-pass reader of the edge's access log lines (edge.access), the
// core's and the runtime's.
#include <gtest/gtest.h>
#include <berth/util/access_line.hpp>

#include <nlohmann/json.hpp>

namespace {

std::string line(const std::string& path, const std::string& extra = "") {
  return "{\"request_id\":\"1ff34ee3-30842-12-1\",\"host\":\"a.localhost\",\"method\":\"GET\","
         "\"path\":\"" +
         path +
         "\",\"status\":200,\"seconds\":0.002,\"bytes\":1024,\"edge\":\"project\","
         "\"remote\":\"127.0.0.1\",\"at\":1795354560.046" +
         extra + "}";
}

TEST(AccessLine, ReadsEveryFieldOfNginxsForm) {
  berth::AccessLine entry;
  ASSERT_TRUE(berth::parseAccessLine(line("/page.html?a=1"), entry));
  EXPECT_EQ(entry.request_id, "1ff34ee3-30842-12-1");
  EXPECT_EQ(entry.host, "a.localhost");
  EXPECT_EQ(entry.method, "GET");
  EXPECT_EQ(entry.path, "/page.html?a=1");
  EXPECT_EQ(entry.status, 200);
  EXPECT_DOUBLE_EQ(entry.seconds, 0.002);
  EXPECT_EQ(entry.bytes_sent, 1024u);
  EXPECT_EQ(entry.edge, "project");
  EXPECT_EQ(entry.remote, "127.0.0.1");
  EXPECT_EQ(entry.at, 1795354560);
}

TEST(AccessLine, UndoesJsonEscapesAsAJsonParserWould) {
  // What escape=json makes of quotes, backslashes and control bytes, raw UTF-8 passed through,
  // and the other escapes JSON allows (a surrogate pair included).
  const std::string path = R"(/x?q=\"a\\b\"\u0001\u001f\t\n\/é✓\ud83d\ude00)";
  berth::AccessLine entry;
  ASSERT_TRUE(berth::parseAccessLine(line(path), entry));
  auto reference = nlohmann::json::parse(line(path));
  EXPECT_EQ(entry.path, reference["path"].get<std::string>());
  EXPECT_EQ(entry.path, "/x?q=\"a\\b\"\x01\x1f\t\n/é✓😀");
}

TEST(AccessLine, IgnoresUnknownMembersAndSpaces) {
  berth::AccessLine entry;
  ASSERT_TRUE(berth::parseAccessLine(
      " { \"extra\" : null , \"request_id\" : \"r\" , \"n\" : -1.5e3 , \"status\" : 404 } ",
      entry));
  EXPECT_EQ(entry.request_id, "r");
  EXPECT_EQ(entry.status, 404);
  EXPECT_EQ(entry.host, "");
}

TEST(AccessLine, RefusesWhatIsNotAFlatObjectOfTheRightTypes) {
  berth::AccessLine entry;
  entry.request_id = "kept";
  for (const std::string& bad : {
           std::string("hello"), std::string("{broken"), std::string("{\"no\":\"id\"}"),
           std::string("{\"request_id\":\"x\", broken}"), std::string("{\"request_id\":\"\"}"),
           line("/a", "} trailing"),
           line("/a\x01"),                                            // a raw control byte
           line("/a\\q"),                                             // an unknown escape
           line("/a\\u12"),                                           // a short \u
           line("/a\\ud83d"),                                         // half a surrogate pair
           std::string("{\"request_id\":\"x\",\"status\":\"200\"}"),  // a number as text
           std::string("{\"request_id\":\"x\",\"status\":2.5}"),      // not an integer
           std::string("{\"request_id\":\"x\",\"host\":5}"),          // text as a number
           std::string("{\"request_id\":\"x\",\"at\":}"),
           std::string("{\"request_id\":\"x\"") + ",}",
           std::string("{\"request_id\":\"x\",\"status\":200"),  // unterminated
       }) {
    EXPECT_FALSE(berth::parseAccessLine(bad, entry)) << bad;
  }
  EXPECT_EQ(entry.request_id, "kept") << "a refused line leaves the entry as it was";
}

// Found by the access_line fuzz target: an "at" beyond int64_t was converted anyway, which is
// undefined behaviour (UBSan: "outside the range of representable values of type 'long'").
TEST(AccessLine, RefusesTimesThatAreNotFiniteOrTooLarge) {
  berth::AccessLine entry;
  for (const std::string& bad : {
           std::string("{\"request_id\":\"x\",\"at\":1e300}"),
           std::string("{\"request_id\":\"x\",\"at\":-1e19}"),
           std::string("{\"request_id\":\"x\",\"at\":nan}"),
           std::string("{\"request_id\":\"x\",\"at\":inf}"),
           std::string("{\"request_id\":\"x\",\"seconds\":nan}"),
           std::string("{\"request_id\":\"x\",\"seconds\":-inf}"),
       }) {
    EXPECT_FALSE(berth::parseAccessLine(bad, entry)) << bad;
  }
  ASSERT_TRUE(berth::parseAccessLine("{\"request_id\":\"x\",\"at\":4102444800.5}", entry));
  EXPECT_EQ(entry.at, 4102444800);
}

}  // namespace
