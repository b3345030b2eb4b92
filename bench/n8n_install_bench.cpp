// bench/n8n_install: the n8n starter app on a fresh berthd, timed the way a user meets it.
// - cold install (n8n's shared tree built for this server, then the project set up) next to a
//   second project's install from the tree already built;
// - the first byte of a webhook call to an n8n the runtime stopped when idle (the call wakes it
//   and is held until n8n is ready) next to the same call to the running n8n.
// Needs the npm registry. Usage: build/bench/bench_n8n_install [idle rounds, default 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "n8n/n8n_editor.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::n8n_editor;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds from the install request until the install is not "installing" any more.
double timedInstall(const BerthdProcess& server, const ApiClient& api, const std::string& name) {
  const std::string path = "/projects/" + name + "/app-templates/n8n/install";
  const auto start = Clock::now();
  auto r = api.post(path, nlohmann::json::object());
  if (r.status != 200 && r.status != 202) {
    std::fprintf(stderr, "install of %s: %ld %s\n", name.c_str(), r.status, r.body.c_str());
    std::exit(1);
  }
  std::string status = r.status == 200 ? "installed" : "installing";
  while (status == "installing") {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    status = api.get(path).json().value("status", "");
  }
  const double seconds = secondsSince(start);
  if (status != "installed") {
    std::fprintf(stderr, "install of %s: %s\n", name.c_str(), api.get(path).body.c_str());
    std::exit(1);
  }
  (void)server;
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  BerthdOptions options;
  options.plugins = {"projects", "storage", "runtime", "templates", "n8n"};
  options.extra_yaml = secretsKeyYaml() +
                       "runtime:\n"
                       "  idle_stop_seconds: 15\n"
                       "  stop_grace_seconds: 20\n"
                       "templates:\n"
                       "  answer_within_seconds: 1\n";
  BerthdProcess server(options);
  server.start();
  Account owner = makeAccount(server, "n8nbench");
  ApiClient api = server.api(owner.token);
  mustCreate(api, "cold");
  mustCreate(api, "warm");
  const std::string cold = projectName("cold", owner.slug);
  const std::string warm = projectName("warm", owner.slug);

  const double cold_install = timedInstall(server, api, cold);
  const double second_install = timedInstall(server, api, warm);
  std::printf("cold install (tree built)      %8.1f s\n", cold_install);
  std::printf("second install (tree ready)    %8.1f s   ratio cold/second %.0fx\n", second_install,
              cold_install / second_install);

  const auto first_start = Clock::now();
  auto editor = onN8n(server, cold, "GET", "/");
  std::printf("first start to the editor page %8.1f s   (status %ld)\n", secondsSince(first_start),
              editor.status);
  const std::string cookie = createOwner(server, cold);
  activateWebhookWorkflow(server, cold, cookie);
  firstWebhookAnswer(server, cold);

  std::vector<double> running, after_idle;
  for (int i = 0; i < 9; ++i) {
    const auto t = Clock::now();
    callWebhook(server, cold);
    running.push_back(secondsSince(t) * 1000);
  }
  auto state = [&] { return api.get("/projects/" + cold).json().value("state", ""); };
  for (int i = 0; i < rounds; ++i) {
    eventually([&] { return state() == "stopped"; }, std::chrono::minutes(3));
    const auto t = Clock::now();
    auto r = callWebhook(server, cold);
    after_idle.push_back(secondsSince(t) * 1000);
    if (r.body != kWebhookAnswer)
      std::fprintf(stderr, "round %d: %ld %s\n", i, r.status, r.body.c_str());
  }
  std::printf("webhook, n8n running           %8.0f ms median of %zu\n", median(running),
              running.size());
  std::printf("webhook after an idle stop     %8.0f ms median of %zu (%.0f..%.0f)   ratio %.0fx\n",
              median(after_idle), after_idle.size(),
              *std::min_element(after_idle.begin(), after_idle.end()),
              *std::max_element(after_idle.begin(), after_idle.end()),
              median(after_idle) / median(running));
  server.terminate();
  return 0;
}
