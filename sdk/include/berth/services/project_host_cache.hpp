// SPDX-License-Identifier: MIT
/** @file
 *  berth::ProjectHostCache: which project a host is (projects.directory.v1 `by_host`, or a
 *  `find` answer kept under the project's own host), kept in memory for a few seconds, for
 *  the plugins that answer on project hosts: every request there needs it, and a host rarely
 *  changes. Header-only, no ABI.
 *
 *  One expiry rule for every plugin, berth::LookupCache's (<berth/util/lookup_cache.hpp>, which
 *  holds the entries): an entry answers for kLifetime (5 s) after it was read from the
 *  directory; then the directory is asked again. That is how a change made on another
 *  node (cache settings PATCHed, a custom domain verified or removed, a project deleted)
 *  reaches this one without a message. On the node that made the change, the plugin drops
 *  entries at once from the hooks it follows anyway:
 *  - `project.deleting`, `project.deleted`: forgetProject(id) (or forgetAll());
 *  - `project.updated`: forgetProject(id) (a Project carries cache_enabled and cache_ttl);
 *  - `project.domains_changed`: forgetHost(host) (or forgetAll()).
 *  A read that began before a forget keeps nothing (a generation counter), so an answer read
 *  before a change never outlives it. A full cache (kMaxEntries) is emptied rather than grown,
 *  so a flood of made-up hosts costs directory reads, not memory.
 *
 *  THREADING: every member may be called from any thread.
 */
#ifndef BERTH_SERVICES_PROJECT_HOST_CACHE_HPP
#define BERTH_SERVICES_PROJECT_HOST_CACHE_HPP

#include <berth/services/projects_directory.hpp>
#include <berth/util/lookup_cache.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace berth {

class ProjectHostCache {
 public:
  using Project = projects_directory::Project;
  using Clock = LookupCache<Project>::Clock;

  /** How long an entry answers after it was read. */
  static constexpr std::chrono::seconds kLifetime{5};
  static constexpr size_t kMaxEntries = 10000;

  ProjectHostCache() : cache_(kLifetime, kMaxEntries) {}
  /** clock: the time entries expire by (a test's own; steady_clock otherwise). */
  explicit ProjectHostCache(Clock clock, size_t max_entries = kMaxEntries)
      : cache_(kLifetime, max_entries, std::move(clock)) {}

  /** The project at `host` if it was read less than kLifetime ago; never asks. */
  std::optional<Project> kept(const std::string& host) const { return cache_.find(host); }

  /** The project at `host`: kept, or asked of the directory (by_host) and kept.
   *  @throw Error 404 "no project at <host>" from the directory; nothing is kept then. */
  Project byHost(const ProjectsDirectory& directory, const std::string& host) {
    if (std::optional<Project> known = kept(host)) return *known;
    const uint64_t began = generation();
    Project project = directory.byHost(host);
    keep(host, project, began);
    return project;
  }

  /** Where a read of the directory begins: pass it to keep(). */
  uint64_t generation() const { return cache_.ticket().generation; }

  /** Keeps `project` as the project at `host` for kLifetime, unless something was forgotten
   *  since `read_began` (then the answer may predate the change). @return whether it was kept. */
  bool keep(const std::string& host, const Project& project, uint64_t read_began) {
    return cache_.store(host, project, {read_began});
  }

  /** The project with this id as it was last read under any host, even past its lifetime (for
   *  a log line's name: a project's id, name and account never change while it lives). */
  std::optional<Project> lastKnown(const std::string& project_id) const {
    return cache_.findAny([&](const Project& p) { return p.id == project_id; });
  }

  /** Drops every host of the project (deleted, or its settings changed). */
  void forgetProject(const std::string& project_id) {
    cache_.forgetIf([&](const Project& p) { return p.id == project_id; });
  }

  /** Drops one host (a custom domain verified or removed). */
  void forgetHost(const std::string& host) { cache_.forget(host); }

  void forgetAll() { cache_.clear(); }

  /** Entries held, expired ones included (they go when replaced or when the cache is full). */
  size_t size() const { return cache_.size(); }

 private:
  LookupCache<Project> cache_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_PROJECT_HOST_CACHE_HPP
