// ctest-label: api (starts a real berthd)
// The scheduler's routes over real HTTP through berthd's edge: a new schedule as
// docs/openapi.yaml describes it, the lists with next_run_at (null while paused), pause and
// resume, removal, every refusal with its text (400, 404, 422), other accounts' projects
// answering like missing ones, GET /schedules across own and team projects, and schedules going
// with their project.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "api_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::scheduler_api;
using nlohmann::json;

namespace {

const std::string kNoSuchSchedule = "no such schedule";

class ApiSchedules : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "scheduler"};
    startServer(options);
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }
};

bool isHex48(const json& v) {
  return v.is_string() && std::regex_match(v.get<std::string>(), std::regex("[0-9a-f]{48}"));
}

}  // namespace

// ---- create ----------------------------------------------------------------------------------

TEST_F(ApiSchedules, CreateAnswersTheScheduleWithoutNextRun) {
  auto a = makeAccount(*server, "schmaker");
  std::string project = mustCreate(api(a), "shop")["name"];
  int64_t before = nowSeconds();
  auto r = api(a).post("/projects/" + project + "/schedules",
                       scheduleBody("  nightly cleanup ", " 0 3 * * * ", "/cron?task=clean&x=%20"));
  int64_t after = nowSeconds();
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  json s = r.json();
  EXPECT_TRUE(isHex48(s["id"])) << s.dump();
  EXPECT_EQ(s["project"], project);
  EXPECT_EQ(s["account_id"], accountIdOf(api(a), project));
  EXPECT_EQ(s["name"], "nightly cleanup");  // trimmed
  EXPECT_EQ(s["spec"], "0 3 * * *");
  EXPECT_EQ(s["path"], "/cron?task=clean&x=%20");  // query string kept as written
  EXPECT_EQ(s["enabled"], true);
  ASSERT_TRUE(s["created_at"].is_number_integer());
  EXPECT_GE(s["created_at"].get<int64_t>(), before);
  EXPECT_LE(s["created_at"].get<int64_t>(), after);
  for (const char* field : {"last_run_at", "last_status", "last_ms", "last_error"}) {
    ASSERT_TRUE(s.contains(field)) << field;
    EXPECT_TRUE(s[field].is_null()) << field;
  }
  EXPECT_FALSE(s.contains("next_run_at")) << s.dump();

  // The list holds the same schedule, with next_run_at: the next 03:00 UTC.
  json l = listed(api(a), project, s["id"]);
  ASSERT_TRUE(l.is_object());
  json without_next = l;
  without_next.erase("next_run_at");
  EXPECT_EQ(without_next, s);
  ASSERT_TRUE(l["next_run_at"].is_number_integer()) << l.dump();
  int64_t next = l["next_run_at"];
  EXPECT_EQ(next % 86400, 3 * 3600);
  EXPECT_GT(next, after);
  EXPECT_LE(next, after + 86400);

  // And its run history is empty.
  EXPECT_EQ(runsOf(api(a), project, s["id"]), json::array());
}

TEST_F(ApiSchedules, IdsDifferAndListsKeepCreationOrder) {
  auto a = makeAccount(*server, "schorder");
  std::string project = mustCreate(api(a), "web")["name"];
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(
        mustSchedule(api(a), project, "s" + std::to_string(i), "*/5 * * * *", "/tick")["id"]);
  std::set<std::string> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), 5u);
  json list = schedulesOf(api(a), project);
  ASSERT_EQ(list.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(list[i]["id"], ids[i]);
    // */5: the next multiple of five minutes.
    EXPECT_EQ(list[i]["next_run_at"].get<int64_t>() % 300, 0);
  }
}

