// A throw-away PostgreSQL cluster for tests: its own directory under /tmp, its own loopback
// port, superuser "berth" with trust authentication, removed with the object.
#pragma once
#include <memory>
#include <string>

#include "db/embedded_postgres.hpp"
#include "db/pool.hpp"

namespace berth::testing {

class PgCluster {
 public:
  // initdb (as an unprivileged user when the tests run as root) and start. Throws when
  // PostgreSQL cannot be set up.
  PgCluster();
  ~PgCluster();  // stops the server and removes its directory
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // postgresql://berth@127.0.0.1:PORT/<database>
  std::string url(const std::string& database) const;
  std::string superuserUrl() const { return url("postgres"); }
  int port() const;
  const std::string& dir() const { return dir_; }

  // A new empty database named <prefix>_<n>, so tests sharing a cluster do not see each
  // other's tables. Returns its URL.
  std::string createDatabase(const std::string& prefix = "test");

  void stop();   // clean shutdown (pg_ctl stop -m fast)
  void start();  // again, same data and port (after stop() or kill())
  void kill();   // SIGKILL to the postmaster and its backends, as a crash would; returns once
                 // they are gone and leaves postmaster.pid behind

 private:
  std::string dir_;
  std::unique_ptr<core::EmbeddedPostgres> server_;
};

// One cluster per test process, made on first use and stopped when the process exits (also when
// tests failed). Stopping or killing it affects every later test of the program: a test that
// does so wants a PgCluster of its own, or a program of its own.
PgCluster& sharedCluster();

}  // namespace berth::testing

// The same, under the shorter name some tests use.
namespace berth::test {
using testing::PgCluster;
using testing::sharedCluster;
}  // namespace berth::test
