// SPDX-License-Identifier: MIT
// projects.cmd_change.v1 (<berth/services/projects_cmd_change.hpp>) through the SDK's fake
// host: the payload's wire names and refusals; the first refusal in load order wins; null, {}
// and {refusal: null} accept; nobody listening accepts; an unreadable answer and a contributor
// that throws stop the change. And projects.view.v1's `runtime` and `cmds`, which go with it.
#include <gtest/gtest.h>
#include <berth/services/projects_cmd_change.hpp>
#include <berth/services/projects_view.hpp>
#include <berth/testing/fake_host.hpp>

#include "contract_checks.hpp"

#include <string>
#include <vector>

namespace {

using berth::Error;
using nlohmann::json;
namespace change = berth::projects_cmd_change;
namespace view = berth::projects_view;
using berth::testing::refusal;

TEST(ProjectsCmdChangeContract, ThePayloadAndTheAnswer) {
  EXPECT_EQ(change::toJson({"p1", "npm start"}),
            json::parse(R"({"project_id": "p1", "cmd": "npm start"})"));
  EXPECT_EQ(change::parseChange(change::toJson({"p1", ""})), (change::Change{"p1", ""}));
  EXPECT_EQ(refusal([] { change::parseChange(json::parse(R"({"cmd": "x"})")); }),
            "400 project_id is required and must be a string");
  EXPECT_EQ(refusal([] { change::parseChange(json::parse(R"({"project_id": "p", "cmd": 1})")); }),
            "400 cmd is required and must be a string");
  EXPECT_EQ(change::refusalJson("no"), json::parse(R"({"refusal": "no"})"));
  EXPECT_EQ(change::parseAnswer(change::refusalJson("no")), "no");
  EXPECT_EQ(change::parseAnswer(json::object()), std::nullopt);
  EXPECT_EQ(change::parseAnswer(json::parse(R"({"refusal": null})")), std::nullopt);
  EXPECT_EQ(refusal([] { change::parseAnswer(json::parse(R"({"refusal": ""})")); }),
            "500 service projects.cmd_change.v1 (answer) answered without \"refusal\" (a "
            "non-empty string or null)");
  EXPECT_EQ(refusal([] { change::parseAnswer(json::parse(R"({"refusal": 3})")); }),
            "500 service projects.cmd_change.v1 (answer) answered without \"refusal\" (a string "
            "or null)");
}

TEST(ProjectsCmdChangeContract, TheFirstRefusalInLoadOrderWins) {
  berth::testing::FakeHost host;
  berth::Services services = host.services();
  EXPECT_EQ(change::firstRefusal(services, {"p1", "x | y"}), std::nullopt) << "nobody listens";

  std::vector<json> payloads;
  host.fakeHookAnswer(std::string(change::kEvent), [&](const json& payload) {
    payloads.push_back(payload);
    return json();
  });
  host.fakeHookAnswer(std::string(change::kEvent), [](const json& payload) {
    return change::parseChange(payload).cmd.find('|') != std::string::npos
               ? change::refusalJson("first")
               : json::object();
  });
  host.fakeHookAnswer(std::string(change::kEvent),
                      [](const json&) { return change::refusalJson("second"); });
  EXPECT_EQ(change::firstRefusal(services, {"p1", "x | y"}), "first");
  EXPECT_EQ(change::firstRefusal(services, {"p1", "x"}), "second");
  ASSERT_FALSE(payloads.empty());
  EXPECT_EQ(payloads[0], json::parse(R"({"project_id": "p1", "cmd": "x | y"})"));

  host.fakeHookAnswer(std::string(change::kEvent),
                      [](const json&) -> json { throw Error(503, "the rules are away"); });
  EXPECT_EQ(refusal([&] {
              change::firstRefusal(services, {"p1", "x"});
            }),
            "503 the rules are away");
}

TEST(ProjectsViewCommands, TheRuntimeIsAFieldAndCommandsRideTheEvent) {
  EXPECT_EQ(view::runtimeJson("Node"), json::parse(R"({"runtime": "Node"})"));
  EXPECT_EQ(view::runtimeJson(std::nullopt), json::parse(R"({"runtime": null})"));
  EXPECT_EQ(view::payloadJson({"p1"}, {{"p1", "npm start"}}),
            json::parse(R"({"ids": ["p1"], "cmds": {"p1": "npm start"}})"));
  EXPECT_EQ(view::parseCmds(view::idsJson({"p1"})), view::Commands{});
  EXPECT_EQ(refusal([] { view::parseCmds(json::parse(R"({"cmds": {"p1": 1}})")); }),
            "400 cmds must be an object of strings");

  view::ProjectFields fields;
  const std::vector<std::string> ids{"p1", "p2"};
  view::mergeAnswer(fields, ids,
                    {{"p1", view::runtimeJson("Node")}, {"p2", view::filesJson(1, 2)}});
  EXPECT_EQ(fields["p1"].runtime, "Node");
  EXPECT_EQ(fields["p2"].runtime, std::nullopt) << "the default";
  view::mergeAnswer(fields, ids, {{"p1", view::runtimeJson(std::nullopt)}});
  EXPECT_EQ(fields["p1"].runtime, std::nullopt) << "a later answer wins";
  EXPECT_EQ(refusal([&] {
              view::mergeAnswer(fields, ids, {{"p1", {{"runtime", 7}}}});
            }),
            "500 service projects.view.v1 (answer) answered without \"p1.runtime\" (a string or "
            "null)");

  berth::testing::FakeHost host;
  berth::Services services = host.services();
  std::vector<json> payloads;
  host.fakeHookAnswer(std::string(view::kEvent), [&](const json& payload) {
    payloads.push_back(payload);
    json answer = json::object();
    for (const auto& [id, cmd] : view::parseCmds(payload))
      answer[id] = view::runtimeJson(cmd.empty() ? std::nullopt : std::optional<std::string>(cmd));
    return answer;
  });
  view::Collected c = view::collect(services, ids, {{"p1", "Go"}, {"p2", ""}});
  ASSERT_EQ(payloads.size(), 1u);
  EXPECT_EQ(payloads[0], view::payloadJson(ids, {{"p1", "Go"}, {"p2", ""}}));
  EXPECT_EQ(c.fields["p1"].runtime, "Go");
  EXPECT_EQ(c.fields["p2"].runtime, std::nullopt);
}

}  // namespace
