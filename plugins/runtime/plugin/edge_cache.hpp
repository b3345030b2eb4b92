// The edge cache rules of this plugin (nginx proxy_cache, looked up by `key|host|request_uri`
// before berthd is asked, so a HIT never reaches berthd). One rule per project host the
// gateway gave a cacheable answer for (the project's own host and the verified custom hosts
// seen in requests), keyed "<live release id>.<purge epoch>" with the project's cache_ttl:
// a new live release or a purge changes the key, which starts a fresh cache at once. A
// project with cache_enabled false has no rule.
//
// The rules are pushed whole (Services::setEdgeCache) on every change, in the order of the
// changes. Settings and purge epochs changed elsewhere (a PATCH, another node's purge) are
// noticed by refresh(), which a job runs every few seconds.
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "project_routing.hpp"

namespace berth::runtime {

struct CacheRule {
  std::string host;
  std::string key;
  std::uint32_t ttl_seconds = 0;
  bool operator==(const CacheRule&) const = default;
};

class EdgeCache {
 public:
  using Publish = std::function<void(const std::vector<CacheRule>&)>;
  using LiveId = std::function<std::string(const std::string& project_id)>;  // "" = none

  // Reads context.services at each call (it is set in start()).
  EdgeCache(const Context& context, Publish publish, LiveId live_id)
      : context_(context), publish_(std::move(publish)), live_id_(std::move(live_id)) {}

  // May the answer to this request be stored? GET/HEAD without Authorization or a cookie, to
  // a project with its cache on.
  static bool cacheableRequest(const Project& project, const berth::Request& request);

  // A cacheable answer is about to be given on `host`: the host's rule exists once this
  // returns (pushed if it was missing or the project's settings or release changed).
  void served(const Project& project, const std::string& host, const std::string& release_id);
  void liveChanged(const std::string& project_id);  // new key at once
  // Bumps the project's purge epoch in the database (every node reads it) and pushes.
  void purge(const std::string& project_id);
  void forget(const std::string& project_id);  // deleted: its rules and its epoch row
  // Re-reads the settings and epochs of the projects with rules; pushes when one changed.
  void refresh();
  // project.updated (a PATCH): the project's cache_enabled and cache_ttl, now.
  void settingsChanged(const std::string& project_id);

  std::vector<CacheRule> rules() const;

 private:
  struct ProjectRules {
    Project settings;
    std::set<std::string> hosts;
    std::string release_id;
    std::int64_t epoch = 0;
  };
  std::int64_t readEpoch(const std::string& project_id) const;
  void refreshProjects(const std::vector<std::string>& ids);
  void push();

  const Context& context_;
  Publish publish_;
  LiveId live_id_;
  mutable std::mutex mutex_;
  std::map<std::string, ProjectRules> projects_;  // by project id
  std::mutex push_mutex_;  // pushes go out one at a time, each with the state of its time
  std::vector<CacheRule> pushed_;
};

}  // namespace berth::runtime
