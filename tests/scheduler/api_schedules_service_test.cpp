// ctest-label: api (starts a real berthd)
// scheduler.schedules.v1 over the real plugin ABI, called through the serviceprobe fixture
// plugin as an installer's context or another plugin calls it: ensure makes a schedule, leaves
// a matching one, changes one whose spec or path differs in place (same id, paused stays
// paused), and makes one schedule when many ensures race; the schedule is the one the routes
// list; list and delete (idempotent); every refusal with the route's own text (the same
// validator), the project limit, and 404 for an unknown project.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <thread>

#include "api_support.hpp"
#include "support/berthd_suite.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::scheduler_api;
using nlohmann::json;

namespace {

constexpr int kLimit = 4;  // scheduler.max_schedules_per_project of this suite

class SchedulesService : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "scheduler", "serviceprobe"};
    options.extra_yaml =
        "scheduler:\n  max_schedules_per_project: " + std::to_string(kLimit) + "\n";
    startServer(options);
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }

  // A method of scheduler.schedules.v1 with this request.
  static HttpResult call(const std::string& method, const json& request) {
    return callService(*server, "scheduler.schedules.v1", method, request);
  }
  static json mustCall(const std::string& method, const json& request) {
    return mustCallService(*server, "scheduler.schedules.v1", method, request);
  }
  static json ensure(const std::string& project_id, const std::string& name,
                     const std::string& spec, const std::string& path) {
    return mustCall("ensure",
                    {{"project_id", project_id}, {"name", name}, {"spec", spec}, {"path", path}});
  }

  // A fresh account and project: its name and id.
  struct Made {
    Account account;
    std::string name, id;
  };
  static Made made(const std::string& slug) {
    Made m{makeAccount(*server, slug), "", ""};
    m.name = mustCreate(api(m.account), "web")["name"];
    m.id = projectId(*server, m.name);
    return m;
  }
};

bool isHex48(const json& v) {
  return v.is_string() && std::regex_match(v.get<std::string>(), std::regex("[0-9a-f]{48}"));
}

}  // namespace

TEST_F(SchedulesService, EnsureMakesTheScheduleTheRoutesList) {
  Made p = made("svcmake");
  int64_t before = nowSeconds();
  json answer = ensure(p.id, "  wp cron ", " */15 * * * * ", "/wp-cron.php?doing_wp_cron");
  EXPECT_EQ(answer["created"], true);
  EXPECT_EQ(answer["updated"], false);
  json s = answer["schedule"];
  EXPECT_TRUE(isHex48(s["id"])) << s.dump();
  EXPECT_EQ(s["project"], p.name);
  EXPECT_EQ(s["account_id"], accountIdOf(api(p.account), p.name))
      << "without account_id, the project's account made it";
  EXPECT_EQ(s["name"], "wp cron");       // trimmed, as the route stores it
  EXPECT_EQ(s["spec"], "*/15 * * * *");  // trimmed
  EXPECT_EQ(s["path"], "/wp-cron.php?doing_wp_cron");
  EXPECT_EQ(s["enabled"], true);
  EXPECT_GE(s["created_at"].get<int64_t>(), before);
  ASSERT_TRUE(s["next_run_at"].is_number_integer()) << s.dump();
  EXPECT_EQ(s["next_run_at"].get<int64_t>() % 900, 0);
  EXPECT_GT(s["next_run_at"].get<int64_t>(), before);
  for (const char* field : {"last_run_at", "last_status", "last_ms", "last_error"})
    EXPECT_TRUE(s[field].is_null()) << field;

  // The route lists exactly that schedule; list answers what the route answers.
  EXPECT_EQ(listed(api(p.account), p.name, s["id"]), s);
  EXPECT_EQ(mustCall("list", {{"project_id", p.id}}),
            json({{"schedules", schedulesOf(api(p.account), p.name)}}));
}

