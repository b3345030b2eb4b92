// ctest-label: api (starts a real berthd)
// The core hands plugins NOTIFY on the control-plane database as hooks (<berth/pg_notify.hpp>),
// with a real PostgreSQL and the fixture plugin notifyprobe: a notification sent to its channel
// reaches its hook with the payload; when the core's listening connection is killed
// (pg_terminate_backend) the plugin hears "pg.not_listening" and then, once the core listens
// again, "pg.listening", and a notification sent after that reaches it again; a plugin cannot
// fire the core's "pg." events itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/listener_probe.hpp"

using namespace berth::testing;
using nlohmann::json;

namespace {

class ApiPgNotify : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"notifyprobe"};
    server = new BerthdProcess(options);
    server->start();
    db = new berth::core::Pool(server->databaseUrl(), 1, std::chrono::seconds(10));
  }
  static void TearDownTestSuite() {
    delete db;
    stopCleanly(*server);
    delete server;
  }

  static std::vector<std::string> events() {
    auto r = server->api().get("/notifyprobe/events");
    if (r.status != 200) throw std::runtime_error("GET events: " + r.body);
    return r.json().at("events").get<std::vector<std::string>>();
  }
  // Waits until the plugin has heard `event` `times` times; what it heard meanwhile.
  static std::vector<std::string> waitFor(const std::string& event, size_t times = 1) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::vector<std::string> heard;
    while (std::chrono::steady_clock::now() < deadline) {
      heard = events();
      if (static_cast<size_t>(std::count(heard.begin(), heard.end(), event)) >= times) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return heard;
  }
  static void notify(const std::string& channel, const std::string& payload) {
    db->exec("SELECT pg_notify($1, $2)", {channel, payload});
  }

  static inline BerthdProcess* server = nullptr;
  static inline berth::core::Pool* db = nullptr;
};

TEST_F(ApiPgNotify, ANotificationOnItsChannelReachesThePluginsHookWithItsPayload) {
  auto heard = waitFor("listening");
  ASSERT_EQ(heard.size(), 1u) << "it listens once at start: " << json(heard).dump();
  EXPECT_EQ(heard[0], "listening");

  notify("notify_probe", "project 42");
  notify("another_channel", "not for it");
  notify("notify_probe", "");
  heard = waitFor("notified:");
  EXPECT_EQ(heard, (std::vector<std::string>{"listening", "notified:project 42", "notified:"}))
      << "in order, and only its own channel's";
}

TEST_F(ApiPgNotify, AfterTheListenerIsKilledThePluginHearsNotListeningThenListeningAgain) {
  ASSERT_FALSE(waitFor("listening").empty());
  ListenerProbe probe(*db, "notify_probe");
  const std::string old_pid = probe.pid();
  ASSERT_FALSE(old_pid.empty()) << "the core's connection is named berth listen";
  const size_t listened = static_cast<size_t>(std::ranges::count(events(), "listening"));

  db->exec("SELECT pg_terminate_backend($1::int)", {old_pid});
  auto heard = waitFor("listening", listened + 1);
  ASSERT_EQ(std::ranges::count(heard, "listening"), static_cast<long>(listened + 1))
      << json(heard).dump();
  ASSERT_GE(heard.size(), 2u);
  EXPECT_EQ(heard[heard.size() - 2], "not_listening");
  EXPECT_EQ(heard.back(), "listening");
  EXPECT_NE(probe.pid(), old_pid) << "a new connection";

  notify("notify_probe", "after the cut");
  heard = waitFor("notified:after the cut");
  EXPECT_EQ(heard.back(), "notified:after the cut");
}

TEST_F(ApiPgNotify, APluginCannotFireTheCoresPgEvents) {
  for (const std::string event : {"pg.listening", "pg.not_listening", "pg.notify:notify_probe"}) {
    const size_t before = events().size();
    auto r = server->api().post("/notifyprobe/fire/" + event, json::object());
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json().value("fired", true), false) << event;
    EXPECT_EQ(r.json().value("status", 0), 403) << r.body;
    EXPECT_EQ(events().size(), before) << event << " reached the hook";
  }
}

}  // namespace
