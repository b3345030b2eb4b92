#include "app/control_plane.hpp"

#include <filesystem>

#include "db/migrator.hpp"
#include "log/logging.hpp"

namespace berth::core {

ControlPlane ControlPlane::open(const Settings& settings) {
  ControlPlane cp;
  std::string url = settings.database.url;
  if (url.empty()) {
    std::filesystem::create_directories(settings.data_dir);
    cp.embedded = std::make_unique<EmbeddedPostgres>(settings.data_dir + "/pg", settings.database);
    url = cp.embedded->start();
    logLine(*getLogger("db"), spdlog::level::info, "", "",
            "embedded PostgreSQL ready on port " + std::to_string(cp.embedded->port()));
    cp.watch = std::make_unique<EmbeddedPostgresWatch>(*cp.embedded, settings.data_dir + "/pg");
  }
  cp.pool = std::make_unique<Pool>(url, settings.database.pool_size,
                                   std::chrono::seconds(settings.database.connect_timeout_seconds));
  applyMigrations(*cp.pool, coreMigrations());
  return cp;
}

void ControlPlane::close() {
  watch.reset();  // before the stop, which it would otherwise undo
  pool.reset();
  if (embedded) embedded->stop();
}

uint64_t parseByteSize(const std::string& value, const std::string& key, const std::string& file) {
  size_t digits = 0;
  while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) ++digits;
  std::string unit = value.substr(digits);
  uint64_t scale = 1;
  if (unit == "k" || unit == "K")
    scale = 1024;
  else if (unit == "m" || unit == "M")
    scale = 1024 * 1024;
  else if (unit == "g" || unit == "G")
    scale = 1024ull * 1024 * 1024;
  else if (!unit.empty())
    digits = 0;
  if (digits == 0 || digits > 12)
    throw ConfigError(file + ": " + key + ": expected a size such as 2m, 512k or 1048576, got \"" +
                      value + "\"");
  return std::stoull(value.substr(0, digits)) * scale;
}

}  // namespace berth::core
