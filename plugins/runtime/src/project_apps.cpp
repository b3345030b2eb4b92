#include "project_apps.hpp"

#include <berth/util/unix_time.hpp>

namespace berth::runtime {

ProjectApps::~ProjectApps() {
  std::map<std::string, Entry> apps;
  {
    std::lock_guard lock(mutex_);
    apps.swap(apps_);
  }
  apps.clear();  // each AppProcess stops its process as it goes
}

std::shared_ptr<AppProcess> ProjectApps::make(const std::string& project_id, const AppSpec& spec) {
  auto on_line = [this, project_id](std::string_view line) {
    logs_.add(project_id, LogEntry{berth::unixSeconds(), "process", std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, std::string(line)});
  };
  auto on_event = [this, project_id](std::string_view message) {
    logs_.add(project_id, LogEntry{berth::unixSeconds(), "platform", std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, std::string(message)});
  };
  return std::make_shared<AppProcess>(spec, on_line, on_event);
}

void ProjectApps::start(const std::string& project_id, const AppSpec& spec, AppProcess::Done done) {
  std::shared_ptr<AppProcess> replaced;
  std::shared_ptr<AppProcess> app;
  {
    std::lock_guard lock(mutex_);
    auto& entry = apps_[project_id];
    if (!entry.app || entry.argv != spec.argv || entry.release_dir != spec.release_dir) {
      replaced = std::move(entry.app);
      if (replaced) replaced->retire();
      entry.argv = spec.argv;
      entry.release_dir = spec.release_dir;
      entry.app = make(project_id, spec);
    }
    app = entry.app;
  }
  replaced.reset();  // outside the lock: stopping takes up to the grace period
  app->start(std::move(done));
}

void ProjectApps::stop(const std::string& project_id) {
  std::shared_ptr<AppProcess> app;
  {
    std::lock_guard lock(mutex_);
    auto it = apps_.find(project_id);
    if (it == apps_.end()) return;
    app = std::move(it->second.app);
    apps_.erase(it);
  }
  if (app) app->retire();
  app.reset();
}

void ProjectApps::stopOtherThan(const std::string& project_id, const std::string& release_dir) {
  std::shared_ptr<AppProcess> app;
  {
    std::lock_guard lock(mutex_);
    auto it = apps_.find(project_id);
    if (it == apps_.end() || it->second.release_dir == release_dir) return;
    app = std::move(it->second.app);
    apps_.erase(it);
  }
  if (app) app->retire();
  app.reset();
}

std::optional<AppState> ProjectApps::state(const std::string& project_id) const {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(project_id);
  if (it == apps_.end() || !it->second.app) return std::nullopt;
  return it->second.app->state();
}

std::vector<std::string> ProjectApps::active() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [id, entry] : apps_)
    if (entry.app && entry.app->state() != AppState::Stopped) ids.push_back(id);
  return ids;
}

std::shared_ptr<AppProcess> ProjectApps::find(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  auto it = apps_.find(project_id);
  return it == apps_.end() ? nullptr : it->second.app;
}

}  // namespace berth::runtime
