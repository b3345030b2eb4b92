// SPDX-License-Identifier: MIT
// The contracts of the services installers call through their context:
// scheduler.schedules.v1, sqlconsole.sql.v1 and projects.directory.v1's view and set_cmd. Each
// writer's JSON is what its parser reads back, with the wire's names; requests missing a field
// (or over a limit) are refused with the contract's texts; answers missing a field are a 500
// naming it; the typed clients ask once, with the request the wire expects.
#include <gtest/gtest.h>
#include <berth/services/projects_directory.hpp>
#include <berth/services/scheduler_schedules.hpp>
#include <berth/services/sqlconsole_sql.hpp>
#include <berth/testing/fake_host.hpp>

#include "contract_checks.hpp"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace {

using berth::Error;
using nlohmann::json;
namespace schedules = berth::scheduler_schedules;
namespace sql = berth::sqlconsole_sql;
namespace directory = berth::projects_directory;

using berth::testing::keysOf;
using berth::testing::refusal;

schedules::Schedule sampleSchedule() {
  schedules::Schedule s;
  s.id = std::string(48, 'a');
  s.project = "shop-ann";
  s.account_id = "acc1";
  s.name = "wp cron";
  s.spec = "*/15 * * * *";
  s.path = "/wp-cron.php";
  s.created_at = 1700000000;
  s.next_run_at = 1700000900;
  s.last_status = 200;
  s.last_error = "the project answered 500";
  return s;
}

// ---- scheduler.schedules.v1 -----------------------------------------------------------------

TEST(SchedulerSchedulesContract, AScheduleRoundTripsWithTheRoutesNames) {
  schedules::Schedule s = sampleSchedule();
  json wire = schedules::toJson(s);
  EXPECT_EQ(keysOf(wire),
            (std::set<std::string>{"id", "project", "account_id", "name", "spec", "path", "enabled",
                                   "created_at", "next_run_at", "last_run_at", "last_status",
                                   "last_ms", "last_error"}));
  EXPECT_TRUE(wire["last_run_at"].is_null());
  schedules::Ensured e{s, true, false};
  EXPECT_EQ(schedules::parseEnsured(schedules::toJson(e)), e);
  EXPECT_EQ(schedules::parseList(schedules::listJson({s, s})),
            (std::vector<schedules::Schedule>{s, s}));
  json broken = schedules::toJson(e);
  broken["schedule"].erase("next_run_at");
  EXPECT_EQ(refusal([&] { schedules::parseEnsured(broken); }),
            "500 service scheduler.schedules.v1 (ensure) answered without "
            "\"schedule.next_run_at\" (an integer or null)");
}

TEST(SchedulerSchedulesContract, RequestsNameTheFieldTheyLack) {
  json full = {{"project_id", "p1"}, {"name", "n"}, {"spec", "* * * * *"}, {"path", "/"}};
  schedules::EnsureRequest r = schedules::parseEnsureRequest(full);
  EXPECT_EQ(r.account_id, "");
  EXPECT_EQ(schedules::toJson(r), full) << "no account_id written when there is none";
  for (const char* field : {"project_id", "name", "spec", "path"}) {
    json without = full;
    without.erase(field);
    EXPECT_EQ(refusal([&] { schedules::parseEnsureRequest(without); }),
              "400 " + std::string(field) + " is required and must be a string");
  }
  EXPECT_EQ(refusal([&] {
              schedules::parseDeleteRequest({{"project_id", "p1"}});
            }),
            "400 name is required and must be a string");
}

