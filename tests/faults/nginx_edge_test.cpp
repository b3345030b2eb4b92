// ctest-label: e2e
// berthd's nginx killed (SIGKILL to the master) or stopped (SIGSTOP to the master and its
// workers, longer than the client's timeout) at a random point of a 30 MB file upload while a
// Node app is being requested all along. berthd notices a dead master and starts its edge
// again; after the fault the file is absent or whole (listed with its size and served with
// its bytes, never a part of it), no spooled body or storage temporary is left behind, the
// app answers again and every route answers.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "edge/edge_pins.hpp"
#include "faults/fault_cases_support.hpp"
#include "projects/api_support.hpp"
#include "support/process_pause.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

const char* const kApp = R"JS(
require('http').createServer((req, res) => {
  res.setHeader('cache-control', 'no-store');
  res.end('app ' + req.url + '\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

constexpr size_t kFileBytes = 30u << 20;

// The round's file: its bytes say which round made them, so a mix of two uploads shows.
std::string fileFor(int round) {
  std::string body(kFileBytes, '\0');
  for (size_t i = 0; i < body.size(); ++i)
    body[i] = static_cast<char>('a' + (i / 4096 + static_cast<size_t>(round)) % 26);
  return body;
}

class NginxFaults : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime"};
    options.extra_yaml = secretsKeyYaml() + "runtime:\n  idle_stop_seconds: 600\n";
    server = std::make_unique<BerthdProcess>(options);
    server->start();
    owner = makeAccount(*server, GetParam() == Mode::Kill ? "ngxkill" : "ngxstop");
    mustCreate(api(), "edge");
    project = projectName("edge", owner.slug);
    deployLive(api(), project, nodeRelease(kApp));
  }
  void TearDown() override {
    if (server) stopCleanly(*server);
  }
  ApiClient api() const { return server->api(owner.token); }

  HttpResult upload(const std::string& path, const std::string& body, long timeout_ms) const {
    HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = server->baseUrl() + "/projects/" + project + "/files/" + path;
    spec.body = body;
    spec.headers = {"Content-Type: application/octet-stream",
                    "Authorization: Bearer " + owner.token};
    spec.timeout_ms = timeout_ms;
    return send(spec);
  }
  // The file as listed: null when absent.
  json listedFile(const std::string& path) const {
    auto r = api().get("/projects/" + project + "/files");
    if (r.status != 200) return json{{"error", r.body}};
    json files = r.json().at("files");
    for (const auto& f : files)
      if (f.at("path") == path) return f;
    return nullptr;
  }

  std::unique_ptr<BerthdProcess> server;
  Account owner;
  std::string project;
};

TEST_P(NginxFaults, AnUploadIsWholeOrAbsentAndTheEdgeComesBack) {
  const Mode mode = GetParam();
  FaultPlan plan("nginx-upload-and-traffic", mode);
  FaultTally tally("nginx-upload-and-traffic", mode);
  for (int round = 1; round <= plan.rounds(); ++round) {
    const std::string path = "round" + std::to_string(round) + ".bin";
    const std::string body = fileFor(round);
    const pid_t master = nginxMasterPid(server->dataDir());
    ASSERT_GT(master, 0);

    // App traffic all along the round.
    std::atomic<bool> traffic_on{true};
    std::thread traffic([&] {
      while (traffic_on) {
        onHost(*server, project, "/traffic", 2000);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    std::atomic<long> answered{-1};
    std::thread uploading([&] { answered = upload(path, body, 3000).status; });
    const auto kill_at = plan.delay(600);
    std::this_thread::sleep_for(kill_at);
    if (mode == Mode::Kill) {
      ::kill(master, SIGKILL);
      // berthd's supervisor notices and starts another master.
      EXPECT_TRUE(eventually(
          [&] {
            pid_t now = nginxMasterPid(server->dataDir());
            return now > 0 && now != master && ::kill(now, 0) == 0;
          },
          std::chrono::seconds(20)))
          << "round " << round << ": berthd did not start its edge again";
    } else {
      std::vector<std::unique_ptr<ProcessPause>> paused;
      paused.push_back(std::make_unique<ProcessPause>(master));
      for (pid_t worker : berth::core::nginxServingWorkers(master)) {
        try {
          paused.push_back(std::make_unique<ProcessPause>(worker));
        } catch (const std::exception&) {
          // A worker that ended between the listing and its SIGSTOP.
        }
      }
      std::this_thread::sleep_for(stopDuration());
    }
    uploading.join();
    std::string wrong;

    // The app answers again.
    HttpResult app;
    if (!eventually(
            [&] {
              app = onHost(*server, project, "/after", 5000);
              return app.status == 200;
            },
            std::chrono::seconds(20)))
      wrong +=
          "the app does not answer: " + std::to_string(app.status) + app.body + app.error + "\n";
    traffic_on = false;
    traffic.join();

    // The file: whole or absent, as listed and as served.
    json listed = listedFile(path);
    if (answered == 201 && listed.is_null()) wrong += "an upload answered 201 is not listed\n";
    if (listed.is_object() && listed.contains("error"))
      wrong += "the files do not list: " + listed.dump() + "\n";
    auto served = onHost(*server, project, "/_files/" + path, 20000);
    if (listed.is_null() && served.status != 404)
      wrong += "an unlisted file is served: " + std::to_string(served.status) + "\n";
    if (listed.is_object() && !listed.contains("error")) {
      if (listed.value("bytes", int64_t{0}) != static_cast<int64_t>(kFileBytes))
        wrong += "listed with another size: " + listed.dump() + "\n";
      if (served.status != 200 || served.body != body)
        wrong += "served other bytes than uploaded: " + std::to_string(served.status) + ", " +
                 std::to_string(served.body.size()) + " bytes\n";
    }

    // Nothing half-made left: the edge's spooled bodies, the store's temporaries.
    wrong += leftovers(server->dataDir());

    const std::string failing = routesAnswer(*server, owner.token, {project});
    wrong += failing;
    EXPECT_EQ(wrong, "") << "round " << round << " (" << modeName(mode) << " at " << kill_at.count()
                         << " ms, upload answered " << answered << ")";
    recordPoint(tally, wrong,
                "round " + std::to_string(round) + " at " + std::to_string(kill_at.count()) +
                    " ms, upload answered " + std::to_string(answered));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, NginxFaults, ::testing::Values(Mode::Kill, Mode::Stop),
                         [](const auto& info) { return std::string(modeName(info.param)); });

}  // namespace
