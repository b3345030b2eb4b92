// ctest-label: e2e
// A release upload and its unpack (POST /projects/{name}/deploys, 30 MB of incompressible files)
// with berthd killed (SIGKILL) or stopped (SIGSTOP past the client's timeout, then SIGCONT) at
// random points between the upload's start and the release going live: afterwards no release is
// left building, exactly one is live, a release listed live or ready has every file with the
// right bytes on disk, the app serves the old release or the new one in full, an upload answered
// 202 is listed, no half-unpacked folder or spooled body is left; every route answers.
#include <gtest/gtest.h>

#include "fault_case.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;
namespace fs = std::filesystem;

namespace {

constexpr int kFiles = 30;
constexpr size_t kFileBytes = 1u << 20;

struct Release {
  std::string archive;
  std::string index;                       // index.html, which names the release
  std::map<std::string, std::string> sha;  // path -> SHA-256 of every file
};

Release makeRelease(const std::string& name, std::mt19937_64& engine) {
  Release r;
  r.index = "<p>release " + name + "</p>\n";
  std::map<std::string, std::string> files{{"index.html", r.index}};
  r.sha["index.html"] = sha256Hex(r.index);
  for (int i = 0; i < kFiles; ++i) {
    std::string path = "data/blob" + std::to_string(i) + ".bin";
    files[path] = randomBytes(kFileBytes, engine);
    r.sha[path] = sha256Hex(files[path]);
  }
  r.archive = tarGz(files);
  return r;
}

nlohmann::json deploys(FaultCase& c, Findings& findings) {
  auto r = c.api().get("/projects/" + c.projectName("rel") + "/deploys");
  if (r.status != 200) {
    findings.add("GET deploys answered " + std::to_string(r.status) + ": " + r.body);
    return nlohmann::json::array();
  }
  return r.json()["deploys"];
}

// Waits until no release is building (a stopped berthd finishes its build; a new start fails
// an interrupted one in its first sweep).
nlohmann::json settled(FaultCase& c, Findings& findings) {
  nlohmann::json list;
  for (int i = 0; i < 300; ++i) {
    list = deploys(c, findings);
    bool building = false;
    for (const auto& d : list) building = building || d.value("status", "") == "building";
    if (!building) return list;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  findings.add("a release is still building 60 s later: " + list.dump());
  return list;
}

// Every file of a listed, built release is on disk with its bytes.
void checkFolder(FaultCase& c, const std::string& id, const Release& release, Findings& findings) {
  const std::string dir = c.server().dataDir() + "/releases/" + c.projectId("rel") + "/" + id;
  for (const auto& [path, sha] : release.sha) {
    std::string bytes = readFile(dir + "/" + path);
    if (sha256Hex(bytes) != sha)
      findings.add("release " + id + " is listed but its " + path + " has " +
                   std::to_string(bytes.size()) + " bytes with another SHA-256");
  }
}

void checkServed(FaultCase& c, const Release& release, const std::string& which,
                 Findings& findings) {
  for (const auto& [path, sha] : release.sha) {
    auto got = sendToHost(c.baseUrl(), c.host("rel"), "GET", "/" + path, {}, "", 60000);
    if (got.status != 200 || sha256Hex(got.body) != sha) {
      findings.add("the app serves the " + which + " release but /" + path + " answered " +
                   std::to_string(got.status) + " with " + std::to_string(got.body.size()) +
                   " bytes");
      return;
    }
  }
}

}  // namespace

TEST(FaultRelease, KilledOrStoppedBerthdServesTheOldReleaseOrTheNewOne) {
  for (FaultMode mode : faultModes()) {
    FaultCase c("release", mode);
    c.createProject("rel");
    const std::string route = "/projects/" + c.projectName("rel") + "/deploys";
    auto upload = [&](const std::string& archive, long timeout_ms) {
      return rawWithTimeout(c, "POST", route, archive, {"Content-Type: application/gzip"},
                            timeout_ms);
    };
    // The first release, and how long one takes from upload to live.
    std::map<std::string, Release> releases;  // by id
    Release first = makeRelease("first", c.random().engine());
    Findings setup;
    milliseconds unfaulted = measure([&] {
      auto r = upload(first.archive, 120000);
      ASSERT_EQ(r.status, 202) << r.body << r.error;
      releases[r.json()["id"]] = first;
      settled(c, setup);
    });
    ASSERT_TRUE(setup.ok()) << setup.text();
    std::string live_id = releases.begin()->first;
    for (int round = 0; round < faultRounds(); ++round) {
      Release next = makeRelease("r" + std::to_string(round), c.random().engine());
      milliseconds at = c.random().pointWithin(unfaulted);
      FaultRun run = c.strike(
          [&] { return upload(next.archive, c.clientTimeoutMs(at, unfaulted.count())); }, at);
      Findings findings;
      std::string new_id;
      if (run.answer.status == 202) new_id = run.answer.json().value("id", "");
      nlohmann::json list = settled(c, findings);
      // A listed release of no earlier round is this round's (also when its 202 was lost).
      for (const auto& d : list) {
        std::string id = d.value("id", "");
        if (releases.count(id) || id == new_id) continue;
        if (new_id.empty())
          new_id = id;
        else
          findings.add("two new releases are listed: " + new_id + " and " + id);
      }
      std::vector<std::string> live;
      for (const auto& d : list) {
        std::string id = d.value("id", ""), status = d.value("status", "");
        if (status == "live") live.push_back(id);
        if (status != "live" && status != "ready") continue;
        checkFolder(c, id, id == new_id ? next : releases[id], findings);
      }
      if (run.answer.status == 202) {
        bool listed = false;
        for (const auto& d : list) listed = listed || d.value("id", "") == new_id;
        if (!listed) findings.add("release " + new_id + " was answered 202 but is not listed");
      }
      if (live.size() != 1) {
        findings.add(std::to_string(live.size()) + " releases are live: " + list.dump());
      } else if (live[0] == new_id) {
        checkServed(c, next, "new", findings);
        live_id = new_id;
      } else if (live[0] == live_id) {
        checkServed(c, releases[live_id], "old", findings);
      } else {
        findings.add("release " + live[0] + " is live, neither the old one (" + live_id +
                     ") nor the new one (" + new_id + ")");
      }
      if (!new_id.empty()) releases[new_id] = next;
      c.finishPoint(findings, describePoint(round, run) + " new=" + new_id);
    }
    EXPECT_EQ(c.tally().inconsistent(), 0) << "seed " << faultSeed();
  }
}
