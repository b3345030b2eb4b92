#include "catalog_cache.hpp"

#include "catalog_fingerprint.hpp"

namespace berth::sqlconsole {
namespace {

std::string keyOf(const std::string& project_id, const CatalogScope& scope) {
  std::string key = project_id;
  for (const std::string& table : scope.tables) key += '\n' + table;
  key += '\x01';
  for (const std::string& type : scope.types) key += '\n' + type;
  return key;
}

}  // namespace

CatalogCache::Found CatalogCache::get(PgSession& session, const std::string& project_id,
                                      const CatalogScope& scope) {
  if (scope.all_tables) return reload(session, project_id, scope);  // only scoped reads are kept
  const std::string key = keyOf(project_id, scope);
  std::shared_ptr<const Catalog> kept;
  std::string fingerprint;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      kept = it->second.catalog;
      fingerprint = it->second.fingerprint;
      ages_.splice(ages_.end(), ages_, it->second.age);
    }
  }
  if (kept && catalogFingerprint(session, scope.tables, *statement_timeout_ms_) == fingerprint) {
    checked(project_id, scope);
    return {kept, true};
  }
  return reload(session, project_id, scope);
}

std::optional<CatalogCache::Kept> CatalogCache::kept(const std::string& project_id,
                                                     const CatalogScope& scope) {
  if (scope.all_tables) return std::nullopt;
  const std::string key = keyOf(project_id, scope);
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  ages_.splice(ages_.end(), ages_, it->second.age);
  return Kept{it->second.catalog, it->second.fingerprint, trusted(it->second)};
}

void CatalogCache::checked(const std::string& project_id, const CatalogScope& scope) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(keyOf(project_id, scope));
  if (it != entries_.end()) it->second.checked_at = Clock::now();
}

bool CatalogCache::trusted(const Entry& entry) const {
  const int recheck_ms = *recheck_ms_;
  return recheck_ms > 0 && Clock::now() - entry.checked_at < std::chrono::milliseconds(recheck_ms);
}

CatalogCache::Found CatalogCache::reload(PgSession& session, const std::string& project_id,
                                         const CatalogScope& scope) {
  // The fingerprint first: a change landing between the two reads leaves an older fingerprint
  // beside a newer catalogue, which the next use finds different and reads again.
  std::string fingerprint =
      scope.all_tables ? "" : catalogFingerprint(session, scope.tables, *statement_timeout_ms_);
  auto catalog = std::make_shared<const Catalog>(loadCatalog(session, scope));
  if (!scope.all_tables)
    keep(keyOf(project_id, scope),
         Entry{project_id, std::move(fingerprint), catalog, Clock::now(), {}});
  return {catalog, false};
}

void CatalogCache::keep(const std::string& key, Entry entry) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    ages_.erase(it->second.age);
    entries_.erase(it);
  }
  while (entries_.size() >= capacity_ && !ages_.empty()) {
    entries_.erase(ages_.front());
    ages_.pop_front();
  }
  entry.age = ages_.insert(ages_.end(), key);
  entries_.emplace(key, std::move(entry));
}

void CatalogCache::forget(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.project_id == project_id) {
      ages_.erase(it->second.age);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace berth::sqlconsole
