#include "quotas.hpp"

#include <algorithm>

#include <berth/services/projects_directory.hpp>

#include "blob_names.hpp"

namespace berth::storage {

using berth::Error;

std::string sizeText(int64_t bytes) {
  constexpr int64_t kKilo = 1024;
  const std::pair<int64_t, const char*> units[] = {{kKilo * kKilo * kKilo * kKilo, "TB"},
                                                   {kKilo * kKilo * kKilo, "GB"},
                                                   {kKilo * kKilo, "MB"},
                                                   {kKilo, "KB"}};
  for (const auto& [unit, name] : units)
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + " " + name;
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

PutLimits Quotas::limitsFor(const std::string& project_id, const std::string& space) const {
  PutLimits limits;
  limits.lock_key = "project:" + project_id;
  if (space == kFilesSpace) limits.max_files = settings_.max_files_per_project;
  const berth::ProjectsDirectory directory(services_);
  std::optional<berth::projects_directory::Project> project = directory.tryGetById(project_id);
  if (!project) return limits;  // being made or removed: no disk quota
  const std::string& account_id = project->account_id;
  limits.lock_key = "account:" + account_id;
  auto account = services_.account(account_id);
  if (!account) return limits;
  limits.plan = account->plan;
  auto quota = settings_.disk_quota_mb.find(account->plan);
  if (quota == settings_.disk_quota_mb.end() || !quota->second) return limits;
  limits.disk_bytes = *quota->second * 1024 * 1024;
  limits.account_projects = directory.accountProjects(account_id);
  // The project itself, should the directory's two answers straddle a change.
  if (std::find(limits.account_projects.begin(), limits.account_projects.end(), project_id) ==
      limits.account_projects.end())
    limits.account_projects.push_back(project_id);
  return limits;
}

void Quotas::lock(berth::Transaction& tx, const PutLimits& limits) {
  tx.exec("SELECT pg_advisory_xact_lock(hashtext('storage:quota:' || $1))", limits.lock_key);
}

void Quotas::check(berth::Transaction& tx, const PutLimits& limits, const std::string& project_id,
                   const std::string& space, int64_t new_size, std::optional<int64_t> old_size) {
  if (limits.max_files && !old_size && space == kFilesSpace) {
    int64_t files = tx.exec(
                          "SELECT count(*) FROM storage.blobs WHERE project_id = $1 AND "
                          "space = $2",
                          project_id, space)
                        .get<int64_t>(0, 0);
    if (files >= *limits.max_files)
      throw Error::forbidden("this project has " + std::to_string(files) +
                             " files, the limit (storage.max_files_per_project); delete one "
                             "before storing another");
  }
  const int64_t added = new_size - old_size.value_or(0);
  if (limits.disk_bytes && added > 0) {
    int64_t stored = tx.exec(
                           "SELECT coalesce(sum(size), 0)::bigint FROM storage.blobs WHERE "
                           "project_id IN (SELECT jsonb_array_elements_text($1::jsonb))",
                           nlohmann::json(limits.account_projects))
                         .get<int64_t>(0, 0);
    if (stored + added > *limits.disk_bytes)
      throw Error::forbidden("the account's disk quota (" + sizeText(*limits.disk_bytes) +
                             " on the " + limits.plan +
                             " plan, storage.disk_quota_mb) is used up: " + std::to_string(stored) +
                             " bytes are stored and this needs " + std::to_string(added) +
                             " more; delete files or releases, or move to a larger plan");
  }
}

}  // namespace berth::storage
