// A row of projects.projects and the queries that read it.
#pragma once
#include <berth/db.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace berth::projects {

struct ProjectRecord {
  std::string id, name, label, account_id, status, region, cmd;
  bool ignore_dockerfile = false;
  bool cache_enabled = true;
  int64_t cache_ttl = 60;
  std::string db_name, db_role, db_password_sealed;
  int64_t db_bytes = 0;
  int64_t created_at = 0;
};

// The column list every query selects, in the order fromRow reads.
inline constexpr const char* kProjectColumns =
    "id, name, label, account_id, status, region, cmd, ignore_dockerfile, cache_enabled, "
    "cache_ttl, coalesce(db_name, ''), coalesce(db_role, ''), coalesce(db_password, ''), "
    "db_bytes, created_at";

ProjectRecord projectFromRow(const berth::DbResult& result, int64_t row);
std::vector<ProjectRecord> projectsFrom(const berth::DbResult& result);

// A ready project by name, or nullopt.
std::optional<ProjectRecord> findReadyProject(const berth::Db& db, const std::string& name);
std::optional<ProjectRecord> findReadyProjectById(const berth::Db& db, const std::string& id);
// Every ready project of these accounts, in no order: ProjectLists sorts what it merges.
std::vector<ProjectRecord> readyProjectsOf(const berth::Db& db,
                                           const std::vector<std::string>& account_ids);

}  // namespace berth::projects
