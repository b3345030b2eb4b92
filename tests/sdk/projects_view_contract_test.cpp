// SPDX-License-Identifier: MIT
// projects.view.v1 (<berth/services/projects_view.hpp>) and the answering hooks it rides on
// (Registrar::hookAnswer, Services::fireForAnswers), through the SDK's fake host: the writers'
// wire names; answers merged in order over the defaults, a later one winning a field; ids not
// asked and fields not named ignored; an answer of the wrong shape left out whole, with why,
// while the others count; a refusal thrown to the firing plugin.
#include <gtest/gtest.h>
#include <berth/services/projects_view.hpp>
#include <berth/testing/fake_host.hpp>

#include "contract_checks.hpp"

#include <string>
#include <vector>

namespace {

using berth::Error;
using nlohmann::json;
namespace view = berth::projects_view;
using berth::testing::refusal;

const view::LiveRelease kLive{"rel1", 1700000000, 3, 1234};

TEST(ProjectsViewContract, TheWritersUseTheProjectsFieldNames) {
  EXPECT_EQ(view::filesJson(2, 12), json::parse(R"({"files_count": 2, "files_bytes": 12})"));
  EXPECT_EQ(view::stateJson(true, kLive),
            json::parse(R"({"state": "running", "live": {"id": "rel1", "created_at": 1700000000,
                            "files": 3, "bytes": 1234}})"));
  EXPECT_EQ(view::stateJson(false, std::nullopt),
            json::parse(R"({"state": "stopped", "live": null})"));
  EXPECT_EQ(view::parseIds(view::idsJson({"a", "b"})), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(refusal([] { view::parseIds(json::parse(R"({"ids": [1]})")); }),
            "400 ids is required and must be an array of strings");
  EXPECT_EQ(view::stateText(view::Fields{}), "stopped");
}

TEST(ProjectsViewContract, AnswersMergeInOrderOverTheDefaults) {
  view::ProjectFields fields;
  const std::vector<std::string> ids{"p1", "p2", "p3"};
  view::mergeAnswer(fields, ids,
                    {{"p1", view::filesJson(2, 12)},
                     {"p2", view::filesJson(0, 0)},
                     {"nope", view::filesJson(9, 9)}});
  view::mergeAnswer(fields, ids,
                    {{"p1", view::stateJson(true, kLive)}, {"p2", {{"files_count", 5}}}});
  view::mergeAnswer(fields, ids, {{"p1", {{"other", "ignored"}, {"live", nullptr}}}});
  EXPECT_EQ(fields.size(), 2u) << "p3 was not answered for; nope was not asked";
  EXPECT_EQ(fields["p1"], (view::Fields{2, 12, true, std::nullopt}));
  EXPECT_EQ(fields["p2"], (view::Fields{5, 0, false, std::nullopt}));
}

TEST(ProjectsViewContract, ABrokenAnswerChangesNothing) {
  view::ProjectFields fields;
  const std::vector<std::string> ids{"p1", "p2"};
  EXPECT_EQ(refusal([&] {
              view::mergeAnswer(fields, ids,
                                {{"p1", view::filesJson(1, 1)}, {"p2", {{"state", "asleep"}}}});
            }),
            "500 service projects.view.v1 (answer) answered without \"p2.state\" (running or "
            "stopped)");
  EXPECT_TRUE(fields.empty());
  EXPECT_EQ(refusal([&] {
              view::mergeAnswer(fields, ids, {{"p1", {{"files_count", -1}}}});
            }),
            "500 service projects.view.v1 (answer) answered without \"p1.files_count\" (an "
            "integer of 0 or more)");
  EXPECT_EQ(refusal([&] {
              view::mergeAnswer(fields, ids, {{"p1", {{"live", {{"id", 1}}}}}});
            }),
            "500 service projects.view.v1 (answer) answered without \"p1.live.id\" (a string)");
  EXPECT_EQ(refusal([&] { view::mergeAnswer(fields, ids, json::array()); }),
            "500 service projects.view.v1 (answer) answered something that is not a JSON object");
  EXPECT_TRUE(fields.empty());
}

TEST(ProjectsViewContract, CollectedThroughAnsweringHooks) {
  berth::testing::FakeHost host;
  berth::Services services = host.services();
  const std::vector<std::string> ids{"p1", "p2"};

  view::Collected nobody = view::collect(services, ids);
  EXPECT_TRUE(nobody.fields.empty() && nobody.problems.empty()) << "nobody answers: defaults";

  std::vector<json> payloads;
  host.fakeHookAnswer(std::string(view::kEvent), [&](const json& payload) {
    payloads.push_back(payload);
    json answer = json::object();
    for (const auto& id : view::parseIds(payload)) answer[id] = view::filesJson(1, 10);
    return answer;
  });
  host.fakeHookAnswer(std::string(view::kEvent), [](const json&) { return json(); });
  host.fakeHookAnswer(std::string(view::kEvent), [](const json&) {
    return json{{"p2", {{"state", "asleep"}}}};
  });
  host.fakeHookAnswer(std::string(view::kEvent), [](const json&) {
    return json{{"p1", view::stateJson(true, kLive)}};
  });
  view::Collected c = view::collect(services, ids);
  EXPECT_EQ(payloads, std::vector<json>{json::parse(R"({"ids": ["p1", "p2"]})")});
  EXPECT_EQ(c.fields["p1"], (view::Fields{1, 10, true, kLive}));
  EXPECT_EQ(c.fields["p2"], (view::Fields{1, 10, false, std::nullopt}));
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0],
            "service projects.view.v1 (answer) answered without \"p2.state\" (running or "
            "stopped)");

  // fire() still reads no answers; fireForAnswers hands them over in order, null ones left out.
  EXPECT_NO_THROW(services.fire(view::kEvent, view::idsJson({"p1"})));
  EXPECT_EQ(services.fireForAnswers(view::kEvent, view::idsJson({"p1"})).size(), 3u);

  host.fakeHookAnswer(std::string(view::kEvent),
                      [](const json&) -> json { throw Error(503, "the database is away"); });
  EXPECT_EQ(refusal([&] { view::collect(services, ids); }), "503 the database is away");
}

}  // namespace
