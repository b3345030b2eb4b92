// The control-plane database: the configured URL, or the embedded cluster under data_dir/pg.
#pragma once
#include <memory>
#include <string>

#include "config/settings.hpp"
#include "db/embedded_postgres.hpp"
#include "db/embedded_postgres_watch.hpp"
#include "db/pool.hpp"

namespace berth::core {

struct ControlPlane {
  std::unique_ptr<EmbeddedPostgres> embedded;    // null with an external database.url
  std::unique_ptr<EmbeddedPostgresWatch> watch;  // restarts `embedded` when it dies
  std::unique_ptr<Pool> pool;

  // Starts (or joins) the embedded cluster when database.url is empty, makes the pool and
  // applies the core's own migrations.
  static ControlPlane open(const Settings& settings);
  void close();
};

// "2m" / "512k" / "1g" / "1048576" -> bytes; throws ConfigError naming the key.
uint64_t parseByteSize(const std::string& value, const std::string& key, const std::string& file);

}  // namespace berth::core