TEST(SchedulerSchedulesContract, TheClientAsksOnceAndParses) {
  berth::testing::FakeHost host;
  std::vector<std::string> asked;
  const schedules::Schedule s = sampleSchedule();
  host.fakeService(std::string(schedules::kService),
                   [&](std::string_view method, const json& request) -> json {
                     asked.push_back(std::string(method) + " " + request.dump());
                     if (method == schedules::kEnsure) return toJson(schedules::Ensured{s});
                     if (method == schedules::kList) return schedules::listJson({s});
                     return schedules::deletedJson(true);
                   });
  berth::Services services = host.services();
  berth::SchedulerSchedules client(services);
  EXPECT_EQ(client.ensure({"p1", "wp cron", "*/15 * * * *", "/wp-cron.php", "acc1"}).schedule, s);
  EXPECT_EQ(client.list("p1"), std::vector<schedules::Schedule>{s});
  EXPECT_TRUE(client.remove("p1", "wp cron"));
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[0], R"(ensure {"account_id":"acc1","name":"wp cron","path":"/wp-cron.php",)"
                      R"("project_id":"p1","spec":"*/15 * * * *"})");
  EXPECT_EQ(asked[1], R"(list {"project_id":"p1"})");
  EXPECT_EQ(asked[2], R"(delete {"name":"wp cron","project_id":"p1"})");
}

// ---- sqlconsole.sql.v1 ----------------------------------------------------------------------

TEST(SqlconsoleSqlContract, TheScriptIsAtMostTwoMegabytesAndTakesNoParams) {
  const std::string at_limit(sql::kMaxSqlBytes, ' ');
  EXPECT_EQ(sql::kMaxSqlBytes, size_t{2} * 1024 * 1024);
  EXPECT_EQ(sql::parseRunRequest({{"project_id", "p1"}, {"sql", at_limit}}).sql.size(),
            sql::kMaxSqlBytes);
  EXPECT_EQ(refusal([&] {
              sql::parseRunRequest({{"project_id", "p1"}, {"sql", at_limit + " "}});
            }),
            "413 the sql is too large (limit 2 MB)");
  EXPECT_EQ(refusal([&] {
              sql::parseRunRequest({{"project_id", "p1"}});
            }),
            "400 sql is required and must be a string");
  EXPECT_EQ(refusal([&] {
              sql::parseRunRequest({{"sql", "create table t ()"}});
            }),
            "400 project_id is required and must be a string");
  for (const json& params : {json(nullptr), json::array()})
    EXPECT_EQ(refusal([&] {
                sql::parseRunRequest({{"project_id", "p1"}, {"sql", "x"}, {"params", params}});
              }),
              "no error");
  EXPECT_EQ(refusal([&] {
              sql::parseRunRequest({{"project_id", "p1"}, {"sql", "x"}, {"params", {1}}});
            }),
            "400 params cannot be bound: a script of schema changes takes no parameters");
  EXPECT_EQ(refusal([&] {
              sql::parseRunRequest({{"project_id", "p1"}, {"sql", "x"}, {"params", "1"}});
            }),
            "400 params must be an array");
}

TEST(SqlconsoleSqlContract, TheAnswerIsTheRoutesAndTheClientParsesIt) {
  sql::SchemaChanged changed{{"notes", "tags"}};
  EXPECT_EQ(sql::toJson(changed), json({{"ok", true}, {"tables", {"notes", "tags"}}}));
  EXPECT_EQ(sql::parseSchemaChanged(sql::toJson(changed)), changed);
  EXPECT_EQ(refusal([&] {
              sql::parseSchemaChanged({{"ok", true}});
            }),
            "500 service sqlconsole.sql.v1 (run) answered without \"tables\" (an array)");

  berth::testing::FakeHost host;
  std::string asked;
  host.fakeService(std::string(sql::kService), [&](std::string_view method, const json& request) {
    asked = std::string(method) + " " + request.dump();
    return sql::toJson(changed);
  });
  berth::Services services = host.services();
  EXPECT_EQ(berth::SqlconsoleSql(services).run("p1", "create table notes ()"), changed);
  EXPECT_EQ(asked, R"x(run {"project_id":"p1","sql":"create table notes ()"})x");
}

// ---- projects.directory.v1 view and set_cmd -------------------------------------------------