TEST_F(SchedulesService, EnsureIsIdempotentAndChangesADifferentScheduleInPlace) {
  Made p = made("svcidem");
  json first = ensure(p.id, "tick", "0 3 * * *", "/cron");
  const std::string id = first["schedule"]["id"];

  // The same again, even with other white space: left as it is.
  json again = ensure(p.id, " tick", "0 3 * * *  ", "/cron");
  EXPECT_EQ(again["created"], false);
  EXPECT_EQ(again["updated"], false);
  EXPECT_EQ(again["schedule"], first["schedule"]);
  EXPECT_EQ(schedulesOf(api(p.account), p.name).size(), 1u);

  // Another spec: the same schedule, changed, its next run from the new spec.
  json respec = ensure(p.id, "tick", "30 4 * * *", "/cron");
  EXPECT_EQ(respec["created"], false);
  EXPECT_EQ(respec["updated"], true);
  EXPECT_EQ(respec["schedule"]["id"], id);
  EXPECT_EQ(respec["schedule"]["spec"], "30 4 * * *");
  EXPECT_EQ(respec["schedule"]["created_at"], first["schedule"]["created_at"]);
  EXPECT_EQ(respec["schedule"]["next_run_at"].get<int64_t>() % 86400, 4 * 3600 + 30 * 60);
  EXPECT_EQ(listed(api(p.account), p.name, id), respec["schedule"]);

  // Another path alone: changed, the next run kept.
  json repath = ensure(p.id, "tick", "30 4 * * *", "/cron?v=2");
  EXPECT_EQ(repath["updated"], true);
  EXPECT_EQ(repath["schedule"]["path"], "/cron?v=2");
  EXPECT_EQ(repath["schedule"]["next_run_at"], respec["schedule"]["next_run_at"]);
  EXPECT_EQ(schedulesOf(api(p.account), p.name).size(), 1u);

  // A paused schedule stays paused when it is changed.
  ASSERT_EQ(
      api(p.account).patch("/projects/" + p.name + "/schedules/" + id, {{"enabled", false}}).status,
      204);
  json paused = ensure(p.id, "tick", "0 5 * * *", "/cron?v=2");
  EXPECT_EQ(paused["updated"], true);
  EXPECT_EQ(paused["schedule"]["enabled"], false);
  EXPECT_TRUE(paused["schedule"]["next_run_at"].is_null()) << paused.dump();
  EXPECT_EQ(listed(api(p.account), p.name, id), paused["schedule"]);
  json still = ensure(p.id, "tick", "0 5 * * *", "/cron?v=2");
  EXPECT_EQ(still["updated"], false);
  EXPECT_EQ(still["schedule"], paused["schedule"]);
}

TEST_F(SchedulesService, EnsuresAtOnceMakeOneSchedule) {
  Made p = made("svcrace");
  constexpr int kCallers = 8;
  std::vector<json> answers(kCallers);
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i)
    callers.emplace_back([&, i] { answers[i] = ensure(p.id, "once", "* * * * *", "/"); });
  for (auto& t : callers) t.join();
  int created = 0;
  std::set<std::string> ids;
  for (const json& a : answers) {
    created += a["created"].get<bool>() ? 1 : 0;
    ids.insert(a["schedule"]["id"].get<std::string>());
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(schedulesOf(api(p.account), p.name).size(), 1u);
}

TEST_F(SchedulesService, TheMakerIsTheAccountGiven) {
  Made p = made("svcmaker");
  json s = mustCall("ensure", {{"project_id", p.id},
                               {"account_id", "someone-else"},
                               {"name", "x"},
                               {"spec", "* * * * *"},
                               {"path", "/"}})["schedule"];
  EXPECT_EQ(s["account_id"], "someone-else");
}

TEST_F(SchedulesService, DeleteRemovesByNameAndAMissingOneIsNotAnError) {
  Made p = made("svcdel");
  std::string keep = ensure(p.id, "keep", "* * * * *", "/")["schedule"]["id"];
  ensure(p.id, "drop", "* * * * *", "/");
  // The routes may make a second of the same name: delete takes every one.
  mustSchedule(api(p.account), p.name, "drop", "0 * * * *", "/other");
  EXPECT_EQ(mustCall("delete", {{"project_id", p.id}, {"name", " drop "}}),
            json({{"deleted", true}}));
  json left = schedulesOf(api(p.account), p.name);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["id"], keep);
  EXPECT_EQ(mustCall("delete", {{"project_id", p.id}, {"name", "drop"}}),
            json({{"deleted", false}}));
  EXPECT_EQ(mustCall("delete", {{"project_id", p.id}, {"name", "never there"}}),
            json({{"deleted", false}}));
  EXPECT_EQ(schedulesOf(api(p.account), p.name).size(), 1u);
}

