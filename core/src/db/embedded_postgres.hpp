// The embedded PostgreSQL cluster berthd runs under data_dir/pg when database.url is empty.
#pragma once
#include <string>

#include "config/settings.hpp"
#include "util/process.hpp"

namespace berth::core {

// How the cluster authenticates, on its loopback TCP port and on its unix socket alike (the
// socket also lives in a folder only the cluster's user, and root, can enter).
enum class LoopbackAuth {
  // scram-sha-256 for every role: apps on this machine reach the port, so a role's password
  // is what keeps one project out of another's database and everyone out of the superuser.
  // The superuser's password is made once and kept in <dir>/superuser.password (0600).
  Password,
  // Anyone on the machine is anyone: only for throwaway test clusters.
  Trust,
};

class EmbeddedPostgres {
 public:
  // dir: the cluster directory (data_dir/pg). Nothing starts until start().
  // server_options: more "-c name=value" words for the postmaster (the tests' throwaway
  // clusters turn fsync off).
  EmbeddedPostgres(std::string dir, DatabaseSettings settings, std::string server_options = "",
                   LoopbackAuth auth = LoopbackAuth::Password);
  ~EmbeddedPostgres();  // stops the cluster if running

  // initdb on first use (as an unprivileged user when we are root), then pg_ctl start with a
  // unix socket in dir and a loopback TCP port; waits until it accepts connections.
  // The chosen port is kept in dir so a second start reuses it. pg_hba.conf is rewritten for
  // `auth` at every start (and reloaded when the cluster was already running). Returns a libpq
  // URL for a superuser of the cluster over loopback TCP (with its password), database "berth"
  // (created when missing).
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
  LoopbackAuth auth_;
  bool started_here_ = false;  // this process started the cluster, so it stops it
};

// The directory of initdb/pg_ctl/postgres: settings value, else `pg_config --bindir`, else the
// newest /usr/lib/postgresql/*/bin. Throws std::runtime_error when none is found.
std::string findPgBinDir(const std::string& configured);

}  // namespace berth::core
