// The installs' state in templates.installs: at most one running install per project on every
// node, its heartbeat while it runs, and how it ended.
#pragma once
#include <berth/db.hpp>
#include <berth/services.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace berth::templates {

struct InstallRun {
  int64_t id = 0;
  std::string project_id, project_name, template_slug, caller, status;
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  std::optional<std::string> error;
  std::optional<std::string> progress;  // what the installer last said it is doing
  nlohmann::json answer;                // null unless installed
};

nlohmann::json toJson(const InstallRun& run);

// This node ("<host>:<data_dir>:") and this berthd on it (the node and a boot id made at the
// process's first call), as templates.installs.runner records them.
std::string thisNode(const berth::Services& services);
std::string thisBerthd(const berth::Services& services);

class InstallRuns {
 public:
  // A running install whose heartbeat is older than this lost its node.
  static constexpr int64_t kStaleAfterSeconds = 120;

  explicit InstallRuns(berth::Db db) : db_(std::move(db)) {}

  // Starts an install run by `runner` (thisBerthd), or nullopt when one is running on the
  // project. A run that lost its node is marked failed first.
  std::optional<InstallRun> begin(const std::string& project_id, const std::string& project_name,
                                  const std::string& template_slug, const std::string& caller,
                                  const std::string& runner) const;
  // Marks failed the installs an earlier run of this berthd (same node, another boot) left
  // 'installing': nothing runs them any more. @return how many.
  int64_t failInterrupted(const std::string& node, const std::string& berthd) const;
  void heartbeat(int64_t id) const;
  // The running install of the project says what it is doing. @return false when none runs.
  bool noteProgress(const std::string& project_id, const std::string& message) const;
  void finish(int64_t id, const nlohmann::json& answer) const;
  void fail(int64_t id, const std::string& error) const;
  // The project's latest install of that template.
  std::optional<InstallRun> latest(const std::string& project_id,
                                   const std::string& template_slug) const;
  int64_t removeProject(const std::string& project_id) const;

 private:
  berth::Db db_;
};

}  // namespace berth::templates
