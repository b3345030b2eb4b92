#include "edge_cache.hpp"

namespace berth::runtime {

bool EdgeCache::cacheableRequest(const Project& project, const berth::Request& request) {
  if (!project.cache_enabled || project.cache_ttl == 0) return false;
  const std::string method = request.method();
  if (method != "GET" && method != "HEAD") return false;
  return !request.header("authorization") && !request.header("cookie");
}

std::int64_t EdgeCache::readEpoch(const std::string& project_id) const {
  auto r = context_.services->db().exec(
      "SELECT epoch FROM runtime.runtime_cache_epochs WHERE project_id = $1", project_id);
  return r.rows() > 0 ? r.get<std::int64_t>(0, 0) : 0;
}

void EdgeCache::served(const Project& project, const std::string& host,
                       const std::string& release_id) {
  {
    std::lock_guard lock(mutex_);
    auto found = projects_.find(project.id);
    if (found != projects_.end() && found->second.hosts.contains(host) &&
        found->second.release_id == release_id &&
        found->second.settings.cache_ttl == project.cache_ttl &&
        found->second.settings.cache_enabled == project.cache_enabled)
      return;  // the usual case: nothing new
  }
  std::int64_t epoch = readEpoch(project.id);
  {
    std::lock_guard lock(mutex_);
    ProjectRules& rules = projects_[project.id];
    rules.settings = project;
    rules.hosts.insert(host);
    rules.release_id = release_id;
    rules.epoch = epoch;
  }
  push();
}

void EdgeCache::liveChanged(const std::string& project_id) {
  {
    std::lock_guard lock(mutex_);
    if (!projects_.contains(project_id)) return;
  }
  std::string release_id = live_id_(project_id);
  {
    std::lock_guard lock(mutex_);
    auto found = projects_.find(project_id);
    if (found == projects_.end()) return;
    if (release_id.empty())
      projects_.erase(found);
    else
      found->second.release_id = release_id;
  }
  push();
}

void EdgeCache::purge(const std::string& project_id) {
  auto r = context_.services->db().exec(
      "INSERT INTO runtime.runtime_cache_epochs (project_id, epoch) VALUES ($1, 1) "
      "ON CONFLICT (project_id) DO UPDATE SET epoch = runtime_cache_epochs.epoch + 1 "
      "RETURNING epoch",
      project_id);
  std::int64_t epoch = r.get<std::int64_t>(0, 0);
  {
    std::lock_guard lock(mutex_);
    auto found = projects_.find(project_id);
    if (found == projects_.end()) return;  // nothing cached on this node's rules
    found->second.epoch = epoch;
  }
  push();
}

void EdgeCache::forget(const std::string& project_id) {
  context_.services->db().exec("DELETE FROM runtime.runtime_cache_epochs WHERE project_id = $1",
                               project_id);
  {
    std::lock_guard lock(mutex_);
    if (projects_.erase(project_id) == 0) return;
  }
  push();
}

void EdgeCache::refresh() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, rules] : projects_) ids.push_back(id);
  }
  refreshProjects(ids);
}

void EdgeCache::settingsChanged(const std::string& project_id) {
  {
    std::lock_guard lock(mutex_);
    if (!projects_.contains(project_id)) return;
  }
  refreshProjects({project_id});
}

void EdgeCache::refreshProjects(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  std::map<std::string, std::int64_t> epochs;
  auto r =
      context_.services->db().exec("SELECT project_id, epoch FROM runtime.runtime_cache_epochs");
  for (std::int64_t i = 0; i < r.rows(); ++i)
    epochs[r.get<std::string>(i, 0)] = r.get<std::int64_t>(i, 1);
  std::map<std::string, std::optional<Project>> settings;
  const berth::ProjectsDirectory directory(*context_.services);
  for (const auto& id : ids) {
    try {
      settings[id] = directory.tryGetById(id);  // nullopt: gone, no rules
    } catch (const berth::Error&) {
      // anything else: keep what we have until the next round
    }
  }
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, fresh] : settings) {
      auto found = projects_.find(id);
      if (found == projects_.end()) continue;
      ProjectRules& rules = found->second;
      if (!fresh || !fresh->cache_enabled || fresh->cache_ttl == 0) {
        projects_.erase(found);
        changed = true;
        continue;
      }
      std::int64_t epoch = epochs.contains(id) ? epochs[id] : 0;
      if (fresh->cache_ttl != rules.settings.cache_ttl || epoch != rules.epoch) {
        rules.settings = *fresh;
        rules.epoch = epoch;
        changed = true;
      }
    }
  }
  if (changed) push();
}

std::vector<CacheRule> EdgeCache::rules() const {
  std::vector<CacheRule> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, rules] : projects_)
    for (const auto& host : rules.hosts)
      out.push_back(CacheRule{host, rules.release_id + "." + std::to_string(rules.epoch),
                              rules.settings.cache_ttl});
  return out;
}

void EdgeCache::push() {
  std::lock_guard lock(push_mutex_);
  std::vector<CacheRule> now = rules();
  if (now == pushed_) return;
  publish_(now);
  pushed_ = std::move(now);
}

}  // namespace berth::runtime
