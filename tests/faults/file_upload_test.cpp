// ctest-label: e2e
// A 60 MB file upload (POST /projects/{name}/files/{path}) with berthd killed (SIGKILL) or
// stopped (SIGSTOP past the client's timeout, then SIGCONT) at random points: afterwards the file
// is either absent (not listed, /_files/ 404) or complete (listed with its size, served with the
// right SHA-256); an upload that was answered 201 is there; the spool and the blob store's
// temporaries are empty after the start-up sweep; every route answers.
#include <gtest/gtest.h>

#include "fault_case.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;

namespace {

constexpr size_t kFileBytes = 60u << 20;

void checkFile(FaultCase& c, const std::string& path, const std::string& sha, bool answered_201,
               Findings& findings) {
  const std::string project = c.projectName("files");
  auto list = c.api().get("/projects/" + project + "/files");
  if (list.status != 200) {
    findings.add("GET files answered " + std::to_string(list.status) + ": " + list.body);
    return;
  }
  auto body = list.json();
  const nlohmann::json* listed = nullptr;
  for (const auto& f : body["files"])
    if (f.value("path", "") == path) listed = &f;
  auto served = sendToHost(c.baseUrl(), c.host("files"), "GET", "/_files/" + path, {}, "", 60000);
  if (listed) {
    if (listed->value("bytes", int64_t{-1}) != static_cast<int64_t>(kFileBytes))
      findings.add(path + " is listed with " + listed->dump() + ", not " +
                   std::to_string(kFileBytes) + " bytes");
    if (served.status != 200)
      findings.add(path + " is listed but /_files/ answered " + std::to_string(served.status));
    else if (sha256Hex(served.body) != sha)
      findings.add(path + " is listed but served " + std::to_string(served.body.size()) +
                   " bytes with another SHA-256");
  } else {
    if (answered_201) findings.add(path + " was answered 201 but is not listed");
    if (served.status != 404)
      findings.add(path + " is not listed but /_files/ answered " + std::to_string(served.status) +
                   " (" + std::to_string(served.body.size()) + " bytes)");
  }
}

}  // namespace

TEST(FaultFileUpload, KilledOrStoppedBerthdLeavesTheFileAbsentOrComplete) {
  for (FaultMode mode : faultModes()) {
    FaultCase c("file_upload", mode);
    c.createProject("files");
    const std::string payload = randomBytes(kFileBytes, c.random().engine());
    const std::string sha = sha256Hex(payload);
    const std::string route = "/projects/" + c.projectName("files") + "/files/";
    auto upload = [&](const std::string& path, long timeout_ms) {
      return rawWithTimeout(c, "POST", route + path, payload,
                            {"Content-Type: application/octet-stream"}, timeout_ms);
    };
    HttpResult warm;
    milliseconds unfaulted = measure([&] { warm = upload("warm.bin", 120000); });
    ASSERT_EQ(warm.status, 201) << warm.body << warm.error;
    for (int round = 0; round < faultRounds(); ++round) {
      const std::string path = "f" + std::to_string(round) + ".bin";
      milliseconds at = c.random().pointWithin(unfaulted);
      FaultRun run =
          c.strike([&] { return upload(path, c.clientTimeoutMs(at, unfaulted.count())); }, at);
      Findings findings;
      // After a stop berthd may still be finishing the upload: the spool empties when it is
      // done (waited for by checkNoLeftoverFiles), and either state is valid at every moment.
      checkNoLeftoverFiles(c.server().dataDir(), findings);
      checkFile(c, path, sha, run.answer.status == 201, findings);
      checkFile(c, "warm.bin", sha, true, findings);
      c.finishPoint(findings, describePoint(round, run));
    }
    EXPECT_EQ(c.tally().inconsistent(), 0) << "seed " << faultSeed();
  }
}
