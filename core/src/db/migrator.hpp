// Migrations of the core and of every plugin: applied in order, once each, recorded with a
// checksum, under an advisory lock so that nodes starting together do not race.
#pragma once
#include <string>
#include <vector>

#include "db/pool.hpp"

namespace berth::core {

struct Migration {
  std::string owner;  // "core" or a plugin id; its tables live in the schema of that name
  int version = 0;    // 1, 2, 3 ... without gaps per owner
  std::string name;
  std::string sql;
};

// Creates core.schema_migrations if needed, then applies what is pending, owner by owner in the
// order given, each migration in its own transaction with search_path set to the owner's schema.
// Throws std::runtime_error naming the owner and version when a migration fails, when versions
// have gaps or duplicates, or when an applied migration's checksum changed.
// Returns the number applied.
int applyMigrations(Pool& pool, const std::vector<Migration>& migrations);

// The core's own migrations (accounts, teams, tokens).
std::vector<Migration> coreMigrations();

}  // namespace berth::core
