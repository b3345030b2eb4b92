// The edge file tree of static releases (Services::setEdgeFiles, prefix "/"): nginx answers a
// GET or HEAD on a project host by itself when <data_dir>/runtime/edge/<host>/<path> is a file
// (index.html for a path ending in '/'), and asks berthd otherwise (a folder without its
// slash -> 301, a missing or hidden file -> 404, other methods, odd paths). Each entry
// <host> is a symbolic link to the live static release's folder: what the gateway would
// serve on that host. The tree is a cache of the gateway's answers, so every change that
// makes an entry untrue replaces or removes it first (a new live release, a promote, the
// project's deletion, a host that stopped being the project's); replacing is atomic (a link
// made under a temporary name, then renamed over the old one).
//
// The content types come from a types file written beside the tree from the gateway's own
// table (contentTypeFor), so a file has the same type whoever sends it.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "context.hpp"
#include "edge_hosts.hpp"

namespace berth::runtime {

class EdgeFiles {
 public:
  // Reads context.services and context.data_dir at each call (they are set in start()).
  explicit EdgeFiles(const Context& context) : context_(context) {}

  // The first call empties the tree (entries of an earlier berthd may be untrue now) and
  // gives the edge the rule; later calls do nothing. The job and the first static answer
  // call it.
  void ensureStarted();

  // A static release answered on `host` (and the project's own host): their entries point
  // at `release_dir`.
  void serving(const std::string& project_id, const std::vector<std::string>& hosts,
               const std::string& release_dir);
  // The project's live release changed: its entries point at `static_dir`, or go when it is
  // empty (no live release, or one that runs a process).
  void liveChanged(const std::string& project_id, const std::string& static_dir);
  void forget(const std::string& project_id);  // deleted: its entries go
  // Removes the entries of hosts that `belongs(host, project_id)` says are no longer the
  // project's.
  void keepHosts(const HostBelongs& belongs);
  // Every (host, project id) pair with an entry.
  std::vector<HostOfProject> hosts() const;

  std::string root() const { return context_.data_dir + "/runtime/edge"; }
  std::string typesFile() const { return context_.data_dir + "/runtime/edge_types.conf"; }

 private:
  struct Site {
    std::set<std::string> hosts;
    std::string release_dir;
  };
  bool link(const std::string& host, const std::string& release_dir);  // false: not made
  void unlink(const std::string& host);

  const Context& context_;
  mutable std::mutex mutex_;  // held while the tree changes, so entries follow the state
  bool started_ = false;
  bool enabled_ = false;               // the edge took the rule
  std::map<std::string, Site> sites_;  // by project id
};

// The nginx `types { }` text giving each extension of the gateway's table its content type.
std::string edgeTypesText();

}  // namespace berth::runtime
