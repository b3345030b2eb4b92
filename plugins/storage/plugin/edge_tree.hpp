// The stored files of /_files/ laid out for the edge to send without asking berthd (see
// Services::setEdgeFiles):
//
//   <root>/hosts/<host>            symbolic link to ../projects/<project id>
//   <root>/projects/<id>/<path>    hard link to the blob's object (same inode: same bytes,
//                                  size, mtime, so the same ETag and Last-Modified)
//   <root>/mime.types              the plugin's content types as an nginx `types { }` block
//
// The tree is a cache of berthd's answers, never the record: anything missing is served by
// berthd, which puts it back. What matters is that it never holds what berthd would not
// serve: an entry is replaced before a replace is answered and removed before and after a
// delete; a project's folder and host links go with the project; a host link goes when the
// project's domains change; entries whose object is gone (link count 1) are swept. Every
// change is a rename or an unlink, so nginx sees the old entry or the new one. Failures are
// logged and leave berthd to answer.
//
// Other nodes change the record too (one PostgreSQL, one blob store); their changes reach this
// node as NOTIFY (edge_changes.hpp), which checks the project's entries against the record and
// drops its host links. Nothing is added unless the tree is trusted: from the core's first
// `pg.listening` on, until a `pg.not_listening`; every (re)listen drops everything. A host link
// is refused when hosts were forgotten since its lookup began (hostGeneration()).
#pragma once
#include <berth/plugin.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "mime_types.hpp"

namespace berth::storage {

class EdgeTree {
 public:
  // Creates the folders (world-readable: the edge's workers may run as another user).
  // @throw berth::Error when they cannot be made.
  explicit EdgeTree(std::string root);

  const std::string& root() const { return root_; }
  std::string hostsDir() const { return root_ + "/hosts"; }
  std::string typesFile() const { return root_ + "/mime.types"; }

  // Writes mime.types from the table (replacing it atomically).
  void writeTypes(const MimeTable& table) const;

  // Where a lookup of a host's project begins: pass it to linkHost().
  uint64_t hostGeneration() const { return host_generation_.load(); }
  // Makes the host lead to the project's folder; false when the host name is not one the
  // edge would use ($host: lower case, no port), when the tree is not trusted, and when hosts
  // were forgotten since `lookup_began` (the lookup may predate a domain's removal).
  bool linkHost(const std::string& host, const std::string& project_id,
                uint64_t lookup_began) const;
  // The stored file `path` is now the object file (a hard link replacing any earlier one);
  // false when it could not be linked or the tree is not trusted.
  bool publish(const std::string& project_id, const std::string& path,
               const std::string& object_file) const;
  void unpublish(const std::string& project_id, const std::string& path) const;
  // Removes the entry unless it is `current` itself (the same inode); true when it was removed.
  // Without `current` (the record has no such file, or no copy here) it is removed.
  bool unpublishUnless(const std::string& project_id, const std::string& path,
                       const std::optional<std::string>& current) const;
  // The stored paths the project's folder holds entries for.
  std::vector<std::string> publishedPaths(const std::string& project_id) const;
  // Removes the project's folder and every host link to it.
  void removeProject(const std::string& project_id) const;
  // Removes the host links to the project; the next miss on a host it still has puts one back.
  void forgetHosts(const std::string& project_id) const;
  // Whether entries may be added: only while every change is heard. Either way everything is
  // dropped (anything may have changed while nobody listened).
  void trust(bool heard);
  // Removes every host link and every project's folder.
  void dropAll() const;
  // Removes entries whose object no longer exists; returns how many.
  size_t sweep() const;

  // The name the edge's $host would have for a request's Host, or nothing when it cannot be a
  // folder name (empty, "..", a slash, anything but letters, digits, '-' and '.').
  static std::optional<std::string> hostFolder(const std::string& host);

 private:
  std::string projectDir(const std::string& project_id) const;
  void forgetHostsLocked(const std::string& project_id) const;
  std::string root_;
  // linkHost holds it shared and checks the generation under it; forgetting hosts bumps the
  // generation under it held exclusively, so a link checked before a forget is made before the
  // forget removes it.
  mutable std::shared_mutex hosts_lock_;
  mutable std::atomic<uint64_t> host_generation_{0};
  std::atomic<bool> trusted_{false};
};

}  // namespace berth::storage