TEST_F(ApiSchedules, BadFieldsAnswer400WithTheReasonAndStoreNothing) {
  auto a = makeAccount(*server, "schbad");
  std::string project = mustCreate(api(a), "web")["name"];
  const std::string path = "/projects/" + project + "/schedules";
  struct Case {
    json body;
    std::string error;
  };
  const std::string ascii =
      "the path may hold only printable ASCII without spaces; percent-encode other characters "
      "(a space is %20)";
  const std::vector<Case> cases = {
      {scheduleBody("", "* * * * *", "/"), "a schedule needs a name"},
      {scheduleBody("   ", "* * * * *", "/"), "a schedule needs a name"},
      {scheduleBody(std::string(201, 'n'), "* * * * *", "/"),
       "a schedule's name is at most 200 characters"},
      {scheduleBody("x", "", "/"),
       "a cron spec has five fields separated by spaces: minute hour day-of-month month "
       "day-of-week; this one has 0"},
      {scheduleBody("x", "* * * *", "/"),
       "a cron spec has five fields separated by spaces: minute hour day-of-month month "
       "day-of-week; this one has 4"},
      {scheduleBody("x", "@hourly", "/"),
       "shorthands such as @hourly are not accepted; write the five fields (minute hour "
       "day-of-month month day-of-week), for example 0 0 * * * for every day at midnight UTC"},
      {scheduleBody("x", "61 * * * *", "/"), "minute field: 61 is out of range 0-59"},
      {scheduleBody("x", "0 0 * * MON", "/"),
       "day of week field: names such as MON are not accepted; use the numbers 0-7 (Sunday is 0 "
       "or 7)"},
      {scheduleBody("x", "0 0 * JAN *", "/"),
       "month field: names such as JAN are not accepted; use the numbers 1-12"},
      {scheduleBody("x", "0 0 L * *", "/"), "day of month field: L and W are not accepted"},
      {scheduleBody("x", "0 0 * * 1#2", "/"), "day of week field: # is not accepted"},
      {scheduleBody("x", "0 0 31 2 *", "/"),
       "day of month field: 31 never falls in the chosen months, so the spec would never run"},
      {scheduleBody("x", "* * * * *", "cron"), "the path must start with /"},
      {scheduleBody("x", "* * * * *", ""), "the path must start with /"},
      {scheduleBody("x", "* * * * *", "/a b"), ascii},
      {scheduleBody("x", "* * * * *", "/a\r\nX-Evil: 1"), ascii},
      {scheduleBody("x", "* * * * *", "/#top"),
       "the path cannot hold a # fragment: fragments are never sent"},
      {scheduleBody("x", "* * * * *", "/" + std::string(2048, 'p')),
       "the path is at most 2048 characters"},
  };
  for (const auto& c : cases) {
    auto r = api(a).post(path, c.body);
    EXPECT_EQ(r.status, 400) << c.body.dump() << " " << r.body;
    EXPECT_EQ(errorText(r), c.error) << c.body.dump();
  }
  EXPECT_EQ(schedulesOf(api(a), project), json::array());

  // Exactly at the limits: accepted.
  auto r = api(a).post(
      path, scheduleBody(std::string(200, 'n'), "* * * * *", "/" + std::string(2047, 'p')));
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST_F(ApiSchedules, MissingOrWrongTypedFieldsAnswer422InPlainText) {
  auto a = makeAccount(*server, "schtypes");
  std::string project = mustCreate(api(a), "web")["name"];
  const std::string path = "/projects/" + project + "/schedules";
  const std::vector<json> bodies = {
      json::object(),
      {{"spec", "* * * * *"}, {"path", "/"}},
      {{"name", "x"}, {"path", "/"}},
      {{"name", "x"}, {"spec", "* * * * *"}},
      {{"name", 5}, {"spec", "* * * * *"}, {"path", "/"}},
      {{"name", "x"}, {"spec", json::array({"*"})}, {"path", "/"}},
      {{"name", "x"}, {"spec", "* * * * *"}, {"path", true}},
      {{"name", nullptr}, {"spec", "* * * * *"}, {"path", "/"}},
  };
  for (const auto& body : bodies) {
    auto r = api(a).post(path, body);
    EXPECT_EQ(r.status, 422) << body.dump() << " " << r.body;
    EXPECT_TRUE(r.json().is_discarded()) << "422 comes as plain text: " << r.body;
  }
  EXPECT_EQ(api(a).raw("POST", path, "{not json", {"Content-Type: application/json"}).status, 400);
  EXPECT_EQ(api(a)
                .raw("POST", path, scheduleBody("x", "* * * * *", "/").dump(),
                     {"Content-Type: text/plain"})
                .status,
            415);
  EXPECT_EQ(schedulesOf(api(a), project), json::array());

  std::string id = mustSchedule(api(a), project, "x", "* * * * *", "/")["id"];
  for (const json& body : {json::object(), json{{"enabled", "false"}}, json{{"enabled", 0}},
                           json{{"enabled", nullptr}}}) {
    auto r = api(a).patch(path + "/" + id, body);
    EXPECT_EQ(r.status, 422) << body.dump() << " " << r.body;
  }
  EXPECT_EQ(listed(api(a), project, id)["enabled"], true);
}

// ---- pause, resume, remove -------------------------------------------------------------------

TEST_F(ApiSchedules, PauseNullsNextRunAndResumeBringsItBack) {
  auto a = makeAccount(*server, "schpause");
  std::string project = mustCreate(api(a), "web")["name"];
  std::string id = mustSchedule(api(a), project, "hourly", "7 * * * *", "/h")["id"];
  const std::string path = "/projects/" + project + "/schedules/" + id;

  auto r = api(a).patch(path, {{"enabled", false}});
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.body, "");
  json s = listed(api(a), project, id);
  EXPECT_EQ(s["enabled"], false);
  ASSERT_TRUE(s.contains("next_run_at"));
  EXPECT_TRUE(s["next_run_at"].is_null()) << s.dump();

  // Pausing again changes nothing and is still 204.
  EXPECT_EQ(api(a).patch(path, {{"enabled", false}}).status, 204);
  EXPECT_TRUE(listed(api(a), project, id)["next_run_at"].is_null());

  int64_t before = nowSeconds();
  EXPECT_EQ(api(a).patch(path, {{"enabled", true}}).status, 204);
  s = listed(api(a), project, id);
  EXPECT_EQ(s["enabled"], true);
  ASSERT_TRUE(s["next_run_at"].is_number_integer()) << s.dump();
  int64_t next = s["next_run_at"];
  EXPECT_EQ(next % 3600, 7 * 60);
  EXPECT_GT(next, before);
  EXPECT_LE(next, before + 3600);
  // Resuming an enabled schedule keeps its next run.
  EXPECT_EQ(api(a).patch(path, {{"enabled", true}}).status, 204);
  EXPECT_EQ(listed(api(a), project, id)["next_run_at"], next);
}

