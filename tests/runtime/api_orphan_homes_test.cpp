// ctest-label: api (starts a real berthd)
// A berthd killed after a project's row was deleted but before its project.deleted hook ran
// leaves the project's home folder (runtime/homes/<id>) and its uid. The next start removes
// both, and never the home of a project that exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../projects/api_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
namespace fs = std::filesystem;

namespace {

constexpr const char* kGoneId = "0rphan0000000000000000zz";

TEST(ApiOrphanHomes, TheNextStartRemovesTheHomeAndUidOfAProjectDeletedMidWay) {
  const std::string data = makeTempDir("berth-orphan-homes");
  BerthdOptions o;
  o.plugins = {"projects", "storage", "runtime"};
  o.data_dir = data;
  const std::string homes = data + "/runtime/homes";
  BerthdProcess server(o);
  server.start();
  const auto made =
      mustCreate(server.api(server.createAccountWithToken("owner@example.com")), "kept");
  const std::string kept_id = projectId(server, made["name"]);
  berth::core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(10));
  db.exec("INSERT INTO runtime.runtime_project_uids (project_id, uid) VALUES ($1, 265000)",
          {std::string(kGoneId)});
  ASSERT_EQ(server.terminate().code, 0) << server.output();
  // What the killed berthd left: a home (with a file) and a uid row for a project that has no
  // row any more; the kept project's home is made by hand as an app start would.
  fs::create_directories(homes + "/" + kGoneId + "/tmp");
  std::ofstream(homes + "/" + std::string(kGoneId) + "/tmp/left") << "left";
  fs::create_directories(homes + "/" + kept_id);
  std::ofstream(homes + "/" + kept_id + "/mine") << "mine";
  server.start();
  EXPECT_TRUE(eventually([&] { return !fs::exists(homes + "/" + kGoneId); })) << server.output();
  EXPECT_TRUE(fs::exists(homes + "/" + kept_id + "/mine"));
  EXPECT_NE(
      server.output().find(std::string("removed the home folder of a deleted project: ") + kGoneId),
      std::string::npos);
  const auto uids = column(
      db, "SELECT uid::text FROM runtime.runtime_project_uids WHERE project_id = $1", {kGoneId});
  EXPECT_TRUE(uids.empty());
  stopCleanly(server);
  removeTree(data);
}

}  // namespace
