// The storage plugin: the blob store other plugins keep bytes in (storage.blobs.v1), the
// stored-file routes of docs/openapi.yaml (Files) and /_files/ on project hosts. README.md
// beside this folder lists every route, answer, service method and configuration key.
#include <berth/plugin.hpp>

#include <algorithm>
#include <atomic>
#include <limits>

#include "backend_choice.hpp"
#include "blob_service.hpp"
#include "context.hpp"
#include "edge_changes.hpp"
#include "file_routes.hpp"
#include "s3_backend.hpp"

#include "berth_migrations_storage.inc"

namespace berth::storage {

class StoragePlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configString("root", "blobs",
                   "folder of the local blob store; relative paths are under data_dir, and it "
                   "must be inside data_dir so the edge may send its files");
    r.configString("mime_types", "/etc/mime.types",
                   "the mime.types file that gives stored files their content type");
    declareBackendConfig(r);
    r.configIntMap("disk_quota_mb",
                   {{"free", 1024}, {"hobby", 10240}, {"pro", 102400}, {"scale", std::nullopt}},
                   "megabytes of stored files and release archives an account may keep, by "
                   "plan; a plan that is absent or null has no quota");
    r.configInt("max_files_per_project", 10000, "stored files a project may have",
                berth::IntRange{0, 1000000000});
    r.migrations(kBerthMigrations, kBerthMigrationCount);

    registerFileRoutes(r, context_);
    registerBlobService(r, context_);
    registerStatsService(r, context_);

    // The blobs go first; a backend that does not confirm refuses the delete (502), and the
    // project stays so that the delete can be sent again.
    r.hook("project.deleting", [this](const nlohmann::json& payload) {
      context_.hosts.forgetAll();
      if (context_.tree) context_.tree->removeProject(payload.at("id").get<std::string>());
      context_.store->removeProject(payload.at("id").get<std::string>(), payload.value("name", ""));
    });
    // An upload that raced the delete may have put a blob since; the project is gone now.
    r.hook("project.deleted", [this](const nlohmann::json& payload) {
      context_.hosts.forgetAll();
      if (context_.tree) context_.tree->removeProject(payload.at("id").get<std::string>());
      try {
        context_.store->removeProject(payload.at("id").get<std::string>(),
                                      payload.value("name", ""));
      } catch (const berth::Error&) {
        // Logged by removeProject; the sweep removes what is left.
      }
    });
    // A host the project no longer has must stop reaching its files at the edge at once.
    r.hook("project.domains_changed", [this](const nlohmann::json& payload) {
      context_.hosts.forgetAll();
      if (context_.tree) context_.tree->forgetHosts(payload.at("id").get<std::string>());
    });
    // The store, made in start(), keeps file usage while the core listens for its changes.
    berth::KeptAnswers<FileUsage>::listen(
        r, kUsageChannel, [this] { return context_.store ? &context_.store->usage() : nullptr; });
    // Changes any node makes reach this node's edge tree (edge_changes.hpp).
    edge_changes_.listen(r);
    r.job(
        "sweep", std::chrono::minutes(10), [this](berth::JobContext& job) { sweep(job); }, true);
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    context_.data_dir = services.coreSetting("data_dir").value_or("");
    if (context_.data_dir.empty() || context_.data_dir[0] != '/')
      throw berth::Error("storage: data_dir must be an absolute path");
    std::string root = services.configValue<std::string>("root");
    if (root.empty()) throw berth::Error("storage.root must not be empty");
    if (root[0] != '/') root = context_.data_dir + "/" + root;
    if (root.compare(0, context_.data_dir.size() + 1, context_.data_dir + "/") != 0 ||
        root.find("/../") != std::string::npos || root.ends_with("/.."))
      throw berth::Error("storage.root must be inside data_dir (" + context_.data_dir +
                         "), where the edge may read: " + root);

    std::string mime_file = services.configValue<std::string>("mime_types");
    try {
      context_.mime = MimeTable::fromFile(mime_file);
    } catch (const std::exception& e) {
      context_.mime = MimeTable::builtIn();
      services.logger().warn(std::string(e.what()) +
                             "; content types come from a small built-in table");
    }

