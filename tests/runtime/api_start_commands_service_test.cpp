// ctest-label: api (starts a real berthd)
// runtime.start_commands.v1 over the plugin ABI (the serviceprobe fixture calls it as another
// plugin would): one answer per command, in order, with the runtime's refusal texts and
// runtime names; the request's refusals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/berthd_suite.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using nlohmann::json;

namespace {

class ApiStartCommands : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "serviceprobe"};
    startServer(options);
  }
  static HttpResult check(const json& request) {
    return callService(*server, "runtime.start_commands.v1", "check", request);
  }
};

TEST_F(ApiStartCommands, AnswersEveryCommandInOrder) {
  HttpResult r = check({{"commands",
                         {"node server.js", "", "./server", "npm start && x", "PORT=1 node a.js",
                          "node a.js\nrm x", "python3.12 app.py"}}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json expected = json::parse(R"({"checked": [
    {"problem": null, "runtime": "Node"},
    {"problem": null, "runtime": null},
    {"problem": null, "runtime": null},
    {"problem": "the start command is run directly, not through a shell, so it cannot contain &",
     "runtime": "Node"},
    {"problem": "the start command is run directly, so it cannot begin with an assignment like NAME=value; set a secret instead",
     "runtime": null},
    {"problem": "the start command must be one line", "runtime": "Node"},
    {"problem": null, "runtime": "Python"}]})");
  EXPECT_EQ(r.json(), expected);

  r = check({{"commands", json::array()}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json::parse(R"({"checked": []})"));
}

TEST_F(ApiStartCommands, RefusesABadRequest) {
  for (const json& request :
       {json::object(), json{{"commands", "node a.js"}}, json{{"commands", {"a", 1}}}}) {
    HttpResult r = check(request);
    EXPECT_EQ(r.status, 400) << request.dump();
    EXPECT_EQ(r.json().value("error", ""), "commands is required and must be an array of strings")
        << request.dump();
  }
  HttpResult r = check({{"commands", std::vector<std::string>(10001, "node a.js")}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json().value("error", ""), "commands may hold at most 10000 commands");
}

}  // namespace
