// ctest-label: api (starts a real berthd)
// A hostile tenant cannot fill the disk or the tables: quotas from configuration, each tried at
// its limit and one past it, and each refusal (403 naming the quota) leaves nothing behind.
//
// - disk per account (storage.disk_quota_mb, by plan): the stored files and release archives
//   of every project of the account count together; a replace that grows a file counts what it
//   adds; another account is not affected;
// - files per project (storage.max_files_per_project);
// - schedules per project (scheduler.max_schedules_per_project), also when many creations
//   race for the last places.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <random>
#include <thread>

#include "../storage/storage_support.hpp"
#include "hostile_tenant.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::storage_api;
using namespace berth::testing::isolation;
using nlohmann::json;

namespace {

constexpr int64_t kMegabyte = 1024 * 1024;
const std::string kFilesLimit =
    "this project has 3 files, the limit (storage.max_files_per_project); delete one before "
    "storing another";
const std::string kSchedulesLimit =
    "this project has 3 schedules, the limit (scheduler.max_schedules_per_project); delete one "
    "first";

std::string diskQuotaUsedUp(int64_t stored, int64_t asked) {
  return "the account's disk quota (1 MB on the free plan, storage.disk_quota_mb) is used up: " +
         std::to_string(stored) + " bytes are stored and this needs " + std::to_string(asked) +
         " more; delete files or releases, or move to a larger plan";
}

// Bytes that do not compress, so an archive holding them is about as large.
std::string noise(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string out(size, '\0');
  for (auto& c : out) c = static_cast<char>(random() & 0xFF);
  return out;
}

// A static release (index.html and a file of `payload` bytes of noise) as a .tar.gz, made by
// the system's tar.
std::string staticRelease(size_t payload, unsigned seed) {
  return TarBuilder()
      .file("index.html", "<h1>hello</h1>\n")
      .file("noise.bin", noise(payload, seed))
      .finish();
}

// Sends `attempt(i)` for i in [0, n) all at once; how many were taken (201) and how many
// refused with 403 and `refusal`.
struct RaceCount {
  int taken, refused;
};
RaceCount race(int n, const std::function<HttpResult(int)>& attempt, const std::string& refusal) {
  std::atomic<int> taken{0}, refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      auto r = attempt(i);
      if (r.status == 201) ++taken;
      if (r.status == 403 && errorText(r) == refusal) ++refused;
    });
  for (auto& t : threads) t.join();
  return {taken.load(), refused.load()};
}

class Quotas : public ProjectsServerSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "scheduler", "runtime"};
    options.extra_yaml =
        "projects:\n  creation_burst: 100\n"
        "storage:\n  disk_quota_mb: {free: 1, hobby: 10, pro: null, scale: null}\n"
        "  max_files_per_project: 3\n"
        "scheduler:\n  max_schedules_per_project: 3\n";
    startServer(options);
  }

  static int64_t schedulesRows(const std::string& project) {
    berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
    auto rows = column(db, "SELECT count(*)::text FROM scheduler.schedules WHERE project_name = $1",
                       {project});
    return std::stoll(rows.at(0));
  }
  static HttpResult newSchedule(const Account& a, const std::string& project,
                                const std::string& name) {
    // Never due while the test runs.
    return api(a).post("/projects/" + project + "/schedules",
                       {{"name", name}, {"spec", "0 0 1 1 *"}, {"path", "/cron"}});
  }
  static HttpResult deploy(const Account& a, const std::string& project,
                           const std::string& archive) {
    return uploadRelease(api(a), project, archive);
  }
};

TEST_F(Quotas, FilesPerProjectStopAtTheLimitAndARefusalStoresNothing) {
  auto a = makeAccount(*server, "qfiles", "pro");
  mustCreate(api(a), "site");
  const std::string project = "site-qfiles";
  for (std::string path : {"f1", "f2", "f3"})
    ASSERT_EQ(upload(api(a), project, path, "bytes of " + path).status, 201) << path;

  size_t objects = filesUnder(objectsDir(*server));
  auto r = upload(api(a), project, "f4", "one too many");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kFilesLimit);
  auto files = listed(api(a), project);
  EXPECT_EQ(files.size(), 3u);
  EXPECT_EQ(files.count("f4"), 0u);
  EXPECT_EQ(download(*server, project, "f4").status, 404);
  EXPECT_EQ(filesUnder(objectsDir(*server)), objects);

  // Replacing a file at the limit adds none; after a delete there is room for one.
  EXPECT_EQ(upload(api(a), project, "f1", "new bytes of f1").status, 201);
  EXPECT_EQ(removeFile(api(a), project, "f2").status, 204);
  EXPECT_EQ(upload(api(a), project, "f4", "now it fits").status, 201);
  r = upload(api(a), project, "f5", "one too many again");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kFilesLimit);
}

TEST_F(Quotas, FilesRacingForTheLastPlacesNeverPassTheLimit) {
  auto a = makeAccount(*server, "qfrace", "pro");
  mustCreate(api(a), "site");
  const std::string project = "site-qfrace";
  auto [stored, refused] = race(
      8,
      [&](int i) {
        return upload(api(a), project, "race" + std::to_string(i), std::string(1000, 'x'));
      },
      kFilesLimit);
  EXPECT_EQ(stored, 3);
  EXPECT_EQ(refused, 5);
  EXPECT_EQ(listed(api(a), project).size(), 3u);
}

