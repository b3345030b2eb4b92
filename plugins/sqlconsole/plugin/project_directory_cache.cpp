#include "project_directory_cache.hpp"

namespace berth::sqlconsole {

std::optional<ProjectRef> ProjectDirectoryCache::byName(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

void ProjectDirectoryCache::keep(const ProjectRef& project) {
  if (project.id.empty() || project.name.empty()) return;
  std::lock_guard lock(mutex_);
  if (by_name_.size() >= capacity_) by_name_.clear();  // rare: many projects; read them again
  by_name_[project.name] = project;
}

void ProjectDirectoryCache::forget(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  for (auto it = by_name_.begin(); it != by_name_.end();) {
    if (it->second.id == project_id)
      it = by_name_.erase(it);
    else
      ++it;
  }
}

}  // namespace berth::sqlconsole