TEST_F(ApiSchedules, DeleteRemovesAndASecondDeleteIs404) {
  auto a = makeAccount(*server, "schdel");
  std::string project = mustCreate(api(a), "web")["name"];
  std::string keep = mustSchedule(api(a), project, "keep", "* * * * *", "/k")["id"];
  std::string gone = mustSchedule(api(a), project, "gone", "* * * * *", "/g")["id"];
  auto r = api(a).del("/projects/" + project + "/schedules/" + gone);
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(r.body, "");
  json list = schedulesOf(api(a), project);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], keep);

  r = api(a).del("/projects/" + project + "/schedules/" + gone);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), kNoSuchSchedule);
  r = api(a).patch("/projects/" + project + "/schedules/" + gone, {{"enabled", false}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), kNoSuchSchedule);
  r = api(a).get("/projects/" + project + "/schedules/" + gone + "/runs");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), kNoSuchSchedule);
}

TEST_F(ApiSchedules, AnotherProjectsScheduleIsNoSuchSchedule) {
  auto a = makeAccount(*server, "schtwo");
  std::string one = mustCreate(api(a), "one")["name"];
  std::string two = mustCreate(api(a), "two")["name"];
  std::string id = mustSchedule(api(a), two, "theirs", "* * * * *", "/t")["id"];
  const std::string wrong = "/projects/" + one + "/schedules/" + id;
  auto r = api(a).patch(wrong, {{"enabled", false}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), kNoSuchSchedule);
  r = api(a).del(wrong);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), kNoSuchSchedule);
  r = api(a).get(wrong + "/runs");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(errorText(r), kNoSuchSchedule);
  // Nothing changed on the project that owns it.
  json s = listed(api(a), two, id);
  EXPECT_EQ(s["enabled"], true);

  for (const std::string& bad : std::vector<std::string>{
           "nothex", std::string(48, 'A'), std::string(47, 'a'), std::string(48, 'a')}) {
    r = api(a).patch("/projects/" + one + "/schedules/" + bad, {{"enabled", true}});
    EXPECT_EQ(r.status, 404) << bad;
    EXPECT_EQ(errorText(r), kNoSuchSchedule) << bad;
    r = api(a).del("/projects/" + one + "/schedules/" + bad);
    EXPECT_EQ(r.status, 404) << bad;
    EXPECT_EQ(errorText(r), kNoSuchSchedule) << bad;
  }
}

// ---- who reaches what ------------------------------------------------------------------------

TEST_F(ApiSchedules, OtherAccountsProjectsAnswerLikeMissingOnes) {
  auto owner = makeAccount(*server, "schowner");
  auto stranger = makeAccount(*server, "schstrgr");
  std::string project = mustCreate(api(owner), "private")["name"];
  std::string id = mustSchedule(api(owner), project, "mine", "* * * * *", "/m")["id"];
  const std::string missing = "nothere-schowner";
  const std::string base = "/projects/" + project + "/schedules";
  const std::string mbase = "/projects/" + missing + "/schedules";

  auto same = [&](const HttpResult& theirs, const HttpResult& absent, const std::string& what) {
    EXPECT_EQ(theirs.status, 404) << what << " " << theirs.body;
    EXPECT_EQ(errorText(theirs), "no project called " + project) << what;
    EXPECT_EQ(absent.status, 404) << what;
    EXPECT_EQ(errorText(absent), "no project called " + missing) << what;
  };
  auto s = api(stranger);
  same(s.get(base), s.get(mbase), "list");
  same(s.post(base, scheduleBody("x", "* * * * *", "/")),
       s.post(mbase, scheduleBody("x", "* * * * *", "/")), "create");
  same(s.patch(base + "/" + id, {{"enabled", false}}),
       s.patch(mbase + "/" + id, {{"enabled", false}}), "pause");
  same(s.get(base + "/" + id + "/runs"), s.get(mbase + "/" + id + "/runs"), "runs");
  same(s.del(base + "/" + id), s.del(mbase + "/" + id), "delete");
  // The owner's schedule is untouched and still the only one.
  json list = schedulesOf(api(owner), project);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], id);
  EXPECT_EQ(list[0]["enabled"], true);

  // Without a token: 401 before anything.
  auto r = server->api().get(base);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(errorText(r), "sign in first");
  EXPECT_EQ(server->api().get("/schedules").status, 401);
}