TEST_F(SchedulesService, BadFieldsAreRefusedWithTheRoutesTextsAndStoreNothing) {
  Made p = made("svcbad");
  struct Fields {
    std::string name, spec, path;
  };
  const std::vector<Fields> bad = {
      {"", "* * * * *", "/"},
      {"   ", "* * * * *", "/"},
      {std::string(201, 'n'), "* * * * *", "/"},
      {"x", "", "/"},
      {"x", "* * * *", "/"},
      {"x", "@hourly", "/"},
      {"x", "61 * * * *", "/"},
      {"x", "0 0 * * MON", "/"},
      {"x", "0 0 31 2 *", "/"},
      {"x", "*/0 * * * *", "/"},
      {"x", "* * * * *", "cron"},
      {"x", "* * * * *", "/a b"},
      {"x", "* * * * *", "/a\r\nX-Evil: 1"},
      {"x", "* * * * *", "/#top"},
      {"x", "* * * * *", "/" + std::string(2048, 'p')},
  };
  for (const Fields& f : bad) {
    auto route = api(p.account).post("/projects/" + p.name + "/schedules",
                                     scheduleBody(f.name, f.spec, f.path));
    auto service = call(
        "ensure", {{"project_id", p.id}, {"name", f.name}, {"spec", f.spec}, {"path", f.path}});
    ASSERT_EQ(route.status, 400) << route.body;
    EXPECT_EQ(service.status, 400) << service.body;
    EXPECT_EQ(errorText(service), errorText(route)) << f.name << " | " << f.spec << " | " << f.path;
  }
  // A few spelled out, so a change of the shared text is seen here too.
  auto r =
      call("ensure", {{"project_id", p.id}, {"name", ""}, {"spec", "* * * * *"}, {"path", "/"}});
  EXPECT_EQ(errorText(r), "a schedule needs a name");
  r = call("ensure", {{"project_id", p.id}, {"name", "x"}, {"spec", "* * * * *"}, {"path", "x"}});
  EXPECT_EQ(errorText(r), "the path must start with /");
  r = call("ensure", {{"project_id", p.id}, {"name", "x"}, {"spec", "61 * * * *"}, {"path", "/"}});
  EXPECT_EQ(errorText(r), "minute field: 61 is out of range 0-59");
  EXPECT_EQ(schedulesOf(api(p.account), p.name), json::array());
}

TEST_F(SchedulesService, MissingOrWrongTypedFieldsAre400NamingTheField) {
  Made p = made("svctypes");
  const json full = {{"project_id", p.id}, {"name", "x"}, {"spec", "* * * * *"}, {"path", "/"}};
  for (const char* field : {"project_id", "name", "spec", "path"}) {
    json without = full;
    without.erase(field);
    auto r = call("ensure", without);
    EXPECT_EQ(r.status, 400) << field << " " << r.body;
    EXPECT_EQ(errorText(r), std::string(field) + " is required and must be a string");
    json wrong = full;
    wrong[field] = 5;
    r = call("ensure", wrong);
    EXPECT_EQ(r.status, 400) << field << " " << r.body;
    EXPECT_EQ(errorText(r), std::string(field) + " is required and must be a string");
  }
  json bad_maker = full;
  bad_maker["account_id"] = json::array();
  auto r = call("ensure", bad_maker);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "account_id must be a string");
  r = call("list", json::object());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "project_id is required and must be a string");
  r = call("delete", {{"project_id", p.id}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r), "name is required and must be a string");
  r = call("pause", {{"project_id", p.id}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "service scheduler.schedules.v1 has no method pause");
  EXPECT_EQ(schedulesOf(api(p.account), p.name), json::array());
}

TEST_F(SchedulesService, AnUnknownProjectIs404) {
  const std::string missing = "nosuchprojectid000000000";
  auto r = call("ensure",
                {{"project_id", missing}, {"name", "x"}, {"spec", "* * * * *"}, {"path", "/"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + missing);
  r = call("list", {{"project_id", missing}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + missing);
  r = call("delete", {{"project_id", missing}, {"name", "x"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + missing);

  // A deleted project's id is unknown too.
  Made p = made("svcgone");
  ASSERT_EQ(api(p.account).del("/projects/" + p.name).status, 204);
  r = call("list", {{"project_id", p.id}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), "no project called " + p.id);
}

TEST_F(SchedulesService, TheProjectLimitHoldsForEnsureAsForTheRoute) {
  Made p = made("svclimit");
  for (int i = 0; i < kLimit - 1; ++i) ensure(p.id, "s" + std::to_string(i), "* * * * *", "/");
  mustSchedule(api(p.account), p.name, "by route", "* * * * *", "/");  // the routes' count too
  const std::string text = "this project has " + std::to_string(kLimit) +
                           " schedules, the limit (scheduler.max_schedules_per_project); "
                           "delete one first";
  auto r = call("ensure",
                {{"project_id", p.id}, {"name", "one more"}, {"spec", "* * * * *"}, {"path", "/"}});
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), text);
  auto route = api(p.account).post("/projects/" + p.name + "/schedules",
                                   scheduleBody("one more", "* * * * *", "/"));
  EXPECT_EQ(route.status, 403);
  EXPECT_EQ(errorText(route), text);
  EXPECT_EQ(schedulesOf(api(p.account), p.name).size(), static_cast<size_t>(kLimit));

  // At the limit, ensuring one that is there (the same, or changed) is not refused.
  EXPECT_EQ(ensure(p.id, "s0", "* * * * *", "/")["created"], false);
  EXPECT_EQ(ensure(p.id, "s0", "0 * * * *", "/")["updated"], true);

  // Deleting one makes room.
  EXPECT_EQ(mustCall("delete", {{"project_id", p.id}, {"name", "s1"}})["deleted"], true);
  EXPECT_EQ(ensure(p.id, "one more", "* * * * *", "/")["created"], true);
}
