#include "soak/setup.hpp"

#include <stdexcept>

#include "soak/ops.hpp"
#include "soak/requests.hpp"

namespace berth::soak {

namespace {

using nlohmann::json;

constexpr const char* kPermanent = "soak permanent";

std::string create(const Client& c, const std::string& label) {
  auto made = c.must(jsonRequest("setup", "POST", "/projects", {{"name", label}}, {201}));
  return made.json().at("name").get<std::string>();
}

}  // namespace

void setUp(const Client& c, World& world) {
  world.static_site = create(c, "site");
  world.node_hot = create(c, "nodehot");
  world.php_hot = create(c, "phphot");
  world.node_cold = create(c, "nodecold");
  world.php_cold = create(c, "phpcold");
  world.data = create(c, "data");

  for (const std::string* p :
       {&world.static_site, &world.node_hot, &world.php_hot, &world.node_cold, &world.php_cold}) {
    world.deploying.emplace(*p, std::make_unique<std::mutex>());
    world.version[*p] = 2;
    if (deployAndWait(c, world, *p, archiveFor(world, *p, 1)).empty())
      throw std::runtime_error("the first release of " + *p + " did not go live");
    c.must(onHost("setup", *p, "/", markerOf(world, *p)));
  }

  const std::string data = "/projects/" + world.data;
  c.must(jsonRequest("setup", "POST", data + "/sql",
                     {{"sql",
                       "create table notes (id bigserial primary key, body text not null, n int, "
                       "at timestamptz not null default now()); create index on notes (n)"}},
                     {200}));
  c.must(jsonRequest("setup", "PUT", data + "/data-api/tables/notes",
                     {{"read", true}, {"create", true}}, {200}));
  world.data_key = c.must(get("setup", data + "/data-api")).json().at("key").get<std::string>();
  json rows = json::array();
  for (int i = 0; i < 50; ++i) rows.push_back({{"body", "note " + std::to_string(i)}, {"n", i}});
  auto made = c.must(jsonRequest("setup", "POST", data + "/tables/notes/rows", rows, {201}));
  world.last_note_id = made.json().back().at("id").get<long>();

  for (const std::string* p :
       {&world.static_site, &world.node_hot, &world.php_hot, &world.php_cold})
    c.must(jsonRequest("setup", "POST", "/projects/" + *p + "/schedules",
                       {{"name", kPermanent},
                        {"spec", "* * * * *"},
                        {"path", *p == world.static_site ? "/" : "/tick"}},
                       {201}));
}

std::vector<std::pair<std::string, std::string>> permanentSchedules(const Client& c, const World&) {
  std::vector<std::pair<std::string, std::string>> out;
  Request list = get("report", "/schedules");
  list.timeout_ms = 20000;
  auto listed = c.call(list).json();
  if (!listed.is_object()) return out;
  const json schedules = listed["schedules"];  // kept: the loop reads it
  for (const auto& s : schedules)
    if (s.value("name", "") == kPermanent)
      out.push_back({s.value("project", ""), s.value("id", "")});
  return out;
}

}  // namespace berth::soak
