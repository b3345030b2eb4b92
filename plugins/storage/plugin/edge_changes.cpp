#include "edge_changes.hpp"

#include <berth/pg_notify.hpp>

#include <map>

#include "blob_names.hpp"

namespace berth::storage {

namespace {

// GET /projects/{name}/files reads as many; max_files_per_project is far below it.
constexpr int64_t kEveryFile = 1000000;

bool everything(std::string_view project_id) {
  return project_id.empty() || project_id == "*" || project_id.find('/') != std::string::npos;
}

}  // namespace

void EdgeChanges::listen(berth::Registrar& r) {
  berth::listenTo(r, kUsageChannel,
                  berth::PgNotifyCallbacks{
                      .listening =
                          [this] {
                            if (c_.store) c_.store->forgetServed();
                            if (c_.tree) c_.tree->trust(true);
                          },
                      .notified = [this](std::string_view id) { filesChanged(id); },
                      .notListening =
                          [this] {
                            if (c_.tree) c_.tree->trust(false);
                          },
                  });
  // Both channels share the core's one connection: the usage channel's listening covers them.
  berth::listenTo(r, kDomainsChannel,
                  berth::PgNotifyCallbacks{
                      .listening = {},
                      .notified = [this](std::string_view id) { domainsChanged(id); },
                      .notListening = {},
                  });
}

void EdgeChanges::filesChanged(std::string_view project_id) {
  if (c_.store) c_.store->forgetServed();
  if (!c_.tree) return;
  if (everything(project_id)) {
    c_.tree->dropAll();
    return;
  }
  const std::string id(project_id);
  {
    std::lock_guard lock(mutex_);
    if (!queued_.insert(id).second) return;  // the queued check reads the record later anyway
  }
  if (!c_.work.post([this, id] { check(id); })) {
    std::lock_guard lock(mutex_);
    queued_.erase(id);
    c_.tree->removeProject(id);  // stopping: drop rather than check
  }
}

void EdgeChanges::domainsChanged(std::string_view project_id) {
  c_.hosts.forgetAll();
  if (!c_.tree) return;
  if (everything(project_id))
    c_.tree->dropAll();
  else
    c_.tree->forgetHosts(std::string(project_id));
}

void EdgeChanges::check(const std::string& project_id) {
  {
    // From here on a new notification queues a new check: this one may have read too early.
    std::lock_guard lock(mutex_);
    queued_.erase(project_id);
  }
  std::vector<std::string> paths = c_.tree->publishedPaths(project_id);
  if (paths.empty()) return;
  std::map<std::string, BlobRecord> current;
  try {
    for (BlobRecord& b : c_.store->list(project_id, std::string(kFilesSpace), "", "", kEveryFile))
      current.emplace(b.key, std::move(b));
  } catch (const std::exception& e) {
    // Unsure what is current: the project's entries go, and misses put them back.
    c_.logger().warn(std::string("edge tree: cannot read the files of project ") + project_id +
                     " (" + e.what() + "); its entries are dropped");
    c_.tree->removeProject(project_id);
    return;
  }
  size_t removed = 0;
  for (const std::string& path : paths) {
    auto found = current.find(path);
    std::optional<std::string> place;
    if (found != current.end()) place = c_.store->copyPlace(found->second);
    if (c_.tree->unpublishUnless(project_id, path, place)) ++removed;
  }
  if (removed > 0)
    c_.logger().info("edge tree: removed " + std::to_string(removed) + " entries of project " +
                     project_id + " that another change replaced or deleted");
}

}  // namespace berth::storage
