// ctest-label: api (starts a real berthd)
// files_count and files_bytes of GET /projects are kept in memory by the storage plugin
// (BlobStore::fileUsage through <berth/util/kept_answers.hpp>), over real HTTP and a real
// PostgreSQL: a change made through the API shows in the very next GET /projects, even with
// the notification trigger disabled (the store's own changed()); a change made by SQL on the
// control database, as another node or an operator would, shows within 5 s (the trigger's
// NOTIFY berth_storage_usage); and while the listening connection is gone nothing kept is
// served.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../projects/kept_answers_suite.hpp"
#include "storage_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::storage_api;
using nlohmann::json;

namespace {

const std::string kChannel = "berth_storage_usage";
using Usage = std::pair<int64_t, int64_t>;  // files_count, files_bytes

class UsageCache : public KeptAnswersSuite {
 protected:
  static void SetUpTestSuite() { startSuite({"projects", "storage"}, "usageown", kChannel); }
  // The project's files_count and files_bytes in GET /projects (the list: one call of
  // storage.stats.v1 `projects` for every project of the account).
  static Usage usage(const std::string& name) {
    auto r = api().get("/projects");
    if (r.status != 200)
      throw std::runtime_error("GET /projects: " + std::to_string(r.status) + " " + r.body);
    auto body = r.json();  // must outlive the loop
    for (const auto& p : body.at("projects"))
      if (p.at("name") == name)
        return {p.at("files_count").get<int64_t>(), p.at("files_bytes").get<int64_t>()};
    throw std::runtime_error("GET /projects does not list " + name + ": " + r.body);
  }
};

// Disables the NOTIFY trigger of storage.blobs while it lives: what then reaches the kept
// answers is the store's own changed() only.
struct TriggerOff {
  explicit TriggerOff(berth::core::Pool& pool) : db(pool) {
    db.exec("ALTER TABLE storage.blobs DISABLE TRIGGER blobs_changed");
  }
  ~TriggerOff() { db.exec("ALTER TABLE storage.blobs ENABLE TRIGGER blobs_changed"); }
  berth::core::Pool& db;
};

TEST_F(UsageCache, AChangeThroughTheApiShowsInTheVeryNextList) {
  std::string name = project("apiusage");
  // With the trigger, the notification might arrive before the next GET and hide a missing
  // changed(); without it, only changed() can make the change show.
  TriggerOff off(*db);
  EXPECT_EQ(usage(name), Usage(0, 0));  // kept from here on
  EXPECT_EQ(usage(name), Usage(0, 0));
  ASSERT_EQ(upload(api(), name, "one.txt", "0123456789").status, 201);
  EXPECT_EQ(usage(name), Usage(1, 10));
  ASSERT_EQ(upload(api(), name, "two.txt", "01234").status, 201);
  EXPECT_EQ(usage(name), Usage(2, 15));
  ASSERT_EQ(upload(api(), name, "one.txt", "012").status, 201);  // a replace
  EXPECT_EQ(usage(name), Usage(2, 8));
  ASSERT_EQ(removeFile(api(), name, "two.txt").status, 204);
  EXPECT_EQ(usage(name), Usage(1, 3));
  ASSERT_EQ(removeFile(api(), name, "one.txt").status, 204);
  EXPECT_EQ(usage(name), Usage(0, 0));
}

TEST_F(UsageCache, AChangeBySqlShowsWithinFiveSeconds) {
  std::string name = project("sqlusage");
  ASSERT_EQ(upload(api(), name, "a.txt", "12345").status, 201);
  ASSERT_EQ(usage(name), Usage(1, 5));  // kept from here on
  ASSERT_EQ(usage(name), Usage(1, 5));
  ASSERT_FALSE(ListenerProbe(*db, kChannel).pid().empty());

  // As another node or an operator would: nothing of this berthd sees the write.
  sql("UPDATE storage.blobs SET size = size + 1000 WHERE project_id = $1 AND space = 'files' "
      "RETURNING 1",
      {projectId(*server, name)});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  Usage seen = usage(name);
  while (seen != Usage(1, 1005) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = usage(name);
  }
  EXPECT_EQ(seen, Usage(1, 1005)) << "GET /projects still answers the kept usage after 5 s";

  // A file of another space (a release archive, say) is no stored file.
  sql("INSERT INTO storage.blobs (project_id, space, key, object, size, content_type, sha256, "
      "created_at, updated_at) VALUES ($1, 'releases', 'r1', $1 || '/sql-r1', 7, 'x/y', "
      "repeat('0', 64), 1, 1) RETURNING 1",
      {projectId(*server, name)});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(usage(name), Usage(1, 1005));
}

// While the plugin does not listen, whatever it kept may be stale, so nothing may be kept: a
// change made while its listening connection is cut shows in every GET that
// ListenerProbe::readsAfterCut can prove came after the loss was noticed, and after.
TEST_F(UsageCache, NothingKeptIsServedWhileTheListenerIsGone) {
  std::string name = project("lostusage");
  std::string id = projectId(*server, name);
  ASSERT_EQ(upload(api(), name, "a.txt", "12345").status, 201);
  ASSERT_EQ(usage(name), Usage(1, 5));  // kept from here on
  ASSERT_EQ(usage(name), Usage(1, 5));

  ListenerProbe probe(*db, kChannel);
  auto judged = probe.readsAfterCut<Usage>(
      [&] {
        sql("UPDATE storage.blobs SET size = size + 1000 WHERE project_id = $1 AND "
            "space = 'files' RETURNING 1",
            {id});
      },
      [&] { return usage(name); });
  ASSERT_GE(judged.size(), 2u) << "no GET came late enough to be judged, or no new listener";
  for (const auto& u : judged) EXPECT_EQ(u, Usage(1, 1005));
  EXPECT_EQ(usage(name), Usage(1, 1005));
}

}  // namespace
