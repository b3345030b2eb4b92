#include "project_connections.hpp"

#include <berth/services/projects_directory.hpp>

#include <iterator>

namespace berth::sqlconsole {

ProjectConnections::ProjectConnections(
    const berth::Services& services, size_t idle_per_project,
    std::vector<std::pair<std::string, std::string>> session_options)
    : services_(services),
      idle_per_project_(idle_per_project),
      session_options_(std::move(session_options)) {}

ProjectConnections::Lease::Lease(ProjectConnections* owner, std::string project_id,
                                 PgSession session)
    : owner_(owner), project_id_(std::move(project_id)), session_(std::move(session)) {}

ProjectConnections::Lease::~Lease() {
  if (owner_ == nullptr || session_.raw() == nullptr) return;
  if (discard_) {
    if (owner_->on_unreachable_) owner_->on_unreachable_(project_id_);
    return;
  }
  try {
    if (dirty_ && session_.reusable()) session_.discardAll();
    if (session_.reusable()) owner_->giveBack(project_id_, std::move(session_));
  } catch (const std::exception&) {
    // A session that cannot be reset is closed with the lease.
  }
}

std::string ProjectConnections::urlOf(const std::string& project_id) {
  {
    std::lock_guard lock(mutex_);
    auto it = urls_.find(project_id);
    if (it != urls_.end()) return it->second;
  }
  std::string url = berth::ProjectsDirectory(services_).database(project_id).url;
  std::lock_guard lock(mutex_);
  urls_[project_id] = url;
  return url;
}

std::optional<ProjectConnections::Lease> ProjectConnections::idleLease(
    const std::string& project_id) {
  std::lock_guard lock(mutex_);
  auto it = idle_.find(project_id);
  if (it == idle_.end() || it->second.empty()) return std::nullopt;
  PgSession session = std::move(it->second.back().session);
  it->second.pop_back();
  return std::optional<Lease>(std::in_place, this, project_id, std::move(session));
}

ProjectConnections::Lease ProjectConnections::lease(const std::string& project_id) {
  if (std::optional<Lease> idle = idleLease(project_id)) return std::move(*idle);
  std::string url = urlOf(project_id);
  try {
    return Lease(this, project_id, PgSession::connect(url, session_options_));
  } catch (const PgError& e) {
    // The password may have changed or the project been re-made: ask again next time.
    {
      std::lock_guard lock(mutex_);
      urls_.erase(project_id);
    }
    if (on_unreachable_) on_unreachable_(project_id);
    services_.logger().warn(std::string("sqlconsole: cannot connect to project ") + project_id +
                            ": " + e.what());
    throw berth::Error(503, "could not reach the project's database");
  }
}

void ProjectConnections::giveBack(const std::string& project_id, PgSession session) {
  std::lock_guard lock(mutex_);
  if (urls_.find(project_id) == urls_.end()) return;  // forgotten meanwhile: close it
  auto& pool = idle_[project_id];
  if (pool.size() < idle_per_project_)
    pool.push_back(Idle{std::move(session), std::chrono::steady_clock::now()});
}

size_t ProjectConnections::closeIdleLongerThan(std::chrono::steady_clock::duration longest) {
  std::vector<Idle> closing;  // closed after the lock is let go
  const auto oldest_kept = std::chrono::steady_clock::now() - longest;
  std::lock_guard lock(mutex_);
  for (auto it = idle_.begin(); it != idle_.end();) {
    auto& pool = it->second;
    auto kept = pool.begin();
    while (kept != pool.end() && kept->since < oldest_kept) ++kept;
    std::move(pool.begin(), kept, std::back_inserter(closing));
    pool.erase(pool.begin(), kept);
    it = pool.empty() ? idle_.erase(it) : std::next(it);
  }
  return closing.size();
}

void ProjectConnections::forget(const std::string& project_id) {
  std::vector<Idle> closing;
  std::lock_guard lock(mutex_);
  urls_.erase(project_id);
  auto it = idle_.find(project_id);
  if (it != idle_.end()) {
    closing = std::move(it->second);
    idle_.erase(it);
  }
}

}  // namespace berth::sqlconsole
