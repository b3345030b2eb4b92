// ctest-label: e2e
// Project deletion (DELETE /projects/{name}) of a project with a live release, a stored file
// and a table, with berthd killed (SIGKILL) or stopped (SIGSTOP past the client's timeout, then
// SIGCONT) at random points: afterwards the project is either fully there (listed, its release
// served, its file served with its bytes, its rows there) or fully gone (not listed, nothing
// served, no database, role or folder left, its name free again); one answered 204 is gone.
#include <gtest/gtest.h>

#include "fault_case.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;

namespace {

const std::string kFile = "keep/data.bin";

struct Made {
  std::string index, file;
};

// A project with something in every plugin: a live static release, a stored file, a table.
Made makeProject(FaultCase& c, const std::string& label) {
  c.createProject(label);
  const std::string base = "/projects/" + c.projectName(label);
  Made made{"<p>site " + label + "</p>\n", randomBytes(256 * 1024, c.random().engine())};
  auto deploy = c.api().raw("POST", base + "/deploys", tarGz({{"index.html", made.index}}),
                            {"Content-Type: application/gzip"});
  if (deploy.status != 202) throw std::runtime_error("deploy: " + deploy.body + deploy.error);
  auto file = c.api().raw("POST", base + "/files/" + kFile, made.file,
                          {"Content-Type: application/octet-stream"});
  if (file.status != 201) throw std::runtime_error("file: " + file.body + file.error);
  auto sql = c.api().post(base + "/sql", {{"sql", "create table notes (id int primary key)"}});
  if (sql.status != 200) throw std::runtime_error("sql: " + sql.body);
  auto rows =
      c.api().post(base + "/tables/notes/rows", nlohmann::json::array({{{"id", 1}}, {{"id", 2}}}));
  if (rows.status != 201) throw std::runtime_error("rows: " + rows.body);
  // Until the release is live.
  for (int i = 0; i < 300; ++i) {
    auto site = sendToHost(c.baseUrl(), c.host(label), "GET", "/index.html");
    if (site.status == 200 && site.body == made.index) return made;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("the release of " + label + " did not go live");
}

void checkProject(FaultCase& c, const std::string& label, const Made& made, bool answered_204,
                  Findings& findings) {
  const std::string name = c.projectName(label);
  const std::string base = "/projects/" + name;
  auto listed = listedProjects(c.api(), findings);
  bool is_listed = std::find(listed.begin(), listed.end(), name) != listed.end();
  auto one = c.api().get(base);
  auto site = sendToHost(c.baseUrl(), c.host(label), "GET", "/index.html");
  auto file = sendToHost(c.baseUrl(), c.host(label), "GET", "/_files/" + kFile);
  if (is_listed) {
    if (answered_204) findings.add(name + " was answered 204 but is still listed");
    if (one.status != 200)
      findings.add(name + " is listed but GET answered " + std::to_string(one.status));
    if (site.status != 200 || site.body != made.index)
      findings.add(name + " is listed but its release answered " + std::to_string(site.status) +
                   ": " + site.body.substr(0, 200));
    if (file.status != 200 || file.body != made.file)
      findings.add(name + " is listed but its file answered " + std::to_string(file.status) +
                   " with " + std::to_string(file.body.size()) + " bytes");
    auto rows = c.api().get(base + "/tables/notes/rows");
    if (rows.status != 200 || rows.json().value("total", -1) != 2)
      findings.add(name + " is listed but its rows answered " + std::to_string(rows.status) + ": " +
                   rows.body);
    auto files = c.api().get(base + "/files");
    if (files.status != 200 || files.body.find(kFile) == std::string::npos)
      findings.add(name + " is listed but its file is not: " + files.body);
    auto releases = c.api().get(base + "/deploys");
    if (releases.status != 200 || releases.body.find("\"live\"") == std::string::npos)
      findings.add(name + " is listed but no release of it is live: " + releases.body);
    return;
  }
  if (one.status != 404)
    findings.add(name + " is not listed but GET answered " + std::to_string(one.status));
  if (site.status == 200 && site.body == made.index)
    findings.add(name + " is not listed but its release is still served");
  if (file.status == 200) findings.add(name + " is not listed but its file is still served");
  // Its name is free again, and a new project of that name starts empty.
  auto again = c.api().post("/projects", {{"name", label}});
  if (again.status != 201) {
    findings.add(name + " is gone but creating it again answered " + std::to_string(again.status) +
                 ": " + again.body);
    return;
  }
  auto files = c.api().get(base + "/files");
  if (files.body.find(kFile) != std::string::npos)
    findings.add("a new project called " + name + " lists the old one's file");
  auto del = c.api().del(base);
  if (del.status != 204)
    findings.add("deleting the new " + name + " answered " + std::to_string(del.status));
}

}  // namespace

TEST(FaultProjectDelete, KilledOrStoppedBerthdLeavesTheProjectWholeOrGone) {
  for (FaultMode mode : faultModes()) {
    FaultCase c("project_delete", mode);
    makeProject(c, "warm");
    HttpResult warm;
    milliseconds unfaulted =
        measure([&] { warm = c.api().del("/projects/" + c.projectName("warm")); });
    ASSERT_EQ(warm.status, 204) << warm.body << warm.error;
    for (int round = 0; round < faultRounds(); ++round) {
      const std::string label = "d" + std::to_string(round);
      Made made = makeProject(c, label);
      milliseconds at = c.random().pointWithin(unfaulted);
      FaultRun run = c.strike(
          [&] {
            HttpRequestSpec spec;
            spec.method = "DELETE";
            spec.url = c.api().base() + "/projects/" + c.projectName(label);
            spec.headers = {"Authorization: Bearer " + c.account().token};
            spec.timeout_ms = c.clientTimeoutMs(at, unfaulted.count());
            return send(spec);
          },
          at);
      Findings findings;
      if (mode == FaultMode::Stop) std::this_thread::sleep_for(std::chrono::seconds(1));
      checkProject(c, label, made, run.answer.status == 204, findings);
      c.finishPoint(findings, describePoint(round, run));
    }
    EXPECT_EQ(c.tally().inconsistent(), 0) << "seed " << faultSeed();
  }
}
