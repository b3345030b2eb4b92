// Which project a name (or a host under the apps domain) is, kept between requests so a rows or
// /_data read does not ask projects.directory.v1 (a control-database query) every time.
//
// Why keeping it is safe: a project's id, name and account never change while it lives (the
// projects plugin has no rename and no transfer), so a kept entry can only be wrong once the
// project is gone. Then it is forgotten: at once on this node (project.deleting/deleted hooks),
// and on any node when its database cannot be reached any more (deleting a project drops its
// database and ends every session on it; ProjectConnections reports that). Access is never
// kept: the caller's memberships are asked each time (the core keeps those, and empties them
// on every change on any node).
#pragma once
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace berth::sqlconsole {

struct ProjectRef {
  std::string id;
  std::string name;
  std::string account_id;
  std::string host;  // <name>.<apps_domain>
};

class ProjectDirectoryCache {
 public:
  explicit ProjectDirectoryCache(size_t capacity = 10000) : capacity_(capacity) {}

  std::optional<ProjectRef> byName(const std::string& name);
  void keep(const ProjectRef& project);
  void forget(const std::string& project_id);

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::unordered_map<std::string, ProjectRef> by_name_;
};

}  // namespace berth::sqlconsole
