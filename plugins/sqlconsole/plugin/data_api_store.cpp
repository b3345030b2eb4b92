#include "data_api_store.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <stdexcept>

namespace berth::sqlconsole {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

void fillRandom(unsigned char* out, size_t size) {
  size_t filled = 0;
  while (filled < size) {
    ssize_t got = ::getrandom(out + filled, size - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom failed");
    }
    filled += static_cast<size_t>(got);
  }
}

TableAccess accessOf(const berth::DbResult& r, int64_t row) {
  return TableAccess{r.get<bool>(row, "can_read"), r.get<bool>(row, "can_create"),
                     r.get<bool>(row, "can_update"), r.get<bool>(row, "can_delete")};
}

}  // namespace

std::string newPublishableKey() {
  std::string key = "bpk_";
  std::array<unsigned char, 64> bytes{};
  while (key.size() < 4 + 32) {
    fillRandom(bytes.data(), bytes.size());
    for (unsigned char b : bytes) {
      // 248 = 4 * 62: bytes above it are dropped so every character is equally likely.
      if (b >= 248 || key.size() == 4 + 32) continue;
      key.push_back(kAlphabet[b % 62]);
    }
  }
  return key;
}

std::string ensureDataApiKey(const berth::Db& db, const std::string& project_id) {
  db.exec(
      "INSERT INTO sqlconsole.data_api_keys (project_id, key) VALUES ($1, $2) "
      "ON CONFLICT (project_id) DO NOTHING",
      project_id, newPublishableKey());
  return db.exec("SELECT key FROM sqlconsole.data_api_keys WHERE project_id = $1", project_id)
      .get<std::string>(0, 0);
}

std::string rotateDataApiKey(const berth::Db& db, const std::string& project_id) {
  std::string key = newPublishableKey();
  db.exec(
      "INSERT INTO sqlconsole.data_api_keys (project_id, key) VALUES ($1, $2) "
      "ON CONFLICT (project_id) DO UPDATE SET key = EXCLUDED.key, "
      "created_at = extract(epoch FROM now())::bigint",
      project_id, key);
  return key;
}

DataApiGrant loadDataApiGrant(const berth::Db& db, const std::string& project_id) {
  berth::DbResult r = db.exec(
      "SELECT 'key' AS kind, key AS name, false AS can_read, false AS can_create, "
      "false AS can_update, false AS can_delete "
      "FROM sqlconsole.data_api_keys WHERE project_id = $1 "
      "UNION ALL SELECT 'table', table_name, can_read, can_create, can_update, can_delete "
      "FROM sqlconsole.data_api_tables WHERE project_id = $1 "
      "UNION ALL SELECT 'function', function_name, false, false, false, false "
      "FROM sqlconsole.data_api_functions WHERE project_id = $1",
      project_id);
  DataApiGrant grant;
  for (int64_t row = 0; row < r.rows(); ++row) {
    std::string kind = r.get<std::string>(row, "kind");
    std::string name = r.get<std::string>(row, "name");
    if (kind == "key")
      grant.key = name;
    else if (kind == "table")
      grant.tables[name] = accessOf(r, row);
    else
      grant.functions.insert(name);
  }
  return grant;
}

TableAccess setTableAccess(const berth::Db& db, const std::string& project_id,
                           const std::string& table, std::optional<bool> read,
                           std::optional<bool> create, std::optional<bool> update,
                           std::optional<bool> del) {
  berth::DbResult r = db.exec(
      "INSERT INTO sqlconsole.data_api_tables AS t "
      "(project_id, table_name, can_read, can_create, can_update, can_delete) "
      "VALUES ($1, $2, coalesce($3::boolean, false), coalesce($4::boolean, false), "
      "coalesce($5::boolean, false), coalesce($6::boolean, false)) "
      "ON CONFLICT (project_id, table_name) DO UPDATE SET "
      "can_read = coalesce($3::boolean, t.can_read), "
      "can_create = coalesce($4::boolean, t.can_create), "
      "can_update = coalesce($5::boolean, t.can_update), "
      "can_delete = coalesce($6::boolean, t.can_delete), "
      "updated_at = extract(epoch FROM now())::bigint "
      "RETURNING can_read, can_create, can_update, can_delete",
      project_id, table, read, create, update, del);
  return accessOf(r, 0);
}

void setFunctionEnabled(const berth::Db& db, const std::string& project_id,
                        const std::string& function, bool enabled) {
  if (enabled)
    db.exec(
        "INSERT INTO sqlconsole.data_api_functions (project_id, function_name) VALUES ($1, $2) "
        "ON CONFLICT DO NOTHING",
        project_id, function);
  else
    db.exec(
        "DELETE FROM sqlconsole.data_api_functions WHERE project_id = $1 AND function_name = $2",
        project_id, function);
}

void forgetDataApiProject(const berth::Db& db, const std::string& project_id) {
  db.transaction([&](berth::Transaction& tx) {
    tx.exec("DELETE FROM sqlconsole.data_api_keys WHERE project_id = $1", project_id);
    tx.exec("DELETE FROM sqlconsole.data_api_tables WHERE project_id = $1", project_id);
    tx.exec("DELETE FROM sqlconsole.data_api_functions WHERE project_id = $1", project_id);
  });
}

bool sameKey(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace berth::sqlconsole
