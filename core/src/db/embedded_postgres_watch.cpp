#include "db/embedded_postgres_watch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "log/logging.hpp"

namespace berth::core {

bool embeddedPostmasterRuns(const std::string& dir) {
  std::ifstream pid_file(dir + "/data/postmaster.pid");
  long pid = 0;
  if (!(pid_file >> pid) || pid <= 0) return false;
  // read(2): a process ending meanwhile makes the read fail, which an ifstream would throw.
  const std::string stat_path = "/proc/" + std::to_string(pid) + "/stat";
  int fd = ::open(stat_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[512] = {};
  ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return false;
  const std::string stat(buffer, static_cast<size_t>(n));
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  const char state = stat[close + 2];
  return state != 'Z' && state != 'X';
}

EmbeddedPostgresWatch::EmbeddedPostgresWatch(EmbeddedPostgres& cluster, std::string dir,
                                             std::chrono::milliseconds period)
    : cluster_(cluster), dir_(std::move(dir)), period_(period), thread_([this] { run(); }) {}

EmbeddedPostgresWatch::~EmbeddedPostgresWatch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void EmbeddedPostgresWatch::run() {
  auto logger = getLogger("db");
  std::chrono::milliseconds wait = period_;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, wait, [this] { return stopping_; })) {
    wait = period_;
    if (embeddedPostmasterRuns(dir_)) continue;
    logLine(*logger, spdlog::level::err, "", "",
            "the embedded PostgreSQL under " + dir_ + " is not running; starting it again");
    try {
      cluster_.start();
      logLine(*logger, spdlog::level::warn, "", "",
              "the embedded PostgreSQL runs again on port " + std::to_string(cluster_.port()));
    } catch (const std::exception& e) {
      // Loudly, every time, and not in a tight loop: the next try in ten periods.
      logLine(*logger, spdlog::level::err, "", "",
              std::string("cannot start the embedded PostgreSQL again: ") + e.what());
      wait = period_ * 10;
    }
  }
}

}  // namespace berth::core
