// ctest-label: api (starts a real berthd)
// The `live` release of GET /projects is kept in memory by the runtime plugin (ReleaseStore::liveOf
// through <berth/util/kept_answers.hpp>), over real HTTP and a real PostgreSQL: a release made live
// through the API (a build finishing, a promote) shows in the very next GET /projects, even with
// the notification trigger disabled (the store's own changed()); a change made by SQL on the
// control database, as another node or an operator would, shows within 5 s (the trigger's NOTIFY
// berth_runtime_live); and while the listening connection is gone nothing kept is served.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "../projects/api_support.hpp"
#include "../projects/kept_answers_suite.hpp"
#include "support/release_upload.hpp"
#include "tar_builder.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using berth::runtime::testing::TarBuilder;
using nlohmann::json;

namespace {

const std::string kChannel = "berth_runtime_live";

class LiveCache : public KeptAnswersSuite {
 protected:
  static void SetUpTestSuite() {
    startSuite({"projects", "storage", "runtime"}, "liveown", kChannel);
  }
  // Uploads a static site and waits until its build is done; the release id.
  static std::string deploySite(const std::string& name, const std::string& text) {
    return deployLive(api(), name, TarBuilder().file("index.html", text).finish(),
                      std::chrono::seconds(60));
  }
  // The id of the project's `live` in GET /projects (the list: one call of runtime.status.v1
  // `projects` for every project of the account); "" when it is null.
  static std::string liveId(const std::string& name) {
    auto r = api().get("/projects");
    if (r.status != 200)
      throw std::runtime_error("GET /projects: " + std::to_string(r.status) + " " + r.body);
    auto body = r.json();  // must outlive the loop
    for (const auto& p : body.at("projects")) {
      if (p.at("name") != name) continue;
      const json& live = p.at("live");
      return live.is_null() ? "" : live.at("id").get<std::string>();
    }
    throw std::runtime_error("GET /projects does not list " + name + ": " + r.body);
  }
};

// Disables the NOTIFY trigger of runtime.runtime_releases while it lives: what then reaches
// the kept answers is the store's own changed() only.
struct TriggerOff {
  explicit TriggerOff(berth::core::Pool& pool) : db(pool) {
    db.exec("ALTER TABLE runtime.runtime_releases DISABLE TRIGGER runtime_releases_changed");
  }
  ~TriggerOff() {
    db.exec("ALTER TABLE runtime.runtime_releases ENABLE TRIGGER runtime_releases_changed");
  }
  berth::core::Pool& db;
};

TEST_F(LiveCache, AReleaseMadeLiveThroughTheApiShowsInTheVeryNextList) {
  std::string name = project("apilive");
  // With the trigger, the notification might arrive before the next GET and hide a missing
  // changed(); without it, only changed() can make the change show.
  TriggerOff off(*db);
  EXPECT_EQ(liveId(name), "");  // kept from here on
  EXPECT_EQ(liveId(name), "");
  std::string r1 = deploySite(name, "one");
  EXPECT_EQ(liveId(name), r1);  // the build finished: finishLive
  std::string r2 = deploySite(name, "two");
  EXPECT_EQ(liveId(name), r2);
  auto promoted = api().post("/projects/" + name + "/deploys/" + r1 + "/promote", {});
  ASSERT_EQ(promoted.status, 200) << promoted.body;
  EXPECT_EQ(liveId(name), r1);  // promote
  EXPECT_EQ(liveId(name), r1);
}

TEST_F(LiveCache, AChangeBySqlShowsWithinFiveSeconds) {
  std::string name = project("sqllive");
  std::string r1 = deploySite(name, "one");
  ASSERT_EQ(liveId(name), r1);  // kept from here on
  ASSERT_EQ(liveId(name), r1);
  ASSERT_FALSE(ListenerProbe(*db, kChannel).pid().empty());

  // As another node or an operator would: nothing of this berthd sees the write.
  sql("UPDATE runtime.runtime_releases SET status = 'pruned' WHERE id = $1 RETURNING 1", {r1});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::string seen = liveId(name);
  while (!seen.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = liveId(name);
  }
  EXPECT_EQ(seen, "") << "GET /projects still answers the kept live release after 5 s";
}

// While the plugin does not listen, whatever it kept may be stale, so nothing may be kept: a
// change made while its listening connection is cut shows in every GET that
// ListenerProbe::readsAfterCut can prove came after the loss was noticed, and after.
TEST_F(LiveCache, NothingKeptIsServedWhileTheListenerIsGone) {
  std::string name = project("lostlive");
  std::string r1 = deploySite(name, "one");
  ASSERT_EQ(liveId(name), r1);  // kept from here on
  ASSERT_EQ(liveId(name), r1);

  ListenerProbe probe(*db, kChannel);
  auto judged = probe.readsAfterCut<std::string>(
      [&] {
        sql("UPDATE runtime.runtime_releases SET status = 'ready' WHERE id = $1 RETURNING 1", {r1});
      },
      [&] { return liveId(name); });
  ASSERT_GE(judged.size(), 2u) << "no GET came late enough to be judged, or no new listener";
  for (const auto& live : judged) EXPECT_EQ(live, "");
  EXPECT_EQ(liveId(name), "");
}

}  // namespace
