// SPDX-License-Identifier: MIT
/** @file
 *  storage.stats.v1: what the storage plugin counts of projects' stored files, for the projects
 *  plugin's Project (files_count, files_bytes). Header-only, no ABI: the types, their JSON
 *  written and read once, and a typed client.
 *
 *  Method: `projects` {ids: [project id]} -> {"<id>": {files_count, files_bytes}}.
 *
 *  Invariants: every id asked is answered (zeros for a project without files, or unknown);
 *  both numbers are always there, 0 or more; they count the space "files" only. A request
 *  without an array of strings under ids is refused with 400
 *  "ids is required and must be an array of strings".
 */
#ifndef BERTH_SERVICES_STORAGE_STATS_HPP
#define BERTH_SERVICES_STORAGE_STATS_HPP

#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace storage_stats {

inline constexpr std::string_view kService = "storage.stats.v1";
inline constexpr std::string_view kProjects = "projects";

/** The stored files of one project. */
struct FileStats {
  int64_t files_count = 0;
  int64_t files_bytes = 0;

  bool operator==(const FileStats&) const = default;
};

/** The answer of `projects`, by project id. */
using ProjectFiles = std::map<std::string, FileStats>;

inline nlohmann::json idsJson(const std::vector<std::string>& ids) {
  return {{"ids", ids}};
}

/** @throw Error 400 "ids is required and must be an array of strings". */
inline std::vector<std::string> parseIdsRequest(const nlohmann::json& request) {
  return service_json::requiredTexts(request, "ids",
                                     "ids is required and must be an array of strings");
}

inline nlohmann::json toJson(const FileStats& s) {
  return {{"files_count", s.files_count}, {"files_bytes", s.files_bytes}};
}

inline nlohmann::json toJson(const ProjectFiles& files) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, stats] : files) out[id] = toJson(stats);
  return out;
}

inline ProjectFiles parseProjectFiles(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kProjects);
  ProjectFiles out;
  for (const auto& item : answer.items()) {
    service_json::Answer stats = a.object(item.key());
    out[item.key()] = FileStats{static_cast<int64_t>(stats.count("files_count")),
                                static_cast<int64_t>(stats.count("files_bytes"))};
  }
  return out;
}

}  // namespace storage_stats

/** The typed client of storage.stats.v1. */
class StorageStats {
 public:
  explicit StorageStats(const Services& services) : services_(&services) {}

  /** The file counts of these projects; std::nullopt when no loaded plugin offers the service
   *  (the storage plugin is not enabled). @throw Error as the service answered. */
  std::optional<storage_stats::ProjectFiles> tryProjects(
      const std::vector<std::string>& ids) const {
    using namespace storage_stats;
    std::optional<nlohmann::json> answer = services_->tryCall(kService, kProjects, idsJson(ids));
    if (!answer) return std::nullopt;
    return parseProjectFiles(*answer);
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_STORAGE_STATS_HPP
