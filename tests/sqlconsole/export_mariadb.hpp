// A throw-away MariaDB server for the mysql export test, started the way the tests start
// PostgreSQL: its own temp directory, a unix socket and no network, stopped and removed with the
// object. A bare data directory with --skip-grant-tables is enough to load a dump (no
// mariadb-install-db, which takes seconds). As root, the server runs as the "mysql" user.
#pragma once
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/berthd_process.hpp"
#include "util/process.hpp"

namespace berth::testing::sqlconsole_api {

inline constexpr const char* kMariadbd = "/usr/sbin/mariadbd";
inline constexpr const char* kMariadbClient = "/usr/bin/mariadb";

inline bool mariadbInstalled() {
  return ::access(kMariadbd, X_OK) == 0 && ::access(kMariadbClient, X_OK) == 0;
}

class MariaDbServer {
 public:
  MariaDbServer() {
    dir_ = makeTempDir("berth-mariadb-");
    const std::string data = dir_ + "/data";
    std::filesystem::create_directories(data);
    std::vector<std::string> argv = {kMariadbd,
                                     "--no-defaults",
                                     "--datadir=" + data,
                                     "--socket=" + socket(),
                                     "--pid-file=" + dir_ + "/mariadb.pid",
                                     "--skip-networking",
                                     "--skip-grant-tables",
                                     "--innodb-buffer-pool-size=64M",
                                     "--innodb-log-file-size=16M",
                                     "--log-error=" + dir_ + "/error.log"};
    if (::geteuid() == 0) {
      auto user = core::lookupUser("mysql");
      if (!user) throw std::runtime_error("running as root, and there is no user mysql");
      for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_))
        ::lchown(entry.path().c_str(), user->uid, user->gid);
      ::lchown(dir_.c_str(), user->uid, user->gid);
      argv.push_back("--user=mysql");
    }
    core::SpawnOptions options;
    options.output_file = dir_ + "/output.log";
    server_ = core::spawn(argv, options);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!run("SELECT 1").status.ok()) {
      if (!server_.running() || std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("MariaDB did not start: " + readFile(dir_ + "/output.log") +
                                 readFile(dir_ + "/error.log"));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~MariaDbServer() {
    server_.stop(std::chrono::seconds(30));
    removeTree(dir_);
  }
  MariaDbServer(const MariaDbServer&) = delete;
  MariaDbServer& operator=(const MariaDbServer&) = delete;

  std::string socket() const { return dir_ + "/mariadb.sock"; }

  // The client with sql on its command line, tab-separated output without column names.
  core::RunResult run(const std::string& sql, const std::string& database = "") const {
    std::vector<std::string> argv = {
        kMariadbClient, "--no-defaults",       "--socket=" + socket(),   "--user=root",
        "--batch",      "--skip-column-names", "--abort-source-on-error"};
    if (!database.empty()) argv.push_back("--database=" + database);
    argv.push_back("--execute=" + sql);
    return core::runCommand(argv);
  }

  // Loads a script file into database (made first); returns the client's output, throws when it
  // fails.
  void load(const std::string& database, const std::string& file) const {
    auto made = run("CREATE DATABASE `" + database + "`");
    if (!made.status.ok()) throw std::runtime_error("CREATE DATABASE: " + made.output);
    auto loaded = run("SOURCE " + file, database);
    // The client goes on after an error with SOURCE; any ERROR line is a failure.
    if (!loaded.status.ok() || loaded.output.find("ERROR") != std::string::npos)
      throw std::runtime_error("loading " + file + ": " + loaded.output);
  }

  // One value (the first line of output).
  std::string value(const std::string& database, const std::string& sql) const {
    auto r = run(sql, database);
    if (!r.status.ok()) throw std::runtime_error(sql + ": " + r.output);
    std::string out = r.output;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }

 private:
  std::string dir_;
  core::Child server_;
};

}  // namespace berth::testing::sqlconsole_api
