// AccessLogTail on a file the test writes as nginx does (appends of whole buffers). The line
// parser is the SDK's (tests/sdk/access_line_test.cpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "edge/edge.hpp"
#include "support/berthd_process.hpp"
#include "support/eventually.hpp"

using namespace berth::core;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A local effect (a file, a process), polled every 20 ms for 15 s at most.
bool eventually(const std::function<bool()>& condition, std::chrono::seconds limit = 15s) {
  return berth::testing::eventually(condition, limit, 20ms);
}

std::string line(const std::string& id) {
  return "{\"request_id\":\"" + id +
         "\",\"host\":\"a.localhost\",\"method\":\"GET\",\"path\":\"/\",\"status\":200,"
         "\"seconds\":0.001,\"bytes\":1,\"edge\":\"project\",\"remote\":\"127.0.0.1\",\"at\":1}\n";
}

// nginx's side: a file opened for appending, reopened on SIGUSR1 (here: reopen()).
class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)) { reopen(); }
  ~Writer() { ::close(fd_); }
  void reopen() {
    std::lock_guard lock(mutex_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  void write(const std::string& text) {
    std::lock_guard lock(mutex_);
    ASSERT_EQ(::write(fd_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

 private:
  std::string path_;
  std::mutex mutex_;
  int fd_ = -1;
};

struct Seen {
  std::mutex mutex;
  std::vector<std::string> ids;
  AccessLogTail::Callback callback() {
    return [this](std::string_view line) {
      AccessEntry entry;
      ASSERT_TRUE(parseAccessLine(line, entry)) << line;
      std::lock_guard lock(mutex);
      ids.push_back(entry.request_id);
    };
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return ids;
  }
  size_t count() { return get().size(); }
};

}  // namespace

TEST(AccessLogTail, ReadsWholeLinesOnlyAndAfterARestartGoesOnWhereItStopped) {
  const std::string dir = berth::testing::makeTempDir("berth-access-log-");
  const std::string path = dir + "/access.log";
  Seen seen;
  {
    AccessLogTail tail(path, seen.callback());
    tail.start();
    Writer nginx(path);
    nginx.write(line("a") + line("b"));
    ASSERT_TRUE(eventually([&] { return seen.count() == 2; }));
    // A buffer may end in the middle of a line: it counts once it is whole.
    std::string c = line("c");
    nginx.write(c.substr(0, 10));
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(seen.count(), 2u);
    nginx.write(c.substr(10) + "not json\n" + line("d").substr(0, 5));
    ASSERT_TRUE(eventually([&] { return seen.count() == 3; }));
    tail.stop();
    // Written while berthd was not reading (stopped, or crashed): read at the next start.
    nginx.write(line("d").substr(5) + line("e"));
  }
  AccessLogTail again(path, seen.callback());
  again.start();
  ASSERT_TRUE(eventually([&] { return seen.count() == 5; }));
  again.stop();
  EXPECT_EQ(seen.get(), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  berth::testing::removeTree(dir);
}

TEST(AccessLogTail, RotatesWithoutLosingALine) {
  const std::string dir = berth::testing::makeTempDir("berth-access-log-");
  const std::string path = dir + "/access.log";
  Seen seen;
  AccessLogTail tail(path, seen.callback(), 4096);
  std::unique_ptr<Writer> nginx;
  std::atomic<int> reopens{0};
  // nginx reopens a moment after the signal: lines written meanwhile go to the old file.
  std::thread reopener;
  tail.setReopen([&] {
    ++reopens;
    if (reopener.joinable()) reopener.join();
    reopener = std::thread([&] {
      std::this_thread::sleep_for(100ms);
      nginx->reopen();
    });
  });
  tail.start();
  nginx = std::make_unique<Writer>(path);
  // Lines keep coming through two rotations (one at a time: the next waits until the old
  // file is done with).
  int written = 0;
  const auto limit = std::chrono::steady_clock::now() + 20s;
  while (reopens.load() < 2 && std::chrono::steady_clock::now() < limit) {
    std::string batch;
    for (int i = 0; i < 10; ++i) batch += line(std::to_string(written++));
    nginx->write(batch);
    std::this_thread::sleep_for(50ms);
  }
  for (int i = 0; i < 10; ++i) nginx->write(line(std::to_string(written++)));
  ASSERT_TRUE(eventually([&] { return seen.count() == static_cast<size_t>(written); }))
      << seen.count() << " of " << written;
  EXPECT_GE(reopens.load(), 2);
  // Each line once, in order.
  auto ids = seen.get();
  for (int i = 0; i < written; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], std::to_string(i));
  // The rotated file goes once nginx has moved on; the current one stays small.
  EXPECT_TRUE(eventually([&] { return !fs::exists(path + ".1"); }));
  tail.stop();
  if (reopener.joinable()) reopener.join();
  berth::testing::removeTree(dir);
}
