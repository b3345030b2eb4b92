// Account, projects, secrets, domains, a project's whole life, and deliberate bad requests.
#include <chrono>
#include <thread>

#include "soak/ops.hpp"
#include "soak/requests.hpp"

namespace berth::soak {

namespace {

using nlohmann::json;

std::string unique(World& world) {
  return std::to_string(world.counter.fetch_add(1));
}

}  // namespace

void opMe(const Client& c, World&, ClientState&) {
  c.call(get("account", "/me"));
}

void opTokens(const Client& c, World& world, ClientState&) {
  auto made =
      c.call(jsonRequest("account", "POST", "/tokens",
                         {{"name", "soak-" + unique(world)}, {"expires_in_days", 1}}, {201}));
  auto body = made.json();
  if (made.status == 201 && body.is_object() && body.contains("id"))
    c.call(del("account", "/tokens/" + body["id"].get<std::string>(), {204}));
  c.call(get("account", "/tokens"));
}

void opTeamsAndTemplates(const Client& c, World&, ClientState& s) {
  if (s.pick(2) == 0)
    c.call(get("account", "/teams"));
  else
    c.call(get("templates", "/app-templates"));
}

void opProjectsRead(const Client& c, World& world, ClientState& s) {
  switch (s.pick(5)) {
    case 0:
      c.call(get("projects", "/projects"));
      break;
    case 1: {
      const std::string* all[] = {&world.static_site, &world.node_hot, &world.php_hot,
                                  &world.node_cold,   &world.php_cold, &world.data};
      c.call(get("projects", "/projects/" + *all[s.pick(6)]));
      break;
    }
    case 2:
      c.call(get("projects", "/projects/available?name=idea" + std::to_string(s.pick(1000))));
      break;
    case 3:
      c.call(get("projects", "/projects/suggest"));
      break;
    default: {
      Request r = get("projects", "/regions");
      r.token = false;
      c.call(r);
    }
  }
}

void opProjectPatch(const Client& c, World& world, ClientState& s) {
  // Changes nothing running; cache_ttl on the hot Node app moves its cached answers' lifetime.
  const std::string& project = s.pick(2) ? world.data : world.node_hot;
  c.call(jsonRequest(
      "projects", "PATCH", "/projects/" + project,
      {{"cache_ttl", 30 + s.pick(60)}, {"region", s.pick(2) ? "eu-west" : "us-central"}}, {200}));
}

// A project made, used a little (a secret, a file, a table, a static release served) and
// removed: what a leak per project (a pool, a watcher, an edge rule) would pile up with.
void opProjectLife(const Client& c, World& world, ClientState&) {
  auto made = c.call(
      jsonRequest("projects", "POST", "/projects", {{"name", "life" + unique(world)}}, {201}));
  auto body = made.json();
  if (made.status != 201 || !body.is_object()) return;
  const std::string name = body.value("name", "");
  const std::string base = "/projects/" + name;
  c.call(jsonRequest("secrets", "POST", base + "/secrets", {{"name", "TOKEN"}, {"value", "x"}},
                     {201}));
  Request file;
  file.family = "files";
  file.method = "POST";
  file.path = base + "/files/hello.txt";
  file.body = "hello from a short-lived project\n";
  file.expect = {201};
  c.call(file);
  c.call(jsonRequest("sql", "POST", base + "/sql",
                     {{"sql", "create table t (id serial primary key, v text)"}}, {200}));
  c.call(jsonRequest("rows", "POST", base + "/tables/t/rows", {{"v", "one"}}, {201}));
  Request up;
  up.family = "releases";
  up.method = "POST";
  up.path = base + "/deploys";
  up.body = archiveFor(world, world.static_site, 1);
  up.headers = {"Content-Type: application/gzip"};
  up.expect = {202};
  auto uploaded = c.call(up);
  auto release = uploaded.json();
  if (uploaded.status == 202 && release.is_object()) {
    const std::string id = release.value("id", "");
    for (int i = 0; i < 240; ++i) {
      auto one = c.call(get("releases", base + "/deploys/" + id)).json();
      if (one.is_object() && one.value("status", "") != "building") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    c.call(onHost("app:static", name, "/", "soak-static"));
    c.call(onHost("app:files", name, "/_files/hello.txt", "short-lived"));
  }
  c.call(del("projects", base, {204}));
  Request gone = get("projects", base, {404});
  gone.provoked = true;  // asked on purpose: it must be gone
  c.call(gone);
}

void opSecrets(const Client& c, World& world, ClientState& s) {
  const std::string base = "/projects/" + world.data + "/secrets";
  const std::string name = "SOAK_C" + std::to_string(s.id) + "_" + std::to_string(s.pick(4));
  switch (s.pick(3)) {
    case 0:
      c.call(jsonRequest("secrets", "POST", base,
                         {{"name", name}, {"value", "v" + std::to_string(s.n)}}, {201}));
      break;
    case 1:
      c.call(get("secrets", base));
      break;
    default:
      c.call(del("secrets", base + "/" + name, {204, 404}));
  }
}

// A secret set on the hot Node app restarts it while other clients send it traffic: none of
// their requests may fail.
void opSecretRestart(const Client& c, World& world, ClientState& s) {
  c.call(jsonRequest("secrets", "POST", "/projects/" + world.node_hot + "/secrets",
                     {{"name", "GREETING"}, {"value", "hello " + std::to_string(s.n)}}, {201}));
}

void opDomains(const Client& c, World& world, ClientState& s) {
  const std::string base = "/projects/" + world.data + "/domains";
  const std::string host =
      "d" + std::to_string(s.id) + "-" + std::to_string(s.pick(3)) + ".soak.example.com";
  switch (s.pick(3)) {
    case 0:
      c.call(jsonRequest("domains", "POST", base, {{"host", host}}, {201, 409}));
      break;
    case 1:
      c.call(get("domains", base));
      break;
    default:
      c.call(del("domains", base + "/" + host, {204, 404}));
  }
}

void opBadRequest(const Client& c, World& world, ClientState& s) {
  const std::string data = "/projects/" + world.data;
  Request r;
  switch (s.pick(8)) {
    case 0:
      r = get("bad requests", "/projects/nosuch-" + world.slug, {404});
      break;
    case 1:
      r = jsonRequest("bad requests", "POST", "/projects", {{"name", "-bad-"}}, {400});
      break;
    case 2:
      r = get("bad requests", data + "/tables/nosuch/rows", {400});
      break;
    case 3:
      r = jsonRequest("bad requests", "POST", data + "/query", {{"sql", ""}}, {400});
      break;
    case 4:
      r = jsonRequest("bad requests", "POST", data + "/schedules",
                      {{"name", "bad"}, {"spec", "61 * * * *"}, {"path", "/"}}, {400});
      break;
    case 5:
      r = jsonRequest("bad requests", "POST", data + "/query", {{"sql", "select 1"}}, {415});
      r.headers.clear();
      break;
    case 6:
      r = get("bad requests", "/projects", {401});
      r.token = false;
      break;
    default:
      r = onHost("bad requests", world.data, "/_data/notes", "");
      r.expect = {401};
  }
  r.provoked = true;
  c.call(r);
}

}  // namespace berth::soak