// A Project as GET /projects/{name} writes it.
json sampleView() {
  return {{"cache_enabled", true},
          {"cache_ttl", 60},
          {"cmd", "npm start"},
          {"created_at", 1700000000},
          {"db_bytes", 7000000},
          {"files_bytes", 0},
          {"files_count", 0},
          {"host", "shop-ann.apps.test"},
          {"ignore_dockerfile", false},
          {"label", "shop"},
          {"live", {{"id", "r1"}, {"created_at", 1700000100}, {"files", 3}, {"bytes", 900}}},
          {"name", "shop-ann"},
          {"owner", {{"email", nullptr}, {"id", "t1"}, {"slug", "team"}}},
          {"region", "eu"},
          {"runtime", "Node"},
          {"state", "running"},
          {"team", "team"},
          {"url", "http://shop-ann.apps.test:8080"}};
}

TEST(ProjectsDirectoryViewContract, TheRoutesProjectIsRead) {
  directory::ProjectView v = directory::parseProjectView(sampleView());
  EXPECT_EQ(v.name, "shop-ann");
  EXPECT_EQ(v.state, "running");
  ASSERT_TRUE(v.live);
  EXPECT_EQ(v.live->bytes, 900u);
  ASSERT_TRUE(v.owner);
  EXPECT_EQ(v.owner->email, std::nullopt);
  EXPECT_EQ(v.team, "team");
  EXPECT_EQ(v.runtime, "Node");
  json bare = sampleView();
  bare["live"] = nullptr;
  bare["owner"] = nullptr;
  bare["runtime"] = nullptr;
  bare["team"] = nullptr;
  directory::ProjectView none = directory::parseProjectView(bare, directory::kSetCmd);
  EXPECT_FALSE(none.live || none.owner || none.runtime || none.team);
  bare.erase("state");
  EXPECT_EQ(refusal([&] { directory::parseProjectView(bare, directory::kSetCmd); }),
            "500 service projects.directory.v1 (set_cmd) answered without \"state\" (a string)");
}

TEST(ProjectsDirectoryViewContract, RequestsAndTheirRefusals) {
  EXPECT_EQ(directory::toJson(directory::ViewRequest{"p1", ""}), json({{"project_id", "p1"}}));
  EXPECT_EQ(directory::parseViewRequest({{"project_id", "p1"}, {"account_id", "a1"}}).account_id,
            "a1");
  EXPECT_EQ(refusal([&] { directory::parseViewRequest(json::object()); }),
            "400 project_id is required and must be a string");
  json clear = directory::toJson(directory::SetCmdRequest{"p1", std::nullopt});
  EXPECT_EQ(clear, json({{"project_id", "p1"}, {"cmd", nullptr}}));
  EXPECT_EQ(directory::parseSetCmdRequest(clear).cmd, std::nullopt);
  EXPECT_EQ(directory::parseSetCmdRequest({{"project_id", "p1"}, {"cmd", "npm start"}}).cmd,
            "npm start");
  for (const json& bad : {json({{"project_id", "p1"}}), json({{"project_id", "p1"}, {"cmd", 1}})})
    EXPECT_EQ(refusal([&] { directory::parseSetCmdRequest(bad); }),
              "400 cmd is required: a string, or null to clear it");
}

TEST(ProjectsDirectoryViewContract, TheClientAsksOnceAndParses) {
  berth::testing::FakeHost host;
  std::vector<std::string> asked;
  host.fakeService(std::string(directory::kService),
                   [&](std::string_view method, const json& request) {
                     asked.push_back(std::string(method) + " " + request.dump());
                     return sampleView();
                   });
  berth::Services services = host.services();
  berth::ProjectsDirectory dir(services);
  EXPECT_EQ(dir.view("p1").name, "shop-ann");
  EXPECT_EQ(dir.view("p1", "a1").name, "shop-ann");
  EXPECT_EQ(dir.setCmd("p1", std::nullopt).cmd, "npm start");
  EXPECT_EQ(asked, (std::vector<std::string>{R"(view {"project_id":"p1"})",
                                             R"(view {"account_id":"a1","project_id":"p1"})",
                                             R"(set_cmd {"cmd":null,"project_id":"p1"})"}));
}

}  // namespace
