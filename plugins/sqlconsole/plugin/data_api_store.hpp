// The browser data API's settings in the control-plane database (migrations/0001_data_api.sql):
// each project's publishable key, what the key may do per table, and which functions it may
// call. Every table and function is closed until a row here opens it.
#pragma once
#include <berth/plugin.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>

namespace berth::sqlconsole {

struct TableAccess {
  bool read = false;
  bool create = false;
  bool update = false;
  bool del = false;
};

// A new key: "bpk_" and 32 characters of [A-Za-z0-9] from the kernel's random source.
std::string newPublishableKey();

// The project's key, made on first use.
std::string ensureDataApiKey(const berth::Db& db, const std::string& project_id);
// A new key replacing the old one (which stops working at once).
std::string rotateDataApiKey(const berth::Db& db, const std::string& project_id);

// What a request to /_data needs, in one round trip: the key (if the project has one yet), the
// access of every table that has a row, and the functions enabled. Kept between requests by
// DataApiGrants (data_api_grants.hpp).
struct DataApiGrant {
  std::optional<std::string> key;
  std::map<std::string, TableAccess> tables;
  std::set<std::string> functions;
};
DataApiGrant loadDataApiGrant(const berth::Db& db, const std::string& project_id);

// Sets the flags given (the others keep their value, false for a new row); returns the result.
TableAccess setTableAccess(const berth::Db& db, const std::string& project_id,
                           const std::string& table, std::optional<bool> read,
                           std::optional<bool> create, std::optional<bool> update,
                           std::optional<bool> del);

void setFunctionEnabled(const berth::Db& db, const std::string& project_id,
                        const std::string& function, bool enabled);

// Removes every setting of a project (it is being deleted).
void forgetDataApiProject(const berth::Db& db, const std::string& project_id);

// Equal without an early exit, so the time a comparison takes tells nothing about the key.
bool sameKey(const std::string& a, const std::string& b);

}  // namespace berth::sqlconsole
