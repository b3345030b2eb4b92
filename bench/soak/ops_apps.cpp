// Stored files, releases, schedules and the apps' own traffic through the edge, and the wake
// of an idle app.
#include <chrono>
#include <thread>

#include "soak/apps.hpp"
#include "soak/ops.hpp"
#include "soak/requests.hpp"

namespace berth::soak {

namespace {

using nlohmann::json;

// The three projects that get new releases during the soak (the cold ones keep their first,
// so that each visit to them is a wake and not a restart).
const std::string& deployable(const World& world, ClientState& s) {
  switch (s.pick(3)) {
    case 0:
      return world.static_site;
    case 1:
      return world.node_hot;
    default:
      return world.php_hot;
  }
}

std::string randomBody(ClientState& s, size_t size) {
  std::string body(size, ' ');
  for (auto& ch : body) ch = static_cast<char>('a' + s.pick(26));
  return body;
}

}  // namespace

std::string markerOf(const World& world, const std::string& project) {
  if (project == world.static_site) return "soak-static";
  if (project == world.php_hot || project == world.php_cold) return "soak-php";
  return "soak-node";
}

std::string archiveFor(const World& world, const std::string& project, int version) {
  const std::string marker = markerOf(world, project);
  if (marker == "soak-static") return staticSite(version);
  if (marker == "soak-php") return phpApp(version);
  return nodeApp(version);
}

std::string deployAndWait(const Client& c, World& world, const std::string& project,
                          const std::string& archive) {
  std::lock_guard lock(*world.deploying.at(project));
  Request up;
  up.family = "releases";
  up.method = "POST";
  up.path = "/projects/" + project + "/deploys";
  up.body = archive;
  up.headers = {"Content-Type: application/gzip"};
  up.expect = {202};
  auto uploaded = c.call(up);
  auto release = uploaded.json();
  if (uploaded.status != 202 || !release.is_object()) return "";
  const std::string id = release.value("id", "");
  for (int i = 0; i < 600; ++i) {
    Request one = get("releases", up.path + "/" + id);
    auto answer = c.call(one);
    auto body = answer.json();
    const std::string status = body.is_object() ? body.value("status", "") : "";
    if (status == "live") return id;
    if (answer.status == 200 && status != "building") {
      one.body_has = "\"status\":\"live\"";  // records this end as a surprise, with the release
      c.call(one);
      return "";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return "";
}

void opFiles(const Client& c, World& world, ClientState& s) {
  const std::string base = "/projects/" + world.data + "/files/";
  const std::string path = "soak/c" + std::to_string(s.id) + "-" + std::to_string(s.pick(5)) +
                           (s.pick(2) ? ".txt" : ".json");
  const bool stored = s.files.count(path) > 0;
  switch (s.pick(stored ? 4 : 2)) {
    case 0: {
      Request up;
      up.family = "files";
      up.method = "POST";
      up.path = base + path;
      up.body = path.ends_with(".json") ? json{{"n", s.n}, {"pad", randomBody(s, 2000)}}.dump()
                                        : randomBody(s, 1000 + s.pick(60000));
      up.expect = {201};
      if (c.call(up).status == 201) s.files.insert(path);
      break;
    }
    case 1:
      c.call(get("files", "/projects/" + world.data + "/files"));
      break;
    case 2: {
      // Through the edge, as visitors get it.
      c.call(onHost("app:files", world.data, "/_files/" + path, ""));
      break;
    }
    default:
      if (c.call(del("files", base + path, {204})).status == 204) s.files.erase(path);
  }
}

void opDeploy(const Client& c, World& world, ClientState& s) {
  const std::string& project = deployable(world, s);
  const int version = world.version[project].fetch_add(1);
  deployAndWait(c, world, project, archiveFor(world, project, version));
}

void opReleasesRead(const Client& c, World& world, ClientState& s) {
  const std::string& project = deployable(world, s);
  switch (s.pick(4)) {
    case 0:
      c.call(get("releases", "/projects/" + project + "/deploys"));
      break;
    case 1:
      c.call(get("releases", "/deploys"));
      break;
    case 2:
      c.call(get("logs", "/projects/" + project + "/logs?limit=20"));
      break;
    default:
      c.call(del("logs", "/projects/" + project + "/cache", {204}));
  }
}

// The newest release that is not live (kept: runtime.keep_releases), live again.
void opPromote(const Client& c, World& world, ClientState& s) {
  const std::string& project = deployable(world, s);
  std::lock_guard lock(*world.deploying.at(project));
  auto listed = c.call(get("releases", "/projects/" + project + "/deploys")).json();
  if (!listed.is_object() || !listed["deploys"].is_array()) return;
  const json deploys = listed["deploys"];  // kept: the loop below reads it
  std::string previous;                    // the newest release that is kept but not live
  for (const auto& d : deploys)
    if (d.value("status", "") == "ready") {
      previous = d.value("id", "");
      break;
    }
  if (previous.empty()) return;
  Request r = get("releases", "/projects/" + project + "/deploys/" + previous + "/promote");
  r.method = "POST";
  c.call(r);
}

void opSchedules(const Client& c, World& world, ClientState& s) {
  switch (s.pick(5)) {
    case 0: {
      // Every minute, so that runs fire during the soak; a client keeps three at most.
      if (s.schedules.size() >= 3) {
        auto [project, id] = s.schedules.front();
        s.schedules.erase(s.schedules.begin());
        c.call(del("schedules", "/projects/" + project + "/schedules/" + id, {204}));
      }
      const std::string& project = deployable(world, s);
      auto made = c.call(jsonRequest(
          "schedules", "POST", "/projects/" + project + "/schedules",
          {{"name", "soak " + std::to_string(s.n)},
           {"spec", "* * * * *"},
           {"path",
            (project == world.static_site ? "/?client=" : "/tick?client=") + std::to_string(s.id)}},
          {201}));
      auto body = made.json();
      if (made.status == 201 && body.is_object())
        s.schedules.push_back({project, body.value("id", "")});
      break;
    }
    case 1:
      c.call(get("schedules", "/schedules"));
      break;
    case 2:
      c.call(get("schedules", "/projects/" + deployable(world, s) + "/schedules"));
      break;
    case 3:
      if (!s.schedules.empty()) {
        auto [project, id] = s.schedules[s.pick(static_cast<int>(s.schedules.size()))];
        c.call(jsonRequest("schedules", "PATCH", "/projects/" + project + "/schedules/" + id,
                           {{"enabled", s.pick(3) != 0}}, {204}));
      }
      break;
    default:
      if (!s.schedules.empty()) {
        auto [project, id] = s.schedules.back();
        c.call(get("schedules", "/projects/" + project + "/schedules/" + id + "/runs"));
      }
  }
}

void opStaticTraffic(const Client& c, World& world, ClientState& s) {
  const char* paths[] = {"/", "/about/", "/app.js", "/"};
  c.call(onHost("app:static", world.static_site, paths[s.pick(4)], "soak-static"));
}

void opNodeTraffic(const Client& c, World& world, ClientState& s) {
  switch (s.pick(4)) {
    case 0: {
      Request r = onHost("app:node", world.node_hot, "/submit", "soak-node posted");
      r.method = "POST";
      r.body = randomBody(s, 100 + s.pick(4000));
      r.headers = {"Content-Type: text/plain"};
      c.call(r);
      break;
    }
    case 1:
      c.call(onHost("app:node", world.node_hot, "/c/" + std::to_string(s.pick(10)), "soak-node"));
      break;
    default:
      c.call(onHost("app:node", world.node_hot, "/n/" + std::to_string(s.n), "soak-node"));
  }
}

void opPhpTraffic(const Client& c, World& world, ClientState& s) {
  switch (s.pick(4)) {
    case 0:
      c.call(onHost("app:php", world.php_hot, "/?db=1", "db 42"));
      break;
    case 1:
      c.call(onHost("app:php", world.php_hot, "/style.css", "soak-css"));
      break;
    default:
      c.call(
          onHost("app:php", world.php_hot, "/blog/post-" + std::to_string(s.pick(50)), "soak-php"));
  }
}

void wake(const Client& c, World& world, const std::string& project) {
  auto state = c.call(get("projects", "/projects/" + project)).json();
  const bool stopped = state.is_object() && state.value("state", "") == "stopped";
  ++world.wakes;
  if (stopped) ++world.wakes_from_stopped;
  c.call(onHost("app:wake", project, "/wake", markerOf(world, project)));
}

}  // namespace berth::soak
