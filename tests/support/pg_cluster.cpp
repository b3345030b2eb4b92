#include "support/pg_cluster.hpp"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "db/pool.hpp"

namespace berth::testing {
namespace fs = std::filesystem;
namespace {

// Short on purpose: the postmaster's socket path must fit in 107 bytes.
constexpr const char* kDirTemplate = "/tmp/berth-pg.XXXXXX";
constexpr const char* kDirPrefix = "berth-pg.";
// The test process that made a cluster; lets a later run sweep clusters of crashed runs.
constexpr const char* kOwnerFile = "owner.pid";

std::optional<pid_t> readPid(const fs::path& file) {
  std::ifstream in(file);
  long pid = 0;
  if (in >> pid && pid > 0) return static_cast<pid_t>(pid);
  return std::nullopt;
}

struct ProcessInfo {
  pid_t pid = 0;
  pid_t parent = 0;
  char state = 0;
};

std::optional<ProcessInfo> processInfo(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  ProcessInfo info{pid, 0, 0};
  long parent = 0;
  if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &info.state, &parent) != 2) {
    return std::nullopt;
  }
  info.parent = static_cast<pid_t>(parent);
  return info;
}

// Zombies count as gone: they hold no shared memory, files or ports.
bool liveProcess(pid_t pid) {
  auto info = processInfo(pid);
  return info && info->state != 'Z' && info->state != 'X';
}

std::vector<pid_t> childrenOf(pid_t parent) {
  std::vector<pid_t> children;
  struct CloseDir {
    void operator()(DIR* dir) const { ::closedir(dir); }
  };
  std::unique_ptr<DIR, CloseDir> proc(::opendir("/proc"));
  if (!proc) return children;
  while (dirent* entry = ::readdir(proc.get())) {
    std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto info = processInfo(static_cast<pid_t>(std::stol(name)));
    if (info && info->parent == parent) children.push_back(info->pid);
  }
  return children;
}

// Every backend and auxiliary process is the postmaster's child in a session of its own
// (PostgreSQL calls setsid() in each), so a crash is simulated child by child. The postmaster is
// stopped first so that it forks no new child in the meantime.
void killPostmaster(const fs::path& data) {
  auto pid = readPid(data / "postmaster.pid");
  if (!pid || !liveProcess(*pid)) return;
  ::kill(*pid, SIGSTOP);
  std::vector<pid_t> victims = childrenOf(*pid);
  victims.push_back(*pid);
  for (pid_t victim : victims) ::kill(victim, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::any_of(victims.begin(), victims.end(), liveProcess)) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("the postmaster " + std::to_string(*pid) + " survived SIGKILL");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A test process that crashed never ran its destructors; its postmaster still runs. Clusters
// whose owner is alive belong to a concurrent run and are left alone.
void sweepAbandonedClusters() {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/tmp", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kDirPrefix, 0) != 0) continue;
    auto owner = readPid(entry.path() / kOwnerFile);
    if (!owner || liveProcess(*owner)) continue;
    try {
      killPostmaster(entry.path() / "data");
      fs::remove_all(entry.path(), error);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "could not sweep %s: %s\n", entry.path().c_str(), e.what());
    }
  }
}

std::string makeClusterDir() {
  static std::once_flag swept;
  std::call_once(swept, sweepAbandonedClusters);
  std::string dir = kDirTemplate;
  if (::mkdtemp(dir.data()) == nullptr) {
    throw std::runtime_error("mkdtemp " + std::string(kDirTemplate) + " failed");
  }
  std::ofstream(fs::path(dir) / kOwnerFile) << ::getpid() << "\n";
  return dir;
}

}  // namespace

PgCluster::PgCluster() : dir_(makeClusterDir()) {
  // A throwaway cluster outlives no machine crash, so it needs no fsync: its shutdown
  // checkpoint, which otherwise costs every test program seconds, is nearly free. Commits
  // still reach the kernel before they return (synchronous_commit stays on): tests that
  // SIGKILL the postmaster expect committed rows to survive.
  // Tests connect as any role without a password (trust on loopback).
  server_ = std::make_unique<core::EmbeddedPostgres>(dir_, core::DatabaseSettings{},
                                                     "-c fsync=off -c full_page_writes=off",
                                                     core::LoopbackAuth::Trust);
  // The free port we picked may be taken by someone else before the postmaster binds it: pick
  // another (initdb is not repeated).
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    try {
      server_->start();
      return;
    } catch (const std::exception&) {
      if (attempt == kAttempts) {
        server_.reset();
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
        throw;
      }
      std::error_code ignored;
      fs::remove(fs::path(dir_) / "port", ignored);
    }
  }
}

PgCluster::~PgCluster() {
  try {
    server_->stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "PgCluster: stop failed (%s), killing it\n", e.what());
    try {
      killPostmaster(fs::path(dir_) / "data");
    } catch (const std::exception& again) {
      std::fprintf(stderr, "PgCluster: %s\n", again.what());
    }
  }
  server_.reset();
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string PgCluster::url(const std::string& database) const {
  return "postgresql://berth@127.0.0.1:" + std::to_string(port()) + "/" + database;
}

int PgCluster::port() const {
  return server_->port();
}

std::string PgCluster::createDatabase(const std::string& prefix) {
  static const std::regex kPrefixShape("[a-z][a-z0-9_]{0,40}");
  if (!std::regex_match(prefix, kPrefixShape)) {
    throw std::invalid_argument("database prefix must match [a-z][a-z0-9_]*: " + prefix);
  }
  static std::atomic<int> counter{0};
  const std::string name = prefix + "_" + std::to_string(++counter);
  core::Pool admin(superuserUrl(), 1, std::chrono::seconds(30));
  admin.exec("CREATE DATABASE " + name);
  return url(name);
}

void PgCluster::stop() {
  server_->stop();
}

void PgCluster::start() {
  server_->start();
}

void PgCluster::kill() {
  killPostmaster(fs::path(dir_) / "data");
}

PgCluster& sharedCluster() {
  // spdlog's registry is made first so that it is destroyed after the cluster, whose teardown
  // may log.
  spdlog::default_logger();
  static const std::unique_ptr<PgCluster> cluster = std::make_unique<PgCluster>();
  return *cluster;
}

}  // namespace berth::testing
