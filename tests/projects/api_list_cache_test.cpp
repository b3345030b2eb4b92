// ctest-label: api (starts a real berthd)
// GET /projects answers from lists kept in memory (plugin/project_lists.hpp). What must hold:
// a change made elsewhere (another node, an operator's SQL) shows within moments through the
// NOTIFY berth_projects triggers, for own and team projects alike; a change made while nobody
// listened is never answered from what was kept before; and the routes' own changes show in the
// very next answer.
#include <gtest/gtest.h>

#include "api_support.hpp"
#include "support/listener_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

class ApiListCache : public ProjectsServerSuite {
 protected:
  static std::unique_ptr<berth::core::Pool> control() {
    return std::make_unique<berth::core::Pool>(server->databaseUrl(), 1, std::chrono::seconds(10));
  }

  // name -> label of every project GET /projects lists.
  static std::map<std::string, std::string> labels(const Account& a) {
    auto r = api(a).get("/projects");
    EXPECT_EQ(r.status, 200) << r.body;
    std::map<std::string, std::string> out;
    const json body = r.status == 200 ? r.json() : json::object();
    for (const auto& p : body.value("projects", json::array()))
      out[p["name"].get<std::string>()] = p["label"].get<std::string>();
    return out;
  }
};

TEST_F(ApiListCache, ChangesMadeElsewhereShowWithinMoments) {
  auto user = makeAccount(*server, "cacheuser");
  auto owner = makeAccount(*server, "cacheown");
  makeTeam(*server, "cacheteam", owner.email);
  addToTeam(*server, "cacheteam", user.email, "member");
  mustCreate(api(user), "mine");
  mustCreate(api(owner), "shared", "cacheteam");
  ASSERT_EQ(labels(user), (std::map<std::string, std::string>{{"mine-cacheuser", "mine"},
                                                              {"shared-cacheteam", "shared"}}));
  auto db = control();
  ASSERT_TRUE(ListenerProbe(*db, "berth_projects").waitListening());

  // What another node would write: a label changed, a project made, one removed.
  db->exec("UPDATE projects.projects SET label = 'renamed' WHERE name = 'shared-cacheteam'");
  EXPECT_TRUE(eventually([&] { return labels(user)["shared-cacheteam"] == "renamed"; },
                         std::chrono::seconds(5)))
      << "a team project changed by SQL";
  db->exec(
      "INSERT INTO projects.projects (id, name, label, account_id, status) SELECT 'elsewhere1', "
      "'made-cacheuser', 'made', account_id, 'ready' FROM projects.projects WHERE name = "
      "'mine-cacheuser'");
  EXPECT_TRUE(eventually([&] { return labels(user).count("made-cacheuser") == 1; },
                         std::chrono::seconds(5)))
      << "a project made by SQL";
  db->exec("DELETE FROM projects.projects WHERE name = 'made-cacheuser'");
  EXPECT_TRUE(eventually([&] { return labels(user).count("made-cacheuser") == 0; },
                         std::chrono::seconds(5)))
      << "a project removed by SQL";
  EXPECT_EQ(labels(owner), (std::map<std::string, std::string>{{"shared-cacheteam", "renamed"}}));
}

TEST_F(ApiListCache, AChangeWhileNobodyListenedIsNotAnsweredFromWhatWasKept) {
  auto user = makeAccount(*server, "lostnote");
  mustCreate(api(user), "quiet");
  ASSERT_EQ(labels(user)["quiet-lostnote"], "quiet");
  auto db = control();
  auto judged = ListenerProbe(*db, "berth_projects")
                    .readsAfterCut<std::string>(
                        [&] {
                          db->exec(
                              "UPDATE projects.projects SET label = 'loud' WHERE name = "
                              "'quiet-lostnote'");
                        },
                        [&] { return labels(user)["quiet-lostnote"]; });
  ASSERT_GE(judged.size(), 2u) << "no GET came late enough to be judged, or no new listener";
  for (const auto& label : judged) EXPECT_EQ(label, "loud");
}

TEST_F(ApiListCache, TheRoutesOwnChangesShowInTheNextAnswer) {
  auto user = makeAccount(*server, "ownwrite");
  mustCreate(api(user), "first");
  ASSERT_EQ(labels(user).size(), 1u);
  for (int i = 0; i < 3; ++i) {
    std::string label = "next" + std::to_string(i);
    mustCreate(api(user), label);
    EXPECT_EQ(labels(user).count(label + "-ownwrite"), 1u) << "created";
    auto r = api(user).patch("/projects/" + label + "-ownwrite", json{{"region", "eu-west"}});
    ASSERT_EQ(r.status, 200) << r.body;
    const json listed = api(user).get("/projects").json().at("projects");
    for (const auto& p : listed)
      if (p["name"] == label + "-ownwrite") {
        EXPECT_EQ(p["region"], "eu-west") << "patched";
      }
    ASSERT_EQ(api(user).del("/projects/" + label + "-ownwrite").status, 204);
    EXPECT_EQ(labels(user).count(label + "-ownwrite"), 0u) << "deleted";
  }
}

}  // namespace