TEST_F(Quotas, DiskPerAccountCountsTheFilesAndReleasesOfAllItsProjects) {
  auto a = makeAccount(*server, "qdisk", "free");  // 1 MB
  auto other = makeAccount(*server, "qdiskother", "pro");
  mustCreate(api(a), "one");
  mustCreate(api(a), "two");
  mustCreate(api(other), "big");

  // Two projects of one account fill its megabyte exactly.
  ASSERT_EQ(upload(api(a), "one-qdisk", "a.bin", noise(600 * 1024, 1)).status, 201);
  auto r = upload(api(a), "two-qdisk", "b.bin", noise(kMegabyte - 600 * 1024, 2));
  ASSERT_EQ(r.status, 201) << r.body;

  // One byte more is refused, in either project, and stores nothing.
  size_t objects = filesUnder(objectsDir(*server));
  for (std::string project : {"one-qdisk", "two-qdisk"}) {
    r = upload(api(a), project, "c.bin", "x");
    EXPECT_EQ(r.status, 403) << project << ": " << r.body;
    EXPECT_EQ(errorText(r), diskQuotaUsedUp(kMegabyte, 1));
    EXPECT_EQ(listed(api(a), project).count("c.bin"), 0u);
  }
  // A replace counts what it adds: growing is refused, shrinking is not.
  r = upload(api(a), "one-qdisk", "a.bin", noise(600 * 1024 + 1, 3));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), diskQuotaUsedUp(kMegabyte, 1));
  EXPECT_EQ(listed(api(a), "one-qdisk").at("a.bin").at("bytes"), 600 * 1024);
  // A release archive is refused the same way (before its build), and stores nothing.
  std::string large_release = staticRelease(200 * 1024, 4);
  r = deploy(a, "two-qdisk", large_release);
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), diskQuotaUsedUp(kMegabyte, static_cast<int64_t>(large_release.size())));
  EXPECT_EQ(filesUnder(objectsDir(*server)), objects);
  auto releases = api(a).get("/projects/two-qdisk/deploys");
  ASSERT_EQ(releases.status, 200) << releases.body;
  EXPECT_TRUE(releases.json().at("deploys").empty()) << releases.body;

  // Another account is not held back by this one's quota.
  r = upload(api(other), "big-qdiskother", "big.bin", noise(2 * kMegabyte, 5));
  EXPECT_EQ(r.status, 201) << r.body;

  // Room made by shrinking a file; a release's archive and its packed build then count like
  // files.
  ASSERT_EQ(upload(api(a), "one-qdisk", "a.bin", std::string(1000, 'a')).status, 201);
  std::string release = staticRelease(100 * 1024, 6);
  r = deploy(a, "two-qdisk", release);
  ASSERT_EQ(r.status, 202) << r.body;
  std::string id = r.json().at("id").get<std::string>();
  std::string status;
  ASSERT_TRUE(eventually(
      [&] {
        status = releaseStatus(api(a), "two-qdisk", id);
        return status != "building";
      },
      std::chrono::seconds(60)));
  ASSERT_EQ(status, "live") << api(a).get("/projects/two-qdisk/deploys/" + id).body;

  // The release's packed build (what other nodes unpack it from) is stored disk too.
  berth::core::Pool db(server->databaseUrl(), 1, std::chrono::seconds(10));
  const int64_t pack = std::stoll(
      column(db, "SELECT build_size::text FROM runtime.runtime_releases WHERE id = $1", {id})
          .at(0));
  EXPECT_GT(pack, 0);
  const int64_t stored =
      1000 + (kMegabyte - 600 * 1024) + static_cast<int64_t>(release.size()) + pack;
  r = upload(api(a), "one-qdisk", "rest.bin", std::string(kMegabyte - stored, 'r'));
  EXPECT_EQ(r.status, 201) << r.body;
  r = upload(api(a), "one-qdisk", "d.bin", "x");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), diskQuotaUsedUp(kMegabyte, 1));
}

TEST_F(Quotas, SchedulesPerProjectStopAtTheLimitAndARefusalStoresNothing) {
  auto a = makeAccount(*server, "qsched", "pro");
  mustCreate(api(a), "cron");
  const std::string project = "cron-qsched";
  std::vector<std::string> ids;
  for (std::string name : {"s1", "s2", "s3"}) {
    auto r = newSchedule(a, project, name);
    ASSERT_EQ(r.status, 201) << name << ": " << r.body;
    ids.push_back(r.json().at("id").get<std::string>());
  }
  auto r = newSchedule(a, project, "s4");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kSchedulesLimit);
  EXPECT_EQ(api(a).get("/projects/" + project + "/schedules").json()["schedules"].size(), 3u);
  EXPECT_EQ(schedulesRows(project), 3);

  // After a delete there is room for one.
  ASSERT_EQ(api(a).del("/projects/" + project + "/schedules/" + ids[0]).status, 204);
  EXPECT_EQ(newSchedule(a, project, "s4").status, 201);
  r = newSchedule(a, project, "s5");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorText(r), kSchedulesLimit);
  EXPECT_EQ(schedulesRows(project), 3);
}

TEST_F(Quotas, SchedulesRacingForTheLastPlacesNeverPassTheLimit) {
  auto a = makeAccount(*server, "qsrace", "pro");
  mustCreate(api(a), "cron");
  const std::string project = "cron-qsrace";
  auto [created, refused] = race(
      12, [&](int i) { return newSchedule(a, project, "race" + std::to_string(i)); },
      kSchedulesLimit);
  EXPECT_EQ(created, 3);
  EXPECT_EQ(refused, 9);
  EXPECT_EQ(schedulesRows(project), 3);
}

}  // namespace