    try {
      auto backend = makeBackend(services, root);
      // Nothing of this process is being written yet: every temporary is a crash's leftover.
      size_t cleaned = backend->cleanTemporary(std::numeric_limits<int64_t>::max());
      if (cleaned > 0)
        services.logger().warn("removed " + std::to_string(cleaned) +
                               " unfinished writes left by an earlier run");
      context_.backend = std::move(backend);
    } catch (const BackendError& e) {
      throw berth::Error(std::string("storage: ") + e.what());
    }
    context_.store = std::make_unique<BlobStore>(services, *context_.backend);
    QuotaSettings quota_settings;
    const nlohmann::json quotas = services.configValue<nlohmann::json>("disk_quota_mb");
    for (const auto& [plan, megabytes] : quotas.items()) {
      if (megabytes.is_number_integer() && megabytes.get<int64_t>() < 0)
        throw berth::Error("storage.disk_quota_mb." + plan +
                           ": a quota is a number of megabytes (0 or more), or nothing for none");
      quota_settings.disk_quota_mb[plan] = megabytes.is_number_integer()
                                               ? std::optional<int64_t>(megabytes.get<int64_t>())
                                               : std::nullopt;
    }
    quota_settings.max_files_per_project = services.configValue<int64_t>("max_files_per_project");
    context_.quotas = std::make_unique<Quotas>(services, std::move(quota_settings));
    context_.store->setQuotas(context_.quotas.get());
    startEdgeTree(services, root + "/edge");
    sweepTreeAfterEvictions();
    context_.started_at = unixNow();
    context_.work.start(2);
  }

  void stop() override {
    context_.work.stop();
    if (context_.store) context_.store->stopKeepingUsage();
  }

 private:
  // The edge sends /_files/ from a tree of hard links when it can (see edge_tree.hpp); without
  // it (a core before ABI 1.2) berthd answers every request, as it always could.
  void startEdgeTree(berth::Services& services, const std::string& root) {
    auto tree = std::make_unique<EdgeTree>(root);
    tree->writeTypes(context_.mime);
    size_t stale = tree->sweep();
    if (stale > 0)
      services.logger().info("edge tree: removed " + std::to_string(stale) + " stale entries");
    try {
      services.setEdgeFiles({{"/_files/", tree->hostsDir(), "", tree->typesFile()}});
      context_.tree = std::move(tree);
    } catch (const berth::Error& e) {
      services.logger().warn(e.message() + "; berthd answers every /_files/ request");
    }
  }

  // An evicted S3 copy's inode lives on in the edge tree's hard link (the edge would keep
  // sending it, and its bytes would stay on disk past storage.s3_cache_mb): after an eviction
  // the tree is swept once on a work thread, which removes entries whose copy is gone (link
  // count 1). Evictions while a sweep is queued share it. A request the edge is sending from
  // such an entry keeps its descriptor; the next one misses, and berthd fetches the copy again.
  void sweepTreeAfterEvictions() {
    auto* s3 = dynamic_cast<S3Backend*>(context_.backend.get());
    if (s3 == nullptr || !context_.tree) return;
    s3->onEvicted([this](size_t evicted) {
      context_.logger().info("evicted " + std::to_string(evicted) +
                             " local copies past storage.s3_cache_mb");
      if (tree_sweep_queued_.exchange(true)) return;
      bool queued = context_.work.post([this] {
        tree_sweep_queued_ = false;
        size_t swept = context_.tree->sweep();
        context_.logger().info("edge tree: removed " + std::to_string(swept) +
                               " links to evicted copies");
      });
      if (!queued) tree_sweep_queued_ = false;
    });
  }

  // Objects no row refers to: a crash between write and commit, or a removal that failed.
  // Those older than this process cannot be writes in flight; younger ones get an hour.
  void sweep(berth::JobContext& job) {
    int64_t now = unixNow();
    int64_t cutoff = std::max(context_.started_at, now - 3600);
    size_t removed = context_.store->sweep(cutoff, [&job] { return job.stopRequested(); });
    size_t temporaries = context_.backend->cleanTemporary(now - 6 * 3600);
    if (context_.tree) removed += context_.tree->sweep();
    if (removed + temporaries > 0)
      job.logger().info("sweep removed " + std::to_string(removed) + " unreferenced objects and " +
                        std::to_string(temporaries) + " abandoned writes");
  }

  Context context_;
  EdgeChanges edge_changes_{context_};
  std::atomic<bool> tree_sweep_queued_{false};
};

}  // namespace berth::storage

BERTH_PLUGIN(berth::storage::StoragePlugin, "storage", "0.1.0",
             "the blob store, stored files and /_files on project hosts", BERTH_KIND_FEATURE,
             "projects")
