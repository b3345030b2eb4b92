#include "db/migrator.hpp"

#include <openssl/evp.h>
#include <berth/common/sql_text.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <regex>
#include <stdexcept>
#include <utility>

namespace berth::core {
namespace {

// One key for every node: pg_advisory_lock(hashtext(...)) serialises whole runs, so a node that
// starts second waits, then finds everything applied.
constexpr const char* kLockKey = "hashtext('berth:migrate')";

struct OwnerPlan {
  std::string owner;
  std::vector<const Migration*> migrations;  // by version, 1..N
};

struct AppliedRecord {
  std::string name;
  std::string checksum;
};

std::string sqlChecksum(const std::string& sql) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), sql.data(), sql.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) {
    throw std::runtime_error("could not compute a SHA-256 digest");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

std::string describe(const Migration& m) {
  return "migration " + m.owner + " " + std::to_string(m.version) + " (" + m.name + ")";
}

// Groups by owner in order of first appearance and checks each owner's versions are exactly
// 1..N, so that a missing or repeated file is refused before anything runs.
std::vector<OwnerPlan> planByOwner(const std::vector<Migration>& migrations) {
  // Owners become schema names spliced into SQL (quoted), and are held to a plain identifier
  // shape besides.
  static const std::regex kOwnerShape("[a-z][a-z0-9_]*");
  std::vector<OwnerPlan> plans;
  for (const Migration& m : migrations) {
    if (!std::regex_match(m.owner, kOwnerShape)) {
      throw std::runtime_error("migration owner '" + m.owner +
                               "' is not a valid schema name ([a-z][a-z0-9_]*)");
    }
    auto plan = std::find_if(plans.begin(), plans.end(),
                             [&](const OwnerPlan& p) { return p.owner == m.owner; });
    if (plan == plans.end()) plan = plans.insert(plans.end(), OwnerPlan{m.owner, {}});
    plan->migrations.push_back(&m);
  }
  for (OwnerPlan& plan : plans) {
    std::stable_sort(
        plan.migrations.begin(), plan.migrations.end(),
        [](const Migration* a, const Migration* b) { return a->version < b->version; });
    for (size_t i = 0; i < plan.migrations.size(); ++i) {
      const Migration& m = *plan.migrations[i];
      const int expected = static_cast<int>(i) + 1;
      if (m.version == expected) continue;
      if (m.version < expected) {
        throw std::runtime_error("migrations of " + plan.owner + ": version " +
                                 std::to_string(m.version) + " appears more than once");
      }
      throw std::runtime_error("migrations of " + plan.owner + ": version " +
                               std::to_string(expected) + " is missing (next is " +
                               std::to_string(m.version) + ")");
    }
  }
  return plans;
}

// Holds the session-level advisory lock for the life of the object. If it cannot be released the
// connection is discarded instead, which releases it on the server.
class MigrationLock {
 public:
  explicit MigrationLock(Lease& lease) : lease_(lease) {
    lease_.exec(std::string("SELECT pg_advisory_lock(") + kLockKey + ")");
  }
  ~MigrationLock() {
    try {
      lease_.exec(std::string("SELECT pg_advisory_unlock(") + kLockKey + ")");
    } catch (...) {
      lease_.markBroken();
    }
  }
  MigrationLock(const MigrationLock&) = delete;
  MigrationLock& operator=(const MigrationLock&) = delete;

 private:
  Lease& lease_;
};

void ensureRecordTable(Lease& lease) {
  // Checked first so that a normal start runs no DDL (and takes no DDL locks).
  if (!lease.exec("SELECT to_regclass('core.schema_migrations')").isNull(0, 0)) return;
  lease.execScript(
      "CREATE SCHEMA IF NOT EXISTS core;"
      "CREATE TABLE IF NOT EXISTS core.schema_migrations ("
      "  owner text NOT NULL,"
      "  version int NOT NULL,"
      "  name text NOT NULL,"
      "  checksum text NOT NULL,"
      "  applied_at timestamptz NOT NULL DEFAULT now(),"
      "  PRIMARY KEY (owner, version))");
}

std::map<std::pair<std::string, int>, AppliedRecord> loadApplied(Lease& lease) {
  std::map<std::pair<std::string, int>, AppliedRecord> applied;
  PgResult rows = lease.exec("SELECT owner, version, name, checksum FROM core.schema_migrations");
  for (int row = 0; row < rows.rows(); ++row) {
    applied[{rows.value(row, 0), std::stoi(rows.value(row, 1))}] =
        AppliedRecord{rows.value(row, 2), rows.value(row, 3)};
  }
  return applied;
}

void rollbackQuietly(Lease& lease) {
  try {
    lease.exec("ROLLBACK");
  } catch (...) {
    lease.markBroken();  // the pool must not reuse a session in an unknown state
  }
}

void applyOne(Lease& lease, const Migration& m, const std::string& checksum) {
  try {
    lease.exec("BEGIN");
    lease.exec("SET LOCAL search_path = " + common::quotedIdentifier(m.owner) + ", public");
    lease.execScript(m.sql);
    lease.exec(
        "INSERT INTO core.schema_migrations (owner, version, name, checksum) "
        "VALUES ($1, $2, $3, $4)",
        {m.owner, std::to_string(m.version), m.name, checksum});
    lease.exec("COMMIT");
  } catch (const DbUnavailable& e) {
    lease.markBroken();
    throw DbUnavailable(describe(m) + " failed: " + e.what());
  } catch (const std::exception& e) {
    rollbackQuietly(lease);
    throw std::runtime_error(describe(m) + " failed: " + e.what());
  }
}

}  // namespace

int applyMigrations(Pool& pool, const std::vector<Migration>& migrations) {
  const std::vector<OwnerPlan> plans = planByOwner(migrations);
  Lease lease = pool.acquire();
  MigrationLock lock(lease);
  ensureRecordTable(lease);
  const auto applied = loadApplied(lease);

  // Every recorded migration is checked before anything new runs: a database whose history
  // disagrees with the code is left exactly as it was.
  std::vector<std::pair<const Migration*, std::string>> pending;
  for (const OwnerPlan& plan : plans) {
    for (const Migration* m : plan.migrations) {
      std::string checksum = sqlChecksum(m->sql);
      auto record = applied.find({m->owner, m->version});
      if (record == applied.end()) {
        pending.emplace_back(m, std::move(checksum));
      } else if (record->second.checksum != checksum) {
        throw std::runtime_error(describe(*m) + " was changed after it was applied");
      }
    }
  }

  std::string last_owner;
  for (const auto& [m, checksum] : pending) {
    if (m->owner != last_owner) {
      lease.exec("CREATE SCHEMA IF NOT EXISTS " + common::quotedIdentifier(m->owner));
      last_owner = m->owner;
    }
    applyOne(lease, *m, checksum);
  }
  return static_cast<int>(pending.size());
}

}  // namespace berth::core