TEST_F(ApiSchedules, AllSchedulesAcrossOwnAndTeamProjects) {
  auto lead = makeAccount(*server, "schlead");
  auto mate = makeAccount(*server, "schmate");
  auto other = makeAccount(*server, "schother");
  makeTeam(*server, "schteam", lead.email);
  addToTeam(*server, "schteam", mate.email, "member");

  std::string own = mustCreate(api(lead), "zeta")["name"];
  std::string team_project = mustCreate(api(lead), "alpha", "schteam")["name"];
  std::string mates_own = mustCreate(api(mate), "mine")["name"];
  std::string others = mustCreate(api(other), "elsewhere")["name"];
  std::string s_own = mustSchedule(api(lead), own, "own", "0 * * * *", "/o")["id"];
  std::string s_team1 = mustSchedule(api(mate), team_project, "by mate", "0 1 * * *", "/t1")["id"];
  std::string s_team2 = mustSchedule(api(lead), team_project, "by lead", "0 2 * * *", "/t2")["id"];
  std::string s_mate = mustSchedule(api(mate), mates_own, "mate's", "0 3 * * *", "/m")["id"];
  std::string s_other = mustSchedule(api(other), others, "other", "0 4 * * *", "/x")["id"];
  ASSERT_EQ(api(lead)
                .patch("/projects/" + team_project + "/schedules/" + s_team2, {{"enabled", false}})
                .status,
            204);

  auto ids = [&](const Account& who) {
    auto r = api(who).get("/schedules");
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<std::string> out;
    json all = r.json()["schedules"];
    for (const auto& s : all) {
      out.push_back(s["id"]);
      EXPECT_TRUE(s.contains("next_run_at")) << s.dump();
      EXPECT_EQ(s["next_run_at"].is_null(), s["enabled"] == false) << s.dump();
    }
    return out;
  };
  // By project name (alpha-schteam before zeta-schlead), then creation.
  EXPECT_EQ(ids(lead), (std::vector<std::string>{s_team1, s_team2, s_own}));
  EXPECT_EQ(ids(mate), (std::vector<std::string>{s_team1, s_team2, s_mate}));
  EXPECT_EQ(ids(other), (std::vector<std::string>{s_other}));
  auto nobody = makeAccount(*server, "schnobody");
  EXPECT_EQ(api(nobody).get("/schedules").json(), json({{"schedules", json::array()}}));

  // The team's schedule made by mate: account_id is mate's, project the team's.
  auto r = api(lead).get("/schedules");
  json all = r.json()["schedules"];
  EXPECT_EQ(all[0]["account_id"], accountIdOf(api(mate), mates_own));
  EXPECT_EQ(all[0]["project"], team_project);

  // A member of the team may pause and remove the team's schedules.
  EXPECT_EQ(api(mate)
                .patch("/projects/" + team_project + "/schedules/" + s_team2, {{"enabled", true}})
                .status,
            204);
  EXPECT_EQ(api(mate).del("/projects/" + team_project + "/schedules/" + s_team1).status, 204);
  EXPECT_EQ(ids(lead), (std::vector<std::string>{s_team2, s_own}));
}

TEST_F(ApiSchedules, SchedulesGoWithTheirProject) {
  auto a = makeAccount(*server, "schgone");
  std::string project = mustCreate(api(a), "doomed")["name"];
  std::string keep_project = mustCreate(api(a), "kept")["name"];
  std::string project_id = projectId(*server, project);
  mustSchedule(api(a), project, "one", "* * * * *", "/1");
  mustSchedule(api(a), project, "two", "0 0 * * *", "/2");
  std::string kept = mustSchedule(api(a), keep_project, "three", "0 0 * * *", "/3")["id"];
  ASSERT_EQ(api(a).del("/projects/" + project).status, 204);

  EXPECT_EQ(tableText(*server, "scheduler.schedules").find(project_id), std::string::npos);
  auto r = api(a).get("/schedules");
  json all = r.json()["schedules"];
  ASSERT_EQ(all.size(), 1u) << all.dump();
  EXPECT_EQ(all[0]["id"], kept);

  // A new project of the same name starts without schedules.
  std::string again = mustCreate(api(a), "doomed")["name"];
  EXPECT_EQ(schedulesOf(api(a), again), json::array());
}
