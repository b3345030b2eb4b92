// ctest-label: e2e
// Project creation (POST /projects) with berthd killed (SIGKILL) or stopped (SIGSTOP past the
// client's timeout, then SIGCONT) at random points: afterwards the project is either fully there
// (listed, GET answers, its database answers, its hostname routes) or not listed at all, with
// no database, role or folder left and its name free again; one answered 201 is there.
#include <gtest/gtest.h>

#include "fault_case.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;

namespace {

void checkProject(FaultCase& c, const std::string& label, bool answered_201, Findings& findings) {
  const std::string name = c.projectName(label);
  auto listed = listedProjects(c.api(), findings);
  bool is_listed = std::find(listed.begin(), listed.end(), name) != listed.end();
  auto one = c.api().get("/projects/" + name);
  if (is_listed) {
    if (one.status != 200)
      findings.add(name + " is listed but GET answered " + std::to_string(one.status));
    auto tables = c.api().get("/projects/" + name + "/tables");
    if (tables.status != 200)
      findings.add(name + " is listed but its tables answered " + std::to_string(tables.status) +
                   ": " + tables.body);
    auto site = sendToHost(c.baseUrl(), c.host(label), "GET", "/");
    if (site.status == 0 || site.status >= 500)
      findings.add(name + " is listed but its host answered " + std::to_string(site.status) +
                   site.error);
    return;
  }
  if (answered_201) findings.add(name + " was answered 201 but is not listed");
  if (one.status != 404)
    findings.add(name + " is not listed but GET answered " + std::to_string(one.status));
  // Its name is free again: nothing half-made holds it.
  auto again = c.api().post("/projects", {{"name", label}});
  if (again.status != 201)
    findings.add(name + " is not listed but creating it again answered " +
                 std::to_string(again.status) + ": " + again.body);
}

}  // namespace

TEST(FaultProjectCreate, KilledOrStoppedBerthdLeavesTheProjectWholeOrGone) {
  for (FaultMode mode : faultModes()) {
    FaultCase c("project_create", mode);
    HttpResult warm;
    milliseconds unfaulted = measure([&] { warm = c.api().post("/projects", {{"name", "warm"}}); });
    ASSERT_EQ(warm.status, 201) << warm.body << warm.error;
    for (int round = 0; round < faultRounds(); ++round) {
      const std::string label = "c" + std::to_string(round);
      milliseconds at = c.random().pointWithin(unfaulted);
      FaultRun run = c.strike(
          [&] {
            HttpRequestSpec spec;
            spec.method = "POST";
            spec.url = c.api().base() + "/projects";
            spec.body = nlohmann::json{{"name", label}}.dump();
            spec.headers = {"Content-Type: application/json",
                            "Authorization: Bearer " + c.account().token};
            spec.timeout_ms = c.clientTimeoutMs(at, unfaulted.count());
            return send(spec);
          },
          at);
      Findings findings;
      if (mode == FaultMode::Stop) std::this_thread::sleep_for(std::chrono::seconds(1));
      checkProject(c, label, run.answer.status == 201, findings);
      c.finishPoint(findings, describePoint(round, run));
    }
    EXPECT_EQ(c.tally().inconsistent(), 0) << "seed " << faultSeed();
  }
}
