// The embedded PostgreSQL cluster berthd runs under data_dir/pg when database.url is empty.
#pragma once
#include <string>

#include "config/settings.hpp"
#include "util/process.hpp"

namespace berth::core {

class EmbeddedPostgres {
 public:
  // dir: the cluster directory (data_dir/pg). Nothing starts until start().
  // server_options: more "-c name=value" words for the postmaster (the tests' throwaway
  // clusters turn fsync off).
  EmbeddedPostgres(std::string dir, DatabaseSettings settings, std::string server_options = "");
  ~EmbeddedPostgres();  // stops the cluster if running

  // initdb on first use (as an unprivileged user when we are root), then pg_ctl start with a
  // unix socket in dir and a loopback TCP port; waits until it accepts connections.
  // The chosen port is kept in dir so a second start reuses it. Returns a libpq URL for a
  // superuser of the cluster, database "berth" (created when missing).
  std::string start();
  void stop();  // pg_ctl stop -m fast, only if this process started it
  const std::string& url() const { return url_; }
  int port() const { return port_; }

 private:
  std::string dir_;
  DatabaseSettings settings_;
  std::string url_;
  int port_ = 0;
  std::string server_options_;
  bool started_here_ = false;  // this process started the cluster, so it stops it
};

// The directory of initdb/pg_ctl/postgres: settings value, else `pg_config --bindir`, else the
// newest /usr/lib/postgresql/*/bin. Throws std::runtime_error when none is found.
std::string findPgBinDir(const std::string& configured);

}  // namespace berth::core
