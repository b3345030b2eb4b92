// The supervisor's side of replacing an app under its requests, with real node processes:
// callers waiting for a start that a stop (a restart) or a retirement ended hear
// `superseded` (berthd stopping is no such thing), and a running app being stopped is drained
// first: while a connection to it is open it is not signalled, and its port is not given out.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "process_supervisor.hpp"
#include "readiness.hpp"
#include "support/eventually.hpp"

namespace fs = std::filesystem;
using namespace berth::runtime;
using namespace std::chrono_literals;

namespace {

constexpr uid_t kTestUid = 200777;  // no account needed: apps run as numeric ids

constexpr const char* kServer = R"JS(
require('http').createServer((q, s) => s.end('hi\n')).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

// Polled every 10 ms for 30 s at most.
template <typename Condition>
bool eventually(Condition done) {
  return berth::testing::eventually(done, 30s, 10ms);
}

int connectTo(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

class AppDrain : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-drain-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    ::chmod(dir_.c_str(), 0755);
    std::ofstream(dir_ / "server.js") << kServer;
    ::chmod((dir_ / "server.js").c_str(), 0644);
  }
  void TearDown() override { fs::remove_all(dir_); }

  AppSpec spec(std::vector<std::string> argv = {"node", "server.js"}) {
    AppSpec s;
    s.project = "demo";
    s.argv = std::move(argv);
    s.release_dir = dir_.string();
    if (::geteuid() == 0) s.run_as = RunAs{kTestUid, kTestUid};
    s.start_timeout = 20s;
    s.stop_grace = 2s;
    return s;
  }

  // Starts an app that never listens, waits a little, ends it with `end`; the outcome its
  // waiter heard.
  template <typename End>
  StartOutcome endedStart(End end) {
    std::mutex m;
    std::optional<StartOutcome> heard;
    {
      auto app = std::make_unique<AppProcess>(spec({"sleep", "30"}));
      app->start([&](const StartOutcome& o) {
        std::lock_guard lock(m);
        heard = o;
      });
      std::this_thread::sleep_for(200ms);
      end(app);
    }
    EXPECT_TRUE(eventually([&] {
      std::lock_guard lock(m);
      return heard.has_value();
    }));
    std::lock_guard lock(m);
    return heard.value_or(StartOutcome{});
  }

  fs::path dir_;
};

TEST_F(AppDrain, AStartEndedByAStopOrARetirementIsSupersededOneEndedByShutdownIsNot) {
  auto stopped = endedStart([](auto& app) { app->stop(); });
  EXPECT_FALSE(stopped.ready);
  EXPECT_TRUE(stopped.superseded) << stopped.error;
  auto retired = endedStart([](auto& app) {
    app->retire();
    app.reset();
  });
  EXPECT_FALSE(retired.ready);
  EXPECT_TRUE(retired.superseded) << retired.error;
  auto shut = endedStart([](auto& app) { app.reset(); });
  EXPECT_FALSE(shut.ready);
  EXPECT_FALSE(shut.superseded) << shut.error;
}

TEST_F(AppDrain, AStopWaitsForAnOpenConnectionAndGivesThePortOutNoMore) {
  auto s = spec();
  s.drain_timeout = 20s;
  AppProcess app(s);
  auto outcome = app.startAndWait();
  ASSERT_TRUE(outcome.ready) << outcome.error;
  const int fd = connectTo(outcome.port);
  ASSERT_GE(fd, 0);
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    app.stop();
    stopped = true;
  });
  std::this_thread::sleep_for(1500ms);
  EXPECT_FALSE(stopped.load());
  EXPECT_TRUE(acceptsConnections(outcome.port));  // not signalled yet
  EXPECT_EQ(app.port(), 0);                       // but handed to nobody
  ::close(fd);
  EXPECT_TRUE(eventually([&] { return stopped.load(); }));
  stopper.join();
  EXPECT_EQ(app.state(), AppState::Stopped);
  EXPECT_FALSE(acceptsConnections(outcome.port));
}

TEST_F(AppDrain, TheDrainIsBoundedByItsTimeout) {
  auto s = spec();
  s.drain_timeout = 1s;
  AppProcess app(s);
  auto outcome = app.startAndWait();
  ASSERT_TRUE(outcome.ready) << outcome.error;
  const int fd = connectTo(outcome.port);
  ASSERT_GE(fd, 0);
  const auto began = std::chrono::steady_clock::now();
  app.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - began, 5s);
  EXPECT_EQ(app.state(), AppState::Stopped);
  ::close(fd);
}

}  // namespace
